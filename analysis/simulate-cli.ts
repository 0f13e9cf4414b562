import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { commandLine, runCommand, UsageError } from '../cli/args';
import { writeBundle } from './bundle';
import { simulate, simulateAbx, simulateCcr, simulateMushra, simulateRatings } from './simulate';
import { simulateTags } from '../trials/tags/simulate';
import { simulateDescribe } from '../trials/describe/simulate';
import { MUSHRA_COLUMNS } from '../trials/mushra/report';

const count = (min: number) => z.coerce.number().int().min(min);
const flags = z.object({
  systems: count(2).default(14),
  items: count(1).default(100),
  listeners: count(1).default(15),
  careless: count(0).default(2),
  'careless-passing': count(0).default(0),
  attention: count(0).default(8),
  seed: count(0).default(1),
  'ratings-per-item': count(1).optional(),
  'position-bias': z.coerce.number().finite().default(0.2),
  'listener-spread': z.coerce.number().min(0).max(1).default(0),
  kind: z.enum(['pair', 'rating', 'ab', 'tags', 'mushra', 'abx', 'ccr', 'describe']).default('pair'),
  'answers-per-item': count(2).default(5),
  'miss-reference': count(0).default(1),
  'tie-rate': z.coerce.number().min(0).max(1).default(0.15),
  'listener-bias': z.coerce.number().min(0).default(0.4),
  'rating-noise': z.coerce.number().min(0).default(0.7),
  recency: z.coerce.number().finite().default(0.3),
  out: z.string().min(1, 'is required: the bundle directory to write'),
}).strict();

const USAGE = `usage: npm run simulate -- --out <dir> [--kind pair|rating|ab|tags|mushra|abx|ccr|describe] [--systems 14] [--items 100] [--listeners 15]
  [--careless 2] [--careless-passing 0] [--attention 8] [--seed 1] [--ratings-per-item N]
  pair and ab studies: [--position-bias 0.2]   ab studies: [--tie-rate 0.15] (0: no "no preference" offered)
  pair studies: [--listener-spread 0] (each listener's sensitivity uniform in 1 ± this)
  rating studies: [--listener-bias 0.4] [--rating-noise 0.7]
  tags studies (RAVDESS-like emotion + a multi attribute): [--answers-per-item 5]
  mushra studies (--systems ≤ 9): [--miss-reference 1] (listeners who score the hidden reference low)
  ccr studies: [--recency 0.3] (pull towards the version heard second); --systems counts the processed systems
Writes a bundle (as npm run export does) from known truth, and the truth in <dir>/truth.json.`;

async function main(): Promise<number> {
  const { values, positionals } = commandLine(
    process.argv.slice(2),
    Object.fromEntries(['systems', 'items', 'listeners', 'careless', 'careless-passing', 'attention', 'seed', 'ratings-per-item', 'position-bias', 'listener-spread', 'out', 'kind', 'listener-bias', 'rating-noise', 'tie-rate', 'answers-per-item', 'miss-reference', 'recency']
      .map((k) => [k, { type: 'string' as const }])),
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const parsed = flags.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) console.error(`--${issue.path.join('.')}: ${issue.message}`);
    return 2;
  }
  const f = parsed.data;
  if (f.careless > f.listeners) {
    console.error('--careless: cannot exceed --listeners');
    return 2;
  }
  if (f['careless-passing'] > f.careless) {
    console.error('--careless-passing: cannot exceed --careless');
    return 2;
  }
  if (f['listener-spread'] > 0 && f.kind !== 'pair') {
    console.error(`--listener-spread: simulates caption-pair listeners only (--kind pair), not --kind ${f.kind}`);
    return 2;
  }
  if (f.kind === 'tags') {
    const study = simulateTags({ items: f.items, listeners: f.listeners, careless: f.careless, attention: f.attention, answersPerItem: f['answers-per-item'], seed: f.seed });
    await writeBundle(f.out, study);
    await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
    console.log(`wrote ${f.out}: ${f.items} tags items and ${f.attention} attention checks (truth in truth.json)`);
    return 0;
  }
  if (f.kind === 'describe') {
    const study = simulateDescribe({ items: f.items, listeners: f.listeners, careless: f.careless, answersPerItem: f['answers-per-item'], seed: f.seed });
    await writeBundle(f.out, study);
    await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
    console.log(`wrote ${f.out}: ${f.items} describe items, texts.csv of ${[...study.answerFiles![0].rows].length} texts (truth in truth.json)`);
    return 0;
  }
  if (f.kind === 'mushra') {
    const study = simulateMushra({ systems: Math.min(f.systems, 9), items: f.items, listeners: f.listeners, seed: f.seed, missReference: f['miss-reference'] });
    await writeBundle(f.out, {
      items: study.items, votes: [], judgeScores: [], stimuli: study.stimuli,
      answerFiles: [{ file: 'mushra.csv', columns: MUSHRA_COLUMNS, rows: study.rows.map((cells) => ({ cells })) }],
    });
    await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
    console.log(`wrote ${f.out}: ${study.items.length} MUSHRA pages, ${study.rows.length} scores (truth in truth.json)`);
    return 0;
  }
  if (f.kind === 'rating') {
    const study = simulateRatings({
      systems: f.systems, items: f.items, listeners: f.listeners, careless: f.careless, carelessPassing: f['careless-passing'], attention: f.attention,
      seed: f.seed, ratingsPerItem: f['ratings-per-item'], listenerBias: f['listener-bias'], ratingNoise: f['rating-noise'],
    });
    await writeBundle(f.out, study);
    await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
    console.log(`wrote ${f.out}: ${study.items.length} rating items, ${study.ratings.length} ratings (truth in truth.json)`);
    return 0;
  }
  if (f.kind === 'abx' || f.kind === 'ccr') {
    if (f['careless-passing'] > 0) {
      console.error(`--careless-passing: not simulated for ${f.kind} studies`);
      return 2;
    }
    const common = { systems: f.systems, items: f.items, listeners: f.listeners, careless: f.careless, attention: f.attention, seed: f.seed, ratingsPerItem: f['ratings-per-item'] };
    const study = f.kind === 'abx' ? simulateAbx(common) : simulateCcr({ ...common, recency: f.recency });
    await writeBundle(f.out, { ...study, extraVoteColumns: ['response_ms'] });
    await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
    console.log(`wrote ${f.out}: ${study.items.length} ${f.kind.toUpperCase()} items, ${study.answerFiles[0].file} of ${[...study.answerFiles[0].rows].length} answers (truth in truth.json)`);
    return 0;
  }
  const study = simulate({
    systems: f.systems, items: f.items, listeners: f.listeners, careless: f.careless, carelessPassing: f['careless-passing'], attention: f.attention,
    seed: f.seed, ratingsPerItem: f['ratings-per-item'], positionBias: f['position-bias'], listenerSpread: f['listener-spread'],
    ...(f.kind === 'ab' && { kind: 'ab' as const, tieRate: f['tie-rate'] }),
  });
  await writeBundle(f.out, { ...study, extraVoteColumns: ['response_ms'] });
  await writeFile(join(f.out, 'truth.json'), JSON.stringify(study.truth, null, 2));
  const ties = study.votes.filter((v) => v.chosen === 'tie').length;
  console.log(`wrote ${f.out}: ${study.items.length}${f.kind === 'ab' ? ' A/B' : ''} items, ${study.votes.length} votes${f.kind === 'ab' ? ` (${ties} ties)` : ''}, ${study.judgeScores.length} judge scores (truth in truth.json)`);
  return 0;
}

runCommand(USAGE, main).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
