/** The reserved system name of a system's degraded renditions (A/B attention checks): ':' is never in an imported system's name. */
export const degradedSystem = (system: string): string => `degraded:${system}`;
