import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Db } from '../../db/open';

export type Role = 'researcher' | 'analyst';

export interface AccessToken {
  id: string;
  role: Role;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** The studies the token may reach, or null for every study (migration 12). */
  studies: string[] | null;
}

/** What an active token grants: a role, on every study (`studies` null) or on the named ones only. */
export interface StaffGrant {
  id: string;
  role: Role;
  studies: string[] | null;
}

const derive = promisify(scrypt) as (secret: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_BYTES = 32;
/** What an unknown or revoked token is checked against: same work, never a match. */
const decoy = { salt: randomBytes(16), hash: randomBytes(KEY_BYTES) };
/** A token id as create() makes it: 12 hex digits. */
const TOKEN_ID = /^[0-9a-f]{12}$/;

/** The public part of a well-formed token (`<id>.<secret>`), which failure limits are counted by, or ''. */
export const tokenId = (token: string): string => {
  const id = token.slice(0, Math.max(0, token.indexOf('.')));
  return TOKEN_ID.test(id) ? id : '';
};

/** Too many key derivations are running or waiting; the caller answers 429 without deriving. */
export class DerivationsBusyError extends Error {}

/**
 * The server-wide cap on scrypt runs. A derivation takes one of libuv's four threads for tens of
 * milliseconds, and those threads also read the audio listeners are playing: with at most
 * `running` at once, the others stay free for file reads whatever arrives. Beyond `waiting`
 * queued, a derivation is refused at once (server/test/auth-abuse.test.ts measures clip latency
 * under 500 bad sign-ins).
 */
class DerivationCap {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) throw new DerivationsBusyError();
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.active += 1;
    try {
      return await work();
    } finally {
      // The slot passes to the next waiter as it is, or is given back.
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}

const TOKEN_ROW = `SELECT id, role, salt, hash, revoked_at, studies FROM access_tokens WHERE id = ?`;
interface TokenRow {
  id: string;
  role: Role;
  salt: string;
  hash: string;
  revoked_at: string | null;
  studies: string | null;
}
const grantOf = (row: TokenRow): StaffGrant => ({ id: row.id, role: row.role, studies: row.studies === null ? null : (JSON.parse(row.studies) as string[]) });
const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex');
/** Verified tokens remembered (by fingerprint); the oldest is forgotten first. */
const REMEMBERED = 1000;

/**
 * Researcher/analyst tokens look like `<id>.<secret>`: the id finds the row, the secret is
 * checked against a salted scrypt hash in constant time. Only the hash is stored, so a token
 * is shown once, at creation. A token once verified is remembered by its sha256, so a signed-in
 * studio's polls cost no key derivation and no failure limit can refuse them; its row is read
 * again each time, so revoking works at once.
 */
export function accessTokenRepository(db: Db) {
  const cap = new DerivationCap(1, 32);
  const insert = db.prepare(
    'INSERT INTO access_tokens (id, role, salt, hash, label, created_at, studies) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], TokenRow>(TOKEN_ROW);
  const all = db.prepare<[], Omit<AccessToken, 'studies'> & { studies: string | null }>(
    `SELECT id, role, label, created_at AS createdAt, revoked_at AS revokedAt, studies FROM access_tokens ORDER BY created_at`,
  );
  const revoke = db.prepare('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const activeOfRole = db.prepare<[Role], { n: number }>(
    'SELECT count(*) AS n FROM access_tokens WHERE role = ? AND revoked_at IS NULL',
  );
  const verified = new Map<string, string>();
  const activeRow = (id: string) => {
    const row = id ? byId.get(id) : undefined;
    return row && row.revoked_at === null ? row : undefined;
  };

  return {
    async create(role: Role, label: string | null = null, studies: string[] | null = null): Promise<{ id: string; token: string }> {
      const id = randomBytes(6).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      const salt = randomBytes(16);
      const hash = await derive(secret, salt, KEY_BYTES);
      const scope = studies === null ? null : JSON.stringify([...new Set(studies)].sort());
      insert.run(id, role, salt.toString('hex'), hash.toString('hex'), label, new Date().toISOString(), scope);
      return { id, token: `${id}.${secret}` };
    },
    /** Whether `id` is an active token's id (no secret checked): failures against it count per id, not per address. */
    isActiveId: (id: string): boolean => activeRow(id) !== undefined,
    /** The grant of a token verified before and still active, without a key derivation; else undefined. */
    remembered(token: string): StaffGrant | undefined {
      const key = fingerprint(token);
      const id = verified.get(key);
      if (id === undefined) return undefined;
      const row = activeRow(id);
      if (!row) verified.delete(key);
      return row && grantOf(row);
    },
    /**
     * The grant a presented token gives, or null (unknown, malformed, revoked or wrong secret).
     * Every refusal runs the same key derivation, so its timing does not tell an unknown or
     * revoked id from a known one with a wrong secret. Throws DerivationsBusyError when the
     * server-wide cap on derivations is reached.
     */
    async verify(token: string): Promise<StaffGrant | null> {
      const dot = token.indexOf('.');
      const row = dot > 0 ? activeRow(token.slice(0, dot)) : undefined;
      const presented = await cap.run(() => derive(dot > 0 ? token.slice(dot + 1) : token, row ? Buffer.from(row.salt, 'hex') : decoy.salt, KEY_BYTES));
      const matches = timingSafeEqual(presented, row ? Buffer.from(row.hash, 'hex') : decoy.hash);
      if (!row || !matches) return null;
      if (verified.size >= REMEMBERED) verified.delete(verified.keys().next().value!);
      verified.set(fingerprint(token), row.id);
      return grantOf(row);
    },
    list: (): AccessToken[] => all.all().map((t) => ({ ...t, studies: t.studies === null ? null : (JSON.parse(t.studies) as string[]) })),
    revoke: (id: string): boolean => revoke.run(new Date().toISOString(), id).changes === 1,
    hasActive: (role: Role): boolean => activeOfRole.get(role)!.n > 0,
  };
}
export type AccessTokenRepository = ReturnType<typeof accessTokenRepository>;
