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
// The answer of any kind (a caption choice, a rating's score, an A/B preference), usual or not, and
// sometimes a per-stimulus listening record, usual or not.
const answer = fc.oneof(
  fields.choice.map((choice) => ({ choice })),
  fc.oneof(fc.integer({ min: 0, max: 12 }), edge(1.5, '3', null, -1)).map((score) => ({ score })),
  fc.oneof(edge('A', 'B', 'tie'), edge('a', 'C', '', 1, null)).map((preference) => ({ preference })),
);
const stimulus = fc.record({
  plays: fc.oneof({ weight: 8, arbitrary: fc.nat(5) }, { weight: 1, arbitrary: edge(-1, 1.5, 10_001, '1') }),
  secondsHeard: fc.oneof({ weight: 8, arbitrary: fc.double({ min: 0, max: 60, noNaN: true }) }, { weight: 1, arbitrary: edge(-1, NaN, 86_401, '2') }),
  heardToEnd: fc.oneof({ weight: 8, arbitrary: fc.boolean() }, { weight: 1, arbitrary: edge(0, null) }),
});
const listening = fc.oneof(
  { weight: 6, arbitrary: fc.array(stimulus, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.oneof(fc.constant([]), fc.array(stimulus, { minLength: 13, maxLength: 14 }), stimulus.map((s) => [{ ...s, extra: 1 }]), fc.constant([null]), fc.constant({})) },
);
const anyKind = fc.record({ vote: fc.record(mostlyUsual), answer, listening: fc.option(listening, { freq: 2 }) }).map(({ vote, answer, listening }) => {
  const { choice: _, ...core } = vote;
  return { ...core, ...answer, ...(listening === null ? {} : { listening }) };
});
const body = fc.oneof(fc.record(mostlyUsual), anyKind).chain((vote) =>
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
    const acceptedWith = new Set<string>();
    fc.assert(
      fc.property(body, (candidate) => {
        if (!isPlainVote(candidate)) return;
        accepted++;
        const parsed = VoteBody.safeParse(candidate);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(candidate);
        for (const key of ['score', 'preference', 'listening']) if (key in candidate) acceptedWith.add(key);
      }),
      { numRuns: 30_000 },
    );
    // The property is only worth something if the generator reaches the accepted side often, for every kind's answer.
    expect(accepted).toBeGreaterThan(100);
    expect([...acceptedWith].sort()).toEqual(['listening', 'preference', 'score']);
  });

  it('accepts the votes the listener page sends', () => {
    for (let i = 0; i < 50; i++) {
      const vote = voteFor(i, i % 2 ? 1 : 2, { secondsListened: i / 7, heardToEnd: i % 3 === 0 });
      expect(isPlainVote(JSON.parse(JSON.stringify(vote)))).toBe(true);
    }
    expect(isPlainVote({ ...voteFor(0), clientTs: '2026-12-01T08:00:00.000+01:00' })).toBe(true);
    // A rating's score and an A/B preference with both versions' listening, as their pages send them.
    const { choice: _, ...core } = voteFor(3);
    expect(isPlainVote({ ...core, score: 4 })).toBe(true);
    const heard = [{ plays: 1, secondsHeard: 2.5, heardToEnd: true }, { plays: 2, secondsHeard: 3, heardToEnd: false }];
    expect(isPlainVote({ ...core, preference: 'B', listening: heard })).toBe(true);
    expect(isPlainVote({ ...core, preference: 'B', choice: 1 })).toBe(false);
    expect(isPlainVote({ ...core, preference: 'B', listening: [] })).toBe(false);
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
