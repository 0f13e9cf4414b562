import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/open';

const PSEUDONYM_KEY = 'participant_pseudonym_key';

/**
 * The installation facts in `meta` that the server keeps: the secret keying the participant
 * pseudonyms analysts see (server/pseudonym.ts), made on first use and never changed, so a
 * participant keeps one pseudonym across exports.
 */
export function metaRepository(db: Db) {
  const read = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
  return {
    /** Makes the secret if there is none yet (a write: call it on a writable connection). */
    ensurePseudonymKey(): string {
      db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(PSEUDONYM_KEY, randomBytes(32).toString('base64url'));
      return read.get(PSEUDONYM_KEY)!;
    },
    /** The secret, on any connection; throws when ensurePseudonymKey never ran on this file. */
    pseudonymKey(): string {
      const key = read.get(PSEUDONYM_KEY);
      if (key === undefined) throw new Error('the participant pseudonym key is missing from meta');
      return key;
    },
  };
}
