/**
 * The dashboard's kind panels (client/reports/kind-panels.tsx) in Chromium on a real server: an A/B,
 * an ABX and a CCR study from the demo templates (the demo's synthetic TTS systems) and a tags study
 * from the RAVDESS template (sine clips under RAVDESS file names), answered over
 * the listener API by two listeners whose answers are chosen here (checks answered right, so both
 * are retained), then each study's dashboard: its kind's panel shows the numbers counted here from
 * the answers sent — the A/B preference per pair, ABX right answers per pair, the CMOS per system,
 * the corpus emotion × majority heat map — with its figure named for screen readers, and axe finds
 * nothing serious.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { parseDocument } from 'yaml';
import { loadStudyDir } from '../studies/load';
import { setStudyStatus } from '../studies/build';
import { startTestServer, type TestServer } from '../server/testing/server';
import { call } from '../server/testing/client';
import { audit, withAxe } from './support/axe';
import { researcherToken, type E2eServer } from './support/server';
import { sine, writeWav } from '../audio-manifest/test/audio';

const root = fileURLToPath(new URL('..', import.meta.url));
const DEMO = join(root, 'studies', 'demo') + '/';

let server: TestServer;
// RAVDESS names: modality-channel-EMOTION-INTENSITY-statement-repetition-actor.
const RAVDESS = [
  '03-01-05-02-01-01-01', '03-01-02-01-02-01-01', '03-01-04-02-02-01-01', '03-01-01-01-01-01-01',
  '03-01-03-02-01-02-02', '03-01-06-01-02-02-02', '03-01-08-01-01-01-02', '03-01-07-02-02-02-02',
];

test.beforeAll(async () => {
  server = await startTestServer({ studies: [], app: { clientDir: join(root, 'dist', 'client') } });
  for (const kind of ['ab', 'abx', 'ccr']) {
    const yaml = readFileSync(join(root, 'studies', 'templates', `demo-${kind}.yaml`), 'utf8').replaceAll('../demo/', DEMO);
    const dir = join(server.dataDir, 'studies', kind);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'study.yaml'), yaml);
    const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
    setStudyStatus(server.app.db, studyId, 'open');
  }
  // A tags study: every clip to both listeners; the check is the first clip (an angry take).
  const corpus = join(server.dataDir, 'studies', 'corpus', 'RAVDESS');
  RAVDESS.forEach((stem, n) => writeWav(join(corpus, `Actor_${stem.slice(-2)}`, `${stem}.wav`), { sampleRate: 16000, channels: [sine(0.4, 16000, 220 + 20 * n, 0.4)] }));
  const doc = parseDocument(readFileSync(join(root, 'studies', 'templates', 'ravdess-emotion-tags.yaml'), 'utf8'));
  doc.setIn(['sources', 0, 'dir'], corpus);
  doc.setIn(['items'], doc.createNode({ mode: 'explicit', list: RAVDESS.slice(1).map((s) => ({ utterance: `ravdess:${s}` })) }));
  doc.setIn(['design'], doc.createNode({ kind: 'crossed' }));
  doc.setIn(['completion', 'code'], 'C0DE-TAGS');
  doc.setIn(['attentionChecks', 'list', 0, 'utterance'], `ravdess:${RAVDESS[0]}`);
  const dir = join(server.dataDir, 'studies', 'tags');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
test.afterAll(() => server?.close());

interface Trial {
  position: number;
  item: number;
  kind: string;
  order: string[];
  stimuli: { slot: string; system: string }[];
  expected: string | null;
}

/** A listener of `study` answering every trial with `answer(trial)`; returns the trials as assigned. */
async function listen(study: string, pid: string, answer: (t: Trial) => object): Promise<Trial[]> {
  const started = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  const listener = server.app.store.sessions.byToken(started.body.token)!.id;
  const rows = server.app.db
    .prepare('SELECT a.position, a.item_id AS item, a.slot_order, i.kind, i.stimuli, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position')
    .all(listener) as { position: number; item: number; slot_order: string; kind: string; stimuli: string; expected: string | null }[];
  const trials = rows.map((r) => ({ position: r.position, item: r.item, kind: r.kind, order: JSON.parse(r.slot_order) ?? [], stimuli: JSON.parse(r.stimuli), expected: r.expected }));
  for (const t of trials) {
    // A tags item is one clip, with no slot order and no listening per slot.
    const heard = t.order.map(() => ({ plays: 1, secondsHeard: 2, heardToEnd: true }));
    const voted = await call(`${server.url}/api/session/votes`, {
      token: started.body.token,
      body: { voteId: randomUUID(), position: t.position, playCount: Math.max(1, heard.length), secondsListened: 2 * Math.max(1, heard.length), heardToEnd: true, hiddenMs: 0, responseMs: 2500, clientTs: new Date().toISOString(), ...(heard.length > 0 && { listening: heard }), ...answer(t) },
    });
    expect(voted.status, voted.text).toBe(200);
  }
  return trials;
}

const systemOf = (t: Trial, slot: string) => t.stimuli.find((s) => s.slot === slot)!.system;
const scored = (kind: string) => (t: Trial) => t.kind === kind;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function openDashboard(page: Page, study: string) {
  await withAxe(page.context());
  await page.goto(`${server.url}/reports/${study}`);
  await page.getByLabel('Access token').fill(researcherToken({ dataDir: server.dataDir } as E2eServer));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('dash-votes')).toBeVisible({ timeout: 15_000 });
}

const rowsOf = (page: Page, testId: string) =>
  page.getByTestId(testId).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

test('A/B: preference per system pair, as the listeners chose', async ({ page }) => {
  // The check's expected slot is the clean version; elsewhere listener 1 prefers A, listener 2 the item's system_a.
  const screen = (t: Trial, slot: string) => (t.order[0] === slot ? 'A' : 'B');
  const answers = [
    await listen('ab', 'P-ab-1', (t) => ({ preference: t.expected ? screen(t, t.expected) : 'A' })),
    await listen('ab', 'P-ab-2', (t) => ({ preference: t.expected ? screen(t, t.expected) : screen(t, 'a') })),
  ];
  const chosen = [(t: Trial) => t.order[0], () => 'a'];
  const pairs = new Map<string, { forFirst: number; decided: number }>();
  answers.forEach((trials, l) => {
    for (const t of trials.filter(scored('ab'))) {
      const [first, second] = [systemOf(t, 'a'), systemOf(t, 'b')].sort();
      const p = pairs.get(`${first} ${second}`) ?? { forFirst: 0, decided: 0 };
      pairs.set(`${first} ${second}`, { forFirst: p.forFirst + (systemOf(t, chosen[l](t)) === first ? 1 : 0), decided: p.decided + 1 });
    }
  });
  await openDashboard(page, 'ab');
  const panel = page.getByTestId('dash-ab');
  await expect(panel.getByRole('img', { name: 'A/B preference per system pair with 95% intervals' })).toBeVisible({ timeout: 15_000 });
  const rows = await rowsOf(page, 'ab-preference');
  expect(rows.map((r) => [`${r[0]} ${r[1]}`, Number(r[2]), Number(r[3]), r[4], r[6]])).toEqual(
    [...pairs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, p]) => [k, p.forFirst, p.decided, pct(p.forFirst / p.decided), '0']),
  );
  await audit(page, 'dashboard A/B', []);
});

test('ABX: right answers per system pair, with the exact binomial p and d′', async ({ page }) => {
  // X's side on screen: A when X is the first slot offered.
  const truth = (t: Trial) => (t.order[2] === t.order[0] ? 'A' : 'B');
  const wrong = (t: Trial) => (truth(t) === 'A' ? 'B' : 'A');
  const answers = [
    await listen('abx', 'P-abx-1', (t) => ({ xIs: truth(t) })),
    await listen('abx', 'P-abx-2', (t) => ({ xIs: t.kind !== 'abx' || t.position % 2 === 0 ? truth(t) : wrong(t) })),
  ];
  const pairs = new Map<string, { n: number; correct: number }>();
  answers.forEach((trials, l) => {
    for (const t of trials.filter(scored('abx'))) {
      const key = [systemOf(t, 'a'), systemOf(t, 'b')].sort().join(' ');
      const p = pairs.get(key) ?? { n: 0, correct: 0 };
      pairs.set(key, { n: p.n + 1, correct: p.correct + (l === 0 || t.position % 2 === 0 ? 1 : 0) });
    }
  });
  await openDashboard(page, 'abx');
  const panel = page.getByTestId('dash-abx');
  await expect(panel.getByRole('img', { name: 'ABX: share of right answers per system pair with 95% intervals' })).toBeVisible({ timeout: 15_000 });
  const rows = await rowsOf(page, 'abx-pairs');
  expect(rows.map((r) => [`${r[0]} ${r[1]}`, Number(r[2]), Number(r[3]), r[4]])).toEqual(
    [...pairs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, p]) => [k, p.n, p.correct, pct(p.correct / p.n)]),
  );
  for (const r of rows) expect(r[6]).toMatch(/^(< 0\.001|[01]\.\d{3})$/);
  await audit(page, 'dashboard ABX', []);
});

test('CCR: CMOS per processed system and the order effect', async ({ page }) => {
  // score = processed relative to reference; the answer given is the second against the first.
  const raw = (t: Trial, score: number) => (t.order[0] === 'reference' ? score : -score);
  const scoreOf = [1, 2];
  const answers = [];
  for (const l of [0, 1]) answers.push(await listen('ccr', `P-ccr-${l}`, (t) => ({ comparison: raw(t, t.expected ? -2 : scoreOf[l]) })));
  const systems = new Set(answers.flatMap((trials) => trials.filter(scored('ccr')).map((t) => systemOf(t, 'processed'))));
  await openDashboard(page, 'ccr');
  const panel = page.getByTestId('dash-ccr');
  await expect(panel.getByRole('img', { name: 'Comparison mean opinion score per system with 95% intervals' })).toBeVisible({ timeout: 15_000 });
  const rows = await rowsOf(page, 'ccr-systems');
  expect(new Set(rows.map((r) => r[1]))).toEqual(systems);
  for (const r of rows) {
    const n = answers.map((trials) => trials.filter((t) => scored('ccr')(t) && systemOf(t, 'processed') === r[1]).length);
    expect([Number(r[3]), r[4]], r[1]!).toEqual([n[0] + n[1], ((n[0] * scoreOf[0] + n[1] * scoreOf[1]) / (n[0] + n[1])).toFixed(2)]);
  }
  await expect(page.getByTestId('ccr-order')).toContainText('Order effect:');
  await audit(page, 'dashboard CCR', []);
});

test('tags: agreement per attribute and the corpus emotion × majority heat map, as the listeners chose', async ({ page }) => {
  // The corpus emotion is the clip's metadata (never shown to listeners); listener 2 says neutral on every other scored clip.
  const emotionOf = (t: Trial) => (JSON.parse((t.stimuli as unknown as { role: string; text: string }[]).find((s) => s.role === 'metadata')!.text) as { emotion: string[] }).emotion[0];
  const said = [(t: Trial) => emotionOf(t), (t: Trial) => (t.kind === 'tags' && t.item % 2 === 0 ? 'neutral' : emotionOf(t))];
  const answers = [];
  for (const l of [0, 1]) answers.push(await listen('tags', `P-tags-${l}`, (t) => ({ tags: { emotion: said[l](t), intensity: 'normal' } })));
  // Two answers per clip: the majority is the emotion both gave (more than half), else there is none.
  const confusion = new Map<string, number>();
  for (const t of answers[0].filter(scored('tags'))) {
    const other = answers[1].find((u) => u.item === t.item)!;
    if (said[0](t) !== said[1](other)) continue;
    const key = `${emotionOf(t)} ${said[0](t)}`;
    confusion.set(key, (confusion.get(key) ?? 0) + 1);
  }
  expect(confusion.size).toBeGreaterThan(1);
  await openDashboard(page, 'tags');
  const panel = page.getByTestId('dash-tags');
  const map = panel.getByRole('img', { name: "emotion: corpus label × listeners' majority (items)" });
  await expect(map).toBeVisible({ timeout: 15_000 });
  const cells = await map.locator('g[data-row]').evaluateAll((gs) => gs.map((g) => [`${g.getAttribute('data-row')} ${g.getAttribute('data-column')}`, Number(g.querySelector('text')!.textContent)] as const));
  expect(Object.fromEntries(cells.filter(([, n]) => n > 0))).toEqual(Object.fromEntries(confusion));
  const [emotion] = await rowsOf(page, 'tags-attribute');
  expect(emotion.slice(0, 3)).toEqual(['emotion', String(answers[0].filter(scored('tags')).length), String(2 * answers[0].filter(scored('tags')).length)]);
  await expect(panel.getByRole('button', { name: 'Save the emotion confusion figure (SVG)' })).toBeVisible();
  await audit(page, 'dashboard tags', []);
});
