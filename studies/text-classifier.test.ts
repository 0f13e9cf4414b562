import { describe, expect, it } from 'vitest';
import { keyedRandom } from '../analysis/random';
import { BLEND_BUDGET, blendFigures, blendWarning, checkVsItemAuc, sideGuessAccuracy } from './text-classifier';

/** Captions of `n` words drawn from a shared vocabulary, seeded: trials no text feature tells apart. */
function captions(count: number, seed: string, extra = ''): string[] {
  const random = keyedRandom(7, seed);
  const vocabulary = ['low', 'high', 'voice', 'speaks', 'slowly', 'quickly', 'calm', 'bright', 'deep', 'woman', 'man', 'accent', 'pace', 'tone', 'soft', 'loud'];
  return Array.from({ length: count }, () => `${Array.from({ length: 5 + random.int(6) }, () => vocabulary[random.int(vocabulary.length)]).join(' ')}${extra}`);
}
// Two texts each, no text in two trials (as in a study: every text is shown once).
const trials = (texts: string[]) => texts.flatMap((t, i) => (i % 2 === 0 ? [{ texts: [t, texts[i + 1]] }] : []));

describe('checkVsItemAuc (cross-validated logistic regression on words and lengths)', () => {
  it('finds a word only the checks contain', () => {
    expect(checkVsItemAuc(trials(captions(40, 'c', ' clearly')), trials(captions(160, 'i')))).toBeGreaterThan(0.9);
  });
  it('finds checks longer than the items', () => {
    expect(checkVsItemAuc(trials(captions(40, 'c', ' voice speaks slowly low tone soft loud deep')), trials(captions(160, 'i')))).toBeGreaterThan(0.8);
  });
  it('tells nothing from trials drawn alike, and is deterministic', () => {
    const [checks, items] = [trials(captions(40, 'c')), trials(captions(160, 'i'))];
    const value = checkVsItemAuc(checks, items);
    expect(value).toBeLessThan(BLEND_BUDGET.auc);
    expect(checkVsItemAuc(checks, items)).toBe(value);
  });
});

describe('sideGuessAccuracy', () => {
  const items = captions(60, 'i');
  it('names the right side when it is always the longer one, or always carries a word', () => {
    const longer = captions(20, 'r').map((r, i) => ({ correct: `${r} and more words here for sure`, wrong: captions(20, 'w')[i] }));
    expect(sideGuessAccuracy(longer, items).longer).toBeGreaterThan(0.9);
    const marked = captions(20, 'r').map((r, i) => ({ correct: `${r} truly`, wrong: captions(20, 'w')[i] }));
    expect(sideGuessAccuracy(marked, items).classifier).toBeGreaterThanOrEqual(0.9);
  });
  it('never learns a check from its own texts: the left-out check shares no text with the training set', () => {
    // Every check twice (as pooled plans meet them): recognising the copy would name the side every time.
    const once = captions(20, 'r').map((r, i) => ({ correct: r, wrong: captions(20, 'w')[i] }));
    expect(sideGuessAccuracy([...once, ...once], items).classifier).toBeLessThanOrEqual(BLEND_BUDGET.side + 0.1);
  });
});

describe('blendFigures and blendWarning', () => {
  const item = (a: string, b: string) => ({ kind: 'pair', trialKind: 'pair', captionA: a, captionB: b, expected: null });
  const check = (a: string, b: string) => ({ kind: 'attention', trialKind: 'pair', captionA: a, captionB: b, expected: 'a' });
  const texts = captions(120, 'x');
  it('warns, naming the figures, when checks are spotted by a word of their own and their right side by its length', () => {
    const plan = [...texts.slice(0, 80).map((t, i) => item(t, texts[i + 1])), ...texts.slice(80, 100).map((t, i) => check(`${t} clearly wrong here now`, texts[100 + i]))];
    const figures = blendFigures(plan)!;
    expect(figures).toMatchObject({ checks: 20, items: 80 });
    expect(figures.auc).toBeGreaterThan(BLEND_BUDGET.auc);
    expect(blendWarning(figures)).toMatch(/^attentionChecks: listeners may spot these attention checks without listening: a text classifier tells them from the items \(cross-validated AUC [01]\.\d\d, budget 0\.65\); a text-only guess names the right side of \d+ % of them \(budget 60 %\)/);
  });
  it('is quiet when checks are drawn like the items, and has nothing to say without texts', () => {
    const plan = [...texts.slice(0, 80).map((t, i) => item(t, texts[i + 1])), ...texts.slice(80, 100).map((t, i) => check(t, texts[100 + i]))];
    expect(blendWarning(blendFigures(plan))).toBeNull();
    expect(blendFigures([{ kind: 'attention', trialKind: 'rating', captionA: null, captionB: null, expected: '1' }])).toBeNull();
  });
});
