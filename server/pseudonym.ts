/**
 * What an analyst sees in place of a participant's platform id: a keyed pseudonym (HMAC-SHA256
 * with the installation's secret, server/store/meta.ts), the same for the same id in every study
 * and export of this installation, and useless for finding or resuming the participant without
 * that secret (docs/security.md, "Roles").
 */
import { createHmac } from 'node:crypto';
import { PARTICIPANT_PARAMETERS } from './store/sessions';

/** The listener's platform id from its recorded link parameters (the first that names a person, as sessions take it), or null when it came without one. */
export function platformId(external: Record<string, string>): string | null {
  return PARTICIPANT_PARAMETERS.map((p) => external[p]).find((v) => v !== undefined && v !== '') ?? null;
}

/** The keyed pseudonym of a platform id: 22 base64url characters (128 bits of the HMAC). */
export function pseudonym(key: string, id: string): string {
  return createHmac('sha256', key).update(id).digest().subarray(0, 16).toString('base64url');
}
