import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { strFromU8, unzipSync } from 'fflate';
import { expect, test, type Browser, type BrowserContextOptions, type Locator, type Page } from '@playwright/test';
import { writeTestWav } from '../server/testing/seed';
import { audit, withAxe } from './support/axe';
import { captureResponses, expectBlinded, type Received } from './support/blinding';
import { currentTrial, sessionFinished, startByKeyboard, startByTouch } from './support/listener';
import { startMain, studySecrets, type E2eServer } from './support/server';
import { analyzeBundle, exportBundle, signInToStudio } from './support/studio';

/**
 * An A/B preference study end to end, as its people meet it (analysis-spec §5.1): a researcher has
 * three TTS systems' outputs for the demo's sentences in a folder of <system>/<file-stem>.wav and
 * their automatic MOS predictions in a judge CSV; imports both into the running server's manifest
 * with `npm run manifest`, writes an A/B study.yaml over the three systems in the studio, builds,
 * previews and opens it. One listener on a phone (360×640, touch: tap A, tap B, each heard to the
 * end, choose, confirm) and one on a laptop (keys only: Space, A/B and 1/2, ←/→, Enter) answer
 * every trial to the completion code, axe clean on the A/B screen, and nothing either browser
 * receives names a system, a rendition file or a score. The exported zip, read by
 * `npm run analyze`, gives the pair report with `reliability.ties`, on exactly the votes given.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const STUDY = 'tts-ab-e2e';
const SYSTEMS = ['tts-alpha', 'tts-beta', 'tts-gamma'] as const;
const JUDGE = 'utmos-e2e';
/** The demo's 16 sentences (MetaSet `metaset:demo/demo-NN.wav`, imported by `npm start`). */
const UTTERANCES = Array.from({ length: 16 }, (_, i) => `demo-${String(i + 1).padStart(2, '0')}`);
const utteranceId = (stem: string) => `metaset:demo/${stem}.wav`;

/**
 * The study a researcher writes for their three systems: no `sources:`, so it draws on the
 * manifest the CLI imported into. Its attention checks set a rendition against the degraded copy
 * the import made of it (`degraded:<system>`); the listeners below answer a check's clean side and
 * every count is read from the study.
 */
const STUDY_YAML = `title: Which version sounds better?
consent: You agree that your choices are recorded.
instructions: Play **A** and **B** to the end, switch as often as you like, and choose the one that sounds better.
question: Which version sounds **better**?
trial: { kind: ab, tie: false }
items:
  mode: sample
  count: 6
  systems: [${SYSTEMS.join(', ')}]
  minPerSystem: 4
  judge: ${JUDGE}
  buckets: 2
  maxPerUtterance: 1
attentionChecks: { mode: degraded, count: 2 }
design: { kind: crossed }
listening: { mode: whole }
screening: { kind: none, required: false }
exclusion: { minAttention: 0.5 }
targetListeners: 2
completion: { code: AB-DONE }
linkParameters: [PROLIFIC_PID]
seed: 11
`;

let server: E2eServer;
let outputs = '';
test.afterEach(async () => {
  await server?.stop();
  if (outputs) rmSync(outputs, { recursive: true, force: true });
});

/** A system's automatic score of an utterance: a made-up MOS predictor, every score distinct and not whole. */
const scoreOf = (stem: string, system: string) => Number((4.2 - 0.7 * SYSTEMS.indexOf(system as (typeof SYSTEMS)[number]) + 0.037 * UTTERANCES.indexOf(stem)).toFixed(3));

/**
 * The researcher's system outputs: short tones, each system its own pitch, each sentence its own
 * length, tagged with the system's name (as TTS tools tag files); one stray take no utterance
 * matches; the predictor's scores as a judge CSV.
 */
function writeSystemOutputs(dir: string): { renditions: string; judge: string } {
  const renditions = join(dir, 'tts-outputs');
  SYSTEMS.forEach((system, s) => {
    mkdirSync(join(renditions, system), { recursive: true });
    UTTERANCES.forEach((stem, u) =>
      writeTestWav(join(renditions, system, `${stem}.wav`), 0.7 + 0.05 * (u % 5) + 0.04 * s, 220 * 1.26 ** s + 7 * u, 8000, { IART: system, INAM: `${system} ${stem}` }),
    );
  });
  writeTestWav(join(renditions, SYSTEMS[0], 'outtake-take2.wav'), 0.5, 300);
  const judge = join(dir, 'mos-predictions.csv');
  const rows = SYSTEMS.flatMap((system) => UTTERANCES.map((stem) => `${utteranceId(stem)},${system},${JUDGE},1,${scoreOf(stem, system)}`));
  writeFileSync(judge, ['utterance_id,system,judge,run,score', ...rows].join('\n') + '\n');
  return { renditions, judge };
}

/** `npm run manifest -- …` against the server's data dir, as a researcher runs it beside the server; its output. */
function manifest(...args: string[]): string {
  const run = spawnSync('npm', ['run', '--silent', 'manifest', '--', ...args, '--data', server.dataDir], { cwd: root, encoding: 'utf8' });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return `${run.stdout}\n${run.stderr}`;
}

interface Item {
  id: string;
  kind: string;
  seq: number;
  utterance_id: string;
  system_a: string;
  system_b: string;
  expected: 'a' | 'b' | null;
}
/** What the test may know and the page must not: the trial's item, and which of its renditions is offered as A. */
function itemAt(pid: string, position: number): Item & { first: 'a' | 'b' } {
  const [row] = server.sql<Item & { first: 'a' | 'b' }>(
    `SELECT i.id, i.kind, i.seq, i.utterance_id, i.system_a, i.system_b, i.expected, a.first
     FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
     WHERE i.study_id = ? AND json_extract(l.external, '$.PROLIFIC_PID') = ? AND a.position = ?`,
    STUDY,
    pid,
    position,
  );
  return row;
}

interface Answered {
  position: number;
  item: string;
  first: 'a' | 'b';
  chosen: 'a' | 'b';
}
const other = (side: 'a' | 'b') => (side === 'a' ? 'b' : 'a');
const stemOf = (utterance: string) => /demo-\d\d/.exec(utterance)![0];

/**
 * The rendition this listener prefers, in the item's terms: an attention check's clean side; else
 * the one the predictor scores higher, except that the laptop listener disagrees on the first item
 * of each system pair (so every pair is won both ways and Bradley–Terry has a strongly connected
 * graph, with half the items split and half unanimous).
 */
function preferred(item: Item, pid: string, firstOfPair: ReadonlySet<string>): 'a' | 'b' {
  if (item.kind === 'attention') return item.expected!;
  const stem = stemOf(item.utterance_id);
  const better = scoreOf(stem, item.system_a) > scoreOf(stem, item.system_b) ? 'a' : 'b';
  return pid === 'laptop' && firstOfPair.has(item.id) ? other(better) : better;
}

const version = (trial: Locator, side: 'A' | 'B') => trial.getByRole('group', { name: 'Versions' }).getByRole('button', { name: new RegExp(`\\b${side}\\b`) });

/** Before anything is heard the choice is locked and says why. */
async function expectLocked(trial: Locator): Promise<void> {
  await expect(trial.getByRole('status')).toHaveText('Listen to all of A and all of B to unlock the choice.');
  for (const choice of await trial.getByRole('radio').all()) await expect(choice).toBeDisabled();
}

/** A phone listener: taps A and hears it to the end, taps B and hears it to the end, taps the better one, taps Confirm. */
async function answerByTouch(page: Page, n: number, firstOfPair: ReadonlySet<string>, counts: string[], shot: string): Promise<Answered> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const item = itemAt('phone', position);
  await expectLocked(trial);
  await version(trial, 'A').tap();
  await expect(version(trial, 'A')).toHaveAttribute('aria-pressed', 'true');
  await expect(version(trial, 'A')).toHaveAttribute('data-heard', 'true', { timeout: 15_000 });
  await expect(trial).toHaveAttribute('data-unlocked', 'false');
  await version(trial, 'B').tap();
  await expect(version(trial, 'B')).toHaveAttribute('data-heard', 'true', { timeout: 15_000 });
  await expect(trial).toHaveAttribute('data-unlocked', 'true');

  // Every target is a full touch target, and nothing scrolls sideways at 360 px.
  for (const button of await trial.getByRole('button').all()) {
    const box = (await button.boundingBox())!;
    expect(Math.min(box.width, box.height), (await button.textContent()) ?? '').toBeGreaterThanOrEqual(44);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  const chosen = preferred(item, 'phone', firstOfPair);
  const side = chosen === item.first ? 'A' : 'B';
  await trial.getByRole('radio', { name: `${side} is better` }).tap();
  await expect(trial.getByRole('radio', { name: `${side} is better` })).toHaveAttribute('aria-checked', 'true');
  if (n === 1) {
    await audit(page, 'A/B trial (phone)', counts);
    await page.screenshot({ path: shot, fullPage: true });
  }
  await trial.getByRole('button', { name: 'Confirm choice' }).tap();
  await expect(trial).toBeHidden({ timeout: 20_000 });
  return { position, item: item.id, first: item.first, chosen };
}

/**
 * A laptop listener, keys only: Space plays A; B (or 2) switches to B once A is heard; ← or →
 * picks; Enter confirms. On odd trials 1 starts A instead, so every key is used.
 */
async function answerByKeyboard(page: Page, n: number, firstOfPair: ReadonlySet<string>, counts: string[], shot: string): Promise<Answered> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const item = itemAt('laptop', position);
  await expect(trial).toBeFocused();
  await expectLocked(trial);
  await page.keyboard.press(n % 2 === 0 ? 'Space' : '1');
  await expect(version(trial, 'A')).toHaveAttribute('aria-pressed', 'true');
  await expect(version(trial, 'A')).toHaveAttribute('data-heard', 'true', { timeout: 15_000 });
  await page.keyboard.press(n % 2 === 0 ? 'b' : '2');
  await expect(version(trial, 'B')).toHaveAttribute('data-heard', 'true', { timeout: 15_000 });
  await expect(trial).toHaveAttribute('data-unlocked', 'true');
  await expect(trial.getByRole('status')).toHaveText('Now choose the version you prefer.');

  const chosen = preferred(item, 'laptop', firstOfPair);
  const side = chosen === item.first ? 'A' : 'B';
  await page.keyboard.press(side === 'A' ? 'ArrowLeft' : 'ArrowRight');
  await expect(trial.getByRole('radio', { checked: true })).toHaveText(`${side} is better`);
  if (n === 1) {
    await audit(page, 'A/B trial (laptop)', counts);
    await page.screenshot({ path: shot });
  }
  await page.keyboard.press('Enter');
  await expect(trial).toBeHidden({ timeout: 20_000 });
  return { position, item: item.id, first: item.first, chosen };
}

/**
 * One listener's whole session in a browser context of its own (axe injected, every response
 * recorded): the start, every trial answered, the completion code.
 */
async function session(
  browser: Browser,
  device: BrowserContextOptions,
  url: string,
  start: (page: Page, url: string) => Promise<void>,
  answer: (page: Page, n: number) => Promise<Answered>,
  problems: string[],
): Promise<{ answered: Answered[]; received: Received[] }> {
  const context = await browser.newContext(device);
  await withAxe(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  const saw = captureResponses(page);
  await start(page, url);
  const answered: Answered[] = [];
  do answered.push(await answer(page, answered.length));
  while (!(await sessionFinished(page)));
  await expect(page.getByTestId('completion-code')).toHaveText('AB-DONE');
  await saw.settled();
  await context.close();
  return { answered, received: saw.received };
}

/** A listener's stored answers by position, and how each of the two versions was listened to. */
function stored(pid: string): Array<Answered & { listening: string }> {
  return server.sql<Answered & { listening: string }>(
    `SELECT v.position, v.item_id AS item, json_extract(v.answer, '$.first') AS first, json_extract(v.answer, '$.chosen') AS chosen, v.listening
     FROM votes v JOIN listeners l ON l.id = v.listener_id JOIN items i ON i.id = v.item_id
     WHERE i.study_id = ? AND json_extract(l.external, '$.PROLIFIC_PID') = ? ORDER BY v.position`,
    STUDY,
    pid,
  );
}

test('an A/B study of a researcher’s own TTS outputs: imported with the CLI, built in the studio, answered on a phone and a laptop, blinded, exported and analysed', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  server = await startMain();
  outputs = mkdtempSync(join(tmpdir(), 'earmark-e2e-tts-'));
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));

  // The researcher's own system outputs and scores, imported into the server's manifest with the CLI.
  const files = writeSystemOutputs(outputs);
  const imported = manifest('renditions', files.renditions);
  // Each rendition is a clip, and so are the degraded copy and the two MUSHRA anchors the import makes of it.
  const renditions = SYSTEMS.length * UTTERANCES.length;
  expect(imported).toContain(`clips: ${4 * renditions} imported`);
  expect(imported).toContain(`${renditions} renditions, ${SYSTEMS.length} systems, ${renditions} degraded copies`);
  expect(imported).toMatch(/1 file matches no utterance in the manifest and was skipped: .*outtake-take2\.wav/);
  expect(imported.match(/matches no utterance/g)).toHaveLength(1);
  manifest('import', 'judge', files.judge);
  expect(manifest('renditions-summary')).toMatch(new RegExp(SYSTEMS.map((s) => `${s}\\t${UTTERANCES.length}`).join('\n')));

  // The A/B study over them, written, built, previewed and opened in the studio.
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('demo-ab');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  await page.getByLabel('study.yaml').fill(STUDY_YAML);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Preview trials' }).click();
  const preview = page.getByTestId('preview');
  await expect(preview.locator('section.trial[data-ready="true"]')).toBeVisible({ timeout: 20_000 });
  await expect(preview.getByRole('radio')).toHaveText(['A is better', 'B is better']);
  await expect(page.getByTestId('preview-meta')).toHaveText(/^ab · tts-\w+ \(A\) vs tts-\w+ \(B\)$/);
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  const items = server.sql<Item>('SELECT id, kind, seq, utterance_id, system_a, system_b, expected FROM items WHERE study_id = ? ORDER BY seq', STUDY);
  const ordinary = items.filter((i) => i.kind === 'ab');
  expect(ordinary).toHaveLength(6);
  const pairOf = (i: Item) => [i.system_a, i.system_b].sort().join(' vs ');
  const firstOfPair = new Set([...new Map([...ordinary].reverse().map((i) => [pairOf(i), i.id])).values()]);
  expect(firstOfPair.size).toBe(3);
  const blinding = studySecrets(server.dataDir, STUDY);
  const secrets = { clipIds: blinding.clipIds, secrets: [...blinding.secrets, files.renditions, JUDGE] };
  const shown = ordinary[0];
  for (const s of [...SYSTEMS, shown.utterance_id, `${shown.system_a}/${stemOf(shown.utterance_id)}.wav`, String(scoreOf(stemOf(shown.utterance_id), shown.system_b))])
    expect(secrets.secrets).toContain(s);

  // A listener on a phone (touch only, 360×640), then one on a laptop (keys only).
  const counts: string[] = [];
  const phone = await session(browser, { viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true }, `${link}?PROLIFIC_PID=phone`, startByTouch,
    (p, n) => answerByTouch(p, n, firstOfPair, counts, info.outputPath('ab-phone.png')), problems);
  const laptop = await session(browser, { viewport: { width: 1280, height: 720 } }, `${link}?PROLIFIC_PID=laptop`, startByKeyboard,
    (p, n) => answerByKeyboard(p, n, firstOfPair, counts, info.outputPath('ab-laptop.png')), problems);
  console.log(counts.join('\n'));
  expect(counts).toHaveLength(4);
  const [byPhone, byLaptop] = [phone.answered, laptop.answered];

  // Blinded: nothing either browser received names a system, a rendition file or a score.
  expectBlinded(phone.received, secrets);
  expectBlinded(laptop.received, secrets);

  // Stored exactly as answered: every trial once, each version heard to its end.
  const trials = server.sql<{ n: number }>('SELECT COUNT(*) AS n FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.study_id = ? GROUP BY a.listener_id', STUDY);
  expect(trials.map((t) => t.n)).toEqual([items.length, items.length]);
  for (const [pid, answered] of [['phone', byPhone], ['laptop', byLaptop]] as const) {
    expect(answered).toHaveLength(items.length);
    const votes = stored(pid);
    expect(votes.map(({ listening: _, ...v }) => v)).toEqual(answered);
    for (const v of votes) {
      // Stored per stimulus in screen order, each with its slot: A's rendition first.
      const listening = JSON.parse(v.listening) as Array<{ slot: string; plays: number; toEnd: boolean }>;
      expect(listening.map((l) => [l.slot, l.toEnd]), `${pid} at ${v.position}`).toEqual([[v.first, true], [other(v.first), true]]);
      expect(listening.every((l) => l.plays >= 1)).toBe(true);
    }
  }

  // What the analysis should find, counted from the answers given.
  const all = [...byPhone, ...byLaptop];
  const scored = all.filter((a) => ordinary.some((i) => i.id === a.item));
  const unanimous = ordinary.filter((i) => new Set(scored.filter((a) => a.item === i.id).map((a) => a.chosen)).size === 1);
  expect(scored).toHaveLength(2 * ordinary.length);
  expect(unanimous).toHaveLength(ordinary.length - firstOfPair.size);
  const pairs = [...new Set(ordinary.map(pairOf))].sort().map((p) => {
    const [system_a, system_b] = p.split(' vs ');
    return { system_a, system_b, ties: 0, votes: scored.filter((a) => pairOf(ordinary.find((i) => i.id === a.item)!) === p).length };
  });
  await expect(page.getByTestId('dash-votes')).toContainText(String(all.length), { timeout: 15_000 });

  const dir = mkdtempSync(join(tmpdir(), 'earmark-e2e-ab-'));
  try {
    const zip = await exportBundle(page, dir);
    const bundle = unzipSync(readFileSync(zip));
    const csv = (name: string) => parse(strFromU8(bundle[Object.keys(bundle).find((f) => f.endsWith(name))!]), { columns: true }) as Array<Record<string, string>>;
    const itemRows = csv('items.csv');
    expect(itemRows.map((r) => r.kind)).toEqual(items.map(() => 'ab'));
    expect(new Set(itemRows.filter((r) => r.attention === '0').flatMap((r) => [r.system_a, r.system_b]))).toEqual(new Set(SYSTEMS));
    const voteRows = csv('votes.csv');
    expect(voteRows).toHaveLength(all.length);
    expect(voteRows.map((r) => `${r.item_id} ${r.first} ${r.chosen}`).sort()).toEqual(all.map((a) => `${a.item} ${a.first} ${a.chosen}`).sort());
    expect(csv('judge_scores.csv').every((r) => r.judge === JUDGE && (SYSTEMS as readonly string[]).includes(r.system))).toBe(true);

    const json = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    analyzeBundle(zip, 'json', json);
    analyzeBundle(zip, 'html', html);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.listeners).toMatchObject({ total: 2, retained: 2 });
    expect(report.reliability).toMatchObject({ items: ordinary.length, votes: scored.length, unanimous: unanimous.length, lopsided: 0, split: firstOfPair.size });
    expect(report.reliability.ties).toEqual({ votes: 0, per_system_pair: pairs });
    expect(report.judges.map((j: { judge: string }) => j.judge)).toEqual(['ensemble', JUDGE]);
    // The predictor's choice is the phone listener's, so on every item with a majority the judge agrees.
    for (const j of report.judges) expect([j.judge, j.n, j.agreement]).toEqual([j.judge, unanimous.length, 1]);
    expect(report.judges[1].calibration.votes).toBe(scored.length);
    expect(report.bradley_terry.comparisons).toBe(scored.length);
    expect(report.bradley_terry.systems.map((s: { system: string }) => s.system).sort()).toEqual([...SYSTEMS]);
    const page2 = readFileSync(html, 'utf8');
    for (const heading of ['Do listeners agree? (reliability)', 'Ties (no preference)', 'Does the judge prefer what the human majority prefers?', 'Does a ranking from human votes alone reproduce the judge’s ranking?'])
      expect(page2).toContain(heading);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(problems).toEqual([]);
});
