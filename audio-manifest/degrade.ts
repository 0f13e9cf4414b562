/** The reserved system name of a system's degraded renditions (A/B attention checks): ':' is never in an imported system's name. */
export const degradedSystem = (system: string): string => `degraded:${system}`;

/** The system whose renditions a degraded system's are copies of; null for any other system. */
export const cleanSystemOf = (system: string): string | null => (system.startsWith('degraded:') ? system.slice('degraded:'.length) : null);
