import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Db } from '../../db/open';

export type Role = 'researcher' | 'analyst';

export interface AccessToken {
  id: string;
  role: Role;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

const derive = promisify(scrypt) as (secret: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_BYTES = 32;
/** What an unknown or revoked token is checked against: same work, never a match. */
const decoy = { salt: randomBytes(16), hash: randomBytes(KEY_BYTES) };

/** The public part of a token (`<id>.<secret>`), which failure limits are counted by. */
export const tokenId = (token: string): string => token.slice(0, Math.max(0, token.indexOf('.'))).slice(0, 64);

/**
 * Researcher/analyst tokens look like `<id>.<secret>`: the id finds the row, the secret is
 * checked against a salted scrypt hash in constant time. Only the hash is stored, so a token
 * is shown once, at creation.
 */
export function accessTokenRepository(db: Db) {
  const insert = db.prepare(
    'INSERT INTO access_tokens (id, role, salt, hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], { role: Role; salt: string; hash: string; revoked_at: string | null }>(
    'SELECT role, salt, hash, revoked_at FROM access_tokens WHERE id = ?',
  );
  const all = db.prepare<[], AccessToken>(
    `SELECT id, role, label, created_at AS createdAt, revoked_at AS revokedAt FROM access_tokens ORDER BY created_at`,
  );
  const revoke = db.prepare('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const activeOfRole = db.prepare<[Role], { n: number }>(
    'SELECT count(*) AS n FROM access_tokens WHERE role = ? AND revoked_at IS NULL',
  );

  return {
    async create(role: Role, label: string | null = null): Promise<{ id: string; token: string }> {
      const id = randomBytes(6).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      const salt = randomBytes(16);
      const hash = await derive(secret, salt, KEY_BYTES);
      insert.run(id, role, salt.toString('hex'), hash.toString('hex'), label, new Date().toISOString());
      return { id, token: `${id}.${secret}` };
    },
    /**
     * The role a presented token grants, or null (unknown, malformed, revoked or wrong secret).
     * Every refusal runs the same key derivation, so its timing does not tell an unknown or
     * revoked id from a known one with a wrong secret.
     */
    async verify(token: string): Promise<Role | null> {
      const dot = token.indexOf('.');
      const row = dot > 0 ? byId.get(token.slice(0, dot)) : undefined;
      const usable = row !== undefined && row.revoked_at === null;
      const presented = await derive(dot > 0 ? token.slice(dot + 1) : token, usable ? Buffer.from(row.salt, 'hex') : decoy.salt, KEY_BYTES);
      const matches = timingSafeEqual(presented, usable ? Buffer.from(row.hash, 'hex') : decoy.hash);
      return usable && matches ? row.role : null;
    },
    list: (): AccessToken[] => all.all(),
    revoke: (id: string): boolean => revoke.run(new Date().toISOString(), id).changes === 1,
    hasActive: (role: Role): boolean => activeOfRole.get(role)!.n > 0,
  };
}
export type AccessTokenRepository = ReturnType<typeof accessTokenRepository>;
