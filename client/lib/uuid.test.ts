import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VoteBody } from '../../contract/listener';
import { randomUuid } from './uuid';

describe('randomUuid', () => {
  it('without crypto.randomUUID (a non-secure context) still gives distinct v4 UUIDs the server accepts', () => {
    const insecure = { getRandomValues: webcrypto.getRandomValues.bind(webcrypto) } as Pick<Crypto, 'getRandomValues'>;
    const ids = Array.from({ length: 2000 }, () => randomUuid(insecure));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const vote = { voteId: id, position: 0, choice: 1, playCount: 1, secondsListened: 1, heardToEnd: true, hiddenMs: 0, responseMs: 1, clientTs: new Date().toISOString() };
      expect(VoteBody.safeParse(vote).success).toBe(true);
    }
  });

  it('uses crypto.randomUUID where the context has it', () => {
    expect(randomUuid({ getRandomValues: () => { throw new Error('not used'); }, randomUUID: () => '00000000-0000-4000-8000-000000000001' })).toBe(
      '00000000-0000-4000-8000-000000000001',
    );
  });
});
