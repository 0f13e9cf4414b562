/**
 * The export writes a kind it does not know: a study of the test-only yes/no kind (its analysis
 * part in analysis/kinds/yesno.test-kind.ts, its server part here) exports yesno.csv with the app's
 * columns after the kind's, stimuli.csv for its three-stimulus items, and its trial settings in
 * study.json; `earmark analyze` on those files gives the report the live dashboard computes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../analysis/bundle';
import { registerYesNo, type YesNoSection } from '../../analysis/kinds/yesno.test-kind';
import { analyzeStudy, resolveSettings } from '../../analysis/study-settings';
import { StudyDefinition } from '../../contract/study-definition';
import { stimulus } from '../../studies/stimuli';
import { bundleFiles, liveBundle } from '../bundle';
import type { ExportRows, ExportVote } from '../store/export';
import { trialKinds, type ServerTrialKind } from '../store/trials';

const notServed = () => {
  throw new Error('the yes/no kind is exported in this test, never served');
};
/** The server part of the yes/no kind: only what the export uses; its answers go to yesno.csv. */
const yesnoServer: ServerTrialKind = {
  trial: notServed, answer: notServed, sameAnswer: notServed, correct: notServed, feedback: notServed,
  bundleItem: ({ item_id, utterance_id, stimuli: [asked], attention, expected }) => ({
    kind: 'yesno', item_id, utterance_id, system_a: asked.system!, system_b: '', attention: attention === 1, expected,
  }),
  answers: {
    file: 'yesno.csv',
    columns: ['item_id', 'listener_id', 'answer'],
    rows: ({ item_id, listener_id, answer }) => [{ item_id, listener_id, answer: answer.answer as string }],
  },
};

const definition = {
  ...StudyDefinition.parse({
    title: 'Natural?',
    consent: 'You agree to listen.',
    instructions: 'Say whether the clip sounds natural.',
    question: 'Natural?',
    items: { mode: 'explicit', list: [{ utterance: 'u1', systemA: 'tts', systemB: 'human' }] },
    design: { kind: 'crossed' },
    targetListeners: 3,
    completion: { code: 'YN-DONE' },
  }),
  trial: { kind: 'yesno', question: 'natural?' },
} as unknown as StudyDefinition;

// Three stimuli (the asked system, and two references the kind plays beside it): stimuli.csv is written.
const three = (system: string) => [stimulus('x', 'asked', 'c1', system, null), stimulus('r', 'reference', 'c2', 'human', null), stimulus('q', 'anchor', 'c3', 'anchor35', null)];
const item = (item_id: string, system: string, expected: string | null = null) => ({
  item_id, trial_kind: 'yesno', utterance_id: `u-${item_id}`, stimuli: three(system), attention: expected === null ? 0 : 1, expected,
}) as unknown as ExportRows['items'][number];
let seq = 0;
const vote = (item_id: string, listener_id: string, answer: string): ExportVote => ({
  item_id, listener_id, answer: { answer }, position: seq, play_count: 1, seconds_listened: 2, heard_to_end: 1, hidden_ms: 0, response_ms: 900 + seq,
  client_ts: '2026-12-03T07:00:00.000Z', server_ts: '2026-12-03T07:00:01.000Z', vote_id: `v${++seq}`, assigned_at: '2026-12-03T06:59:00.000Z', comment: null,
});
const listener = (listener_id: string) => ({
  listener_id, started_at: '2026-12-03T06:00:00.000Z', completed_at: '2026-12-03T06:30:00.000Z', screening: null, external: {}, completion_code: 'YN-DONE', comments: null, answers: {},
});
const rows: ExportRows = {
  studyId: 'yn',
  definition,
  items: [item('i1', 'tts'), item('i2', 'tts'), item('i3', 'human'), item('chk', 'human', 'yes')],
  votes: [
    vote('i1', 'l1', 'no'), vote('i2', 'l1', 'yes'), vote('i3', 'l1', 'yes'), vote('chk', 'l1', 'yes'),
    vote('i1', 'l2', 'yes'), vote('chk', 'l2', 'no'),
    vote('i1', 'l3', 'no'), vote('i2', 'l3', 'no'), vote('i3', 'l3', 'no'), vote('chk', 'l3', 'yes'),
  ],
  judgeScores: [],
  listeners: ['l1', 'l2', 'l3'].map(listener),
};

let unregister: () => void;
let dir: string;
beforeAll(async () => {
  unregister = registerYesNo();
  (trialKinds as Record<string, ServerTrialKind>).yesno = yesnoServer;
  dir = await mkdtemp(join(tmpdir(), 'earmark-kind-export-'));
});
afterAll(async () => {
  unregister();
  delete (trialKinds as Record<string, ServerTrialKind>).yesno;
  await rm(dir, { recursive: true, force: true });
});

describe('the export of a registered kind', () => {
  it('writes its answers file, stimuli.csv and its trial settings; analyze on the files = the live report', async () => {
    const files = bundleFiles(rows) as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual(['items.csv', 'judge_scores.csv', 'listeners.csv', 'stimuli.csv', 'study.json', 'votes.csv', 'yesno.csv']);
    const answers = files['yesno.csv'].split('\r\n');
    expect(answers[0]).toBe('item_id,listener_id,answer,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at');
    expect(answers[1]).toBe('i1,l1,no,0,1,2,1,0,900,2026-12-03T07:00:00.000Z,2026-12-03T07:00:01.000Z,v1,2026-12-03T06:59:00.000Z');
    expect(answers).toHaveLength(rows.votes.length + 2);
    expect(files['votes.csv']).toBe('item_id,listener_id,first,chosen,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at\r\n');
    expect(files['stimuli.csv'].split('\r\n').slice(0, 4)).toEqual(['item_id,slot,role,system', 'i1,x,asked,tts', 'i1,r,reference,human', 'i1,q,anchor,anchor35']);
    expect(files['items.csv'].split('\r\n')[4]).toBe('chk,u-chk,human,,1,yes,yesno');
    expect(JSON.parse(files['study.json']).trial).toEqual({ kind: 'yesno', question: 'natural?' });

    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const offline = await readBundle(dir);
    const settings = resolveSettings(offline.study);
    const report = analyzeStudy(offline, settings);
    const live = liveBundle(rows);
    expect(analyzeStudy(live, resolveSettings(live.study))).toEqual(report);
    expect(report.listeners.excluded.map((e) => [e.listener_id, e.reason])).toEqual([['l2', 'attention'], ['l3', 'always_no']]);
    expect((report as unknown as { yesno: YesNoSection }).yesno.systems).toEqual([
      { system: 'tts', n: 2, yes: 1, share_yes: 0.5 }, { system: 'human', n: 1, yes: 1, share_yes: 1 },
    ]);
    expect(offline.stimuli).toHaveLength(12);
  });

  it('leaves a pair study without stimuli.csv, its own file or trial settings in study.json', () => {
    const pairRows = { ...rows, definition: StudyDefinition.parse({ ...definition, trial: undefined }), items: [], votes: [] };
    const files = bundleFiles(pairRows) as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual(['items.csv', 'judge_scores.csv', 'listeners.csv', 'study.json', 'votes.csv']);
    expect(JSON.parse(files['study.json'])).not.toHaveProperty('trial');
  });
});
