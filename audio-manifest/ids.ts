import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../db/open';
import { manifestStore } from './store';

const SECRET_KEY = 'clip_id_secret';

/** The per-installation key of clip ids, created on first use and kept in the meta table. */
export function installationSecret(db: Db): string {
  return manifestStore(db).metaValue(SECRET_KEY, randomBytes(32).toString('hex'));
}

/**
 * Opaque, stable clip id. Keyed (HMAC), not a plain content or path hash: a listener who owns the
 * corpus could otherwise hash its files or names and learn which file, and so which emotion, is playing.
 */
export function clipId(secret: string, corpus: string, relativePath: string): string {
  return 'c' + createHmac('sha256', secret).update(`${corpus}\0${relativePath}`).digest('hex').slice(0, 20);
}
