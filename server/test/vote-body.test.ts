import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { VoteBody } from '../../contract/listener';
import { isPlainVote } from '../routes/listener';
import { voteFor } from '../testing/client';

// The vote route checks a body with isPlainVote first and hands anything it does not accept to
// VoteBody (zod). It must never accept what VoteBody refuses, and should accept what the page sends.
const edge = (...values: unknown[]) => fc.constantFrom(...values);
const anyValue = fc.oneof(
  fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.integer(), { maxLength: 2 }),
);
const fields = {
  voteId: fc.oneof(
    fc.uuid(),
    fc.uuid().map((u) => u.toUpperCase()),
    edge('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'not-a-uuid', ''),
    fc.uuid().map((u) => `${u.slice(0, 14)}0${u.slice(15)}`),
    fc.uuid().map((u) => `${u} `),
  ),
  position: fc.oneof(fc.integer({ min: -3, max: 200 }), edge(0.5, -0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Infinity, NaN, '1')),
  choice: fc.oneof(edge(1, 2, 0, 3, 1.5, '1', true)),
  playCount: fc.oneof(fc.integer({ min: -2, max: 10_002 }), edge(10_000, 10_001, 2.5)),
  secondsListened: fc.oneof(fc.double({ min: -1, max: 90_000 }), edge(0, 86_400, 86_400.0001, -0, NaN, Infinity)),
  heardToEnd: fc.oneof(fc.boolean(), edge(0, 1, 'true', null)),
  hiddenMs: fc.oneof(fc.integer({ min: -2, max: 90_000_000 }), edge(86_400_000, 86_400_001, 1.5)),
  responseMs: fc.oneof(fc.integer({ min: -2, max: 90_000_000 }), edge(86_400_000, 86_400_001, 1.5)),
  clientTs: fc.oneof(
    fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '+05:30')),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('.', ',')),
    edge('2025-02-29T10:00:00Z', '2024-02-29T10:00:00Z', '2025-04-31T10:00:00Z', '2025-01-01T24:00:00Z', '2025-01-01T10:00Z',
      '2025-01-01T10:00:00', '2025-01-01T10:00:00+24:00', '2025-01-01T10:00:00.123456789-02:00', '2025-13-01T10:00:00Z', ''),
  ),
};
// Mostly the values the page sends, so that many candidates reach the accepted side.
const usual = {
  voteId: fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8] }),
  position: fc.nat(500),
  choice: edge(1, 2),
  playCount: fc.nat(20),
  secondsListened: fc.double({ min: 0, max: 600, noNaN: true }),
  heardToEnd: fc.boolean(),
  hiddenMs: fc.nat(100_000),
  responseMs: fc.nat(100_000),
  clientTs: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
};
const mostlyUsual = Object.fromEntries(
  Object.entries(fields).map(([key, unusual]) => [key, fc.oneof({ weight: 12, arbitrary: usual[key as keyof typeof usual] as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: unusual as fc.Arbitrary<unknown> })]),
) as { [K in keyof typeof fields]: fc.Arbitrary<unknown> };
const body = fc.record(mostlyUsual).chain((vote) =>
  fc.oneof(
    fc.constant<Record<string, unknown>>(vote),
    // A field missing, one of another type, or one more key.
    fc.constantFrom(...Object.keys(vote)).map((key) => Object.fromEntries(Object.entries(vote).filter(([k]) => k !== key))),
    fc.tuple(fc.constantFrom(...Object.keys(vote)), anyValue).map(([key, value]) => ({ ...vote, [key]: value })),
    fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), anyValue).map(([key, value]) => ({ ...vote, [key]: value })),
  ),
);

describe('isPlainVote', () => {
  it('accepts only bodies VoteBody accepts unchanged', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (candidate) => {
        if (!isPlainVote(candidate)) return;
        accepted++;
        const parsed = VoteBody.safeParse(candidate);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(candidate);
      }),
      { numRuns: 20_000 },
    );
    // The property is only worth something if the generator reaches the accepted side often.
    expect(accepted).toBeGreaterThan(100);
  });

  it('accepts the votes the listener page sends', () => {
    for (let i = 0; i < 50; i++) {
      const vote = voteFor(i, i % 2 ? 1 : 2, { secondsListened: i / 7, heardToEnd: i % 3 === 0 });
      expect(isPlainVote(JSON.parse(JSON.stringify(vote)))).toBe(true);
    }
    expect(isPlainVote({ ...voteFor(0), clientTs: '2026-12-01T08:00:00.000+01:00' })).toBe(true);
  });

  it('leaves the nil and max UUIDs, extra keys and other shapes to VoteBody', () => {
    for (const voteId of ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      expect(isPlainVote(voteFor(0, 1, { voteId }))).toBe(false);
    }
    expect(isPlainVote({ ...voteFor(0), extra: 1 })).toBe(false);
    expect(isPlainVote(null)).toBe(false);
    expect(isPlainVote([voteFor(0)])).toBe(false);
    expect(isPlainVote(Object.assign(Object.create({ position: 0 }), voteFor(0), { position: undefined }))).toBe(false);
  });
});
