import { perConnection, type Db } from '../db/open';
import type { ItemKind, StudyStatus } from '../contract/constants';
import type { TrialKind } from '../contract/trials';
import type { PlannedItem } from './build';
import type { ItemLoad } from './design';
import type { MaterialScore } from './material';
import type { Stimulus } from './stimuli';

/** An item as assignment sees it: its role, its kind, its place in the study and its stimuli's slots. */
export interface StudyItem {
  id: string;
  kind: ItemKind;
  trialKind: TrialKind;
  seq: number;
  slots: string[];
  /** the item's intended answer (attention and practice items), null for a scored item */
  expected: string | null;
}

/** An utterance of the manifest with its own labels and its clip's (both JSON; the clip's null without a clip). */
export interface ManifestUtterance {
  id: string;
  corpus: string;
  clipId: string | null;
  utteranceLabels: string;
  clipLabels: string | null;
}

/** The cut-offs itemLoads counts live listeners by (ISO times), and the listener it leaves out. */
export interface LoadWindow {
  except: string;
  cutoff: string;
  holdCutoff: string;
}

/**
 * The studies' SQL, all of it: studies, items, assignments and study_judge_scores, with what the
 * build and assignment read of listeners, votes and the manifest. build.ts, design.ts and load.ts
 * keep their logic (and their transactions) and call these.
 */
function createStudyStore(db: Db) {
  const definition = db.prepare<[string], string>('SELECT definition FROM studies WHERE id = ?').pluck();
  const status = db.prepare<[string], StudyStatus>('SELECT status FROM studies WHERE id = ?').pluck();
  const insertStudy = db.prepare<[string, string, string, string, string]>(
    "INSERT INTO studies (id, title, status, definition, created_at, updated_at) VALUES (?, ?, 'draft', ?, ?, ?)",
  );
  const updateDefinition = db.prepare<[string, string, string, string]>('UPDATE studies SET title = ?, definition = ?, updated_at = ? WHERE id = ?');
  const setStatus = db.prepare<[StudyStatus, string, string]>('UPDATE studies SET status = ?, updated_at = ? WHERE id = ?');
  const votes = db.prepare<[string], number>('SELECT count(*) FROM listeners l JOIN votes v ON v.listener_id = l.id WHERE l.study_id = ?').pluck();

  const plannedItems = db.prepare<[string], Omit<PlannedItem, 'stimuli'> & { stimuli: string }>(
    'SELECT kind, trial_kind AS trialKind, utterance_id AS utteranceId, stimuli, expected FROM items WHERE study_id = ? ORDER BY seq',
  );
  const firstSlots = db.prepare<[string], { slot: string; n: number }>(
    "SELECT json_extract(slot_order, '$[0]') AS slot, count(*) AS n FROM assignments WHERE item_id = ? AND slot_order IS NOT NULL GROUP BY slot",
  );
  const items = db.prepare<[string], Omit<StudyItem, 'slots'> & { slots: string }>(
    `SELECT id, kind, trial_kind AS trialKind, seq, expected, (SELECT json_group_array(json_extract(e.value, '$.slot')) FROM json_each(items.stimuli) e) AS slots
       FROM items WHERE study_id = ? ORDER BY seq`,
  );
  const scoredItems = db.prepare<[string], number>('SELECT count(*) FROM items WHERE study_id = ? AND kind = trial_kind').pluck();
  const removeAssignments = db.prepare<[string]>('DELETE FROM assignments WHERE item_id IN (SELECT id FROM items WHERE study_id = ?)');
  const removeItems = db.prepare<[string]>('DELETE FROM items WHERE study_id = ?');
  const insertItem = db.prepare<[string, string, number, ItemKind, TrialKind, string, string, string | null]>(
    'INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli, expected) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );

  const removeJudgeScores = db.prepare<[string]>('DELETE FROM study_judge_scores WHERE study_id = ?');
  const insertJudgeScore = db.prepare<[string, string, string, string, string, number]>(
    'INSERT INTO study_judge_scores (study_id, utterance_id, system, judge, run, score) VALUES (?, ?, ?, ?, ?, ?)',
  );

  const assignmentCount = db.prepare<[string], number>('SELECT count(*) FROM assignments WHERE listener_id = ?').pluck();
  const insertAssignment = db.prepare<[string, number, string, string | null, string]>(
    'INSERT INTO assignments (listener_id, position, item_id, slot_order, assigned_at) VALUES (?, ?, ?, ?, ?)',
  );
  const markUnscoredChosen = db.prepare<[string, string]>(
    'UPDATE assignments SET chosen_at = ? WHERE listener_id = ? AND item_id IN (SELECT id FROM items WHERE kind <> trial_kind)',
  );
  const listenerStudy = db.prepare<[string], string>('SELECT study_id FROM listeners WHERE id = ?').pluck();
  const clientKey = db.prepare<[string], string | null>('SELECT client_key FROM listeners WHERE id = ?').pluck();
  const reserve = db.prepare<[string, string]>('UPDATE listeners SET reserved_at = ? WHERE id = ?');
  const itemLoads = db.prepare<[LoadWindow & { study: string }], ItemLoad>(
    `WITH live AS (
       SELECT l.id, l.reserved_at, (SELECT max(v.server_ts) FROM votes v WHERE v.listener_id = l.id) AS last_vote
         FROM listeners l
        WHERE l.study_id = :study AND l.completed_at IS NULL AND l.left_at IS NULL AND l.id <> :except),
     active AS (
       SELECT id, last_vote IS NULL AS unanswered FROM live
        WHERE julianday(last_vote) > julianday(:cutoff)
           OR (last_vote IS NULL AND julianday(reserved_at) > julianday(:holdCutoff))),
     pending AS (
       SELECT a.item_id, count(*) AS n, sum(active.unanswered) AS reserved FROM assignments a JOIN active ON active.id = a.listener_id
        WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
        GROUP BY a.item_id),
     voted AS (
       SELECT v.item_id, count(*) AS n FROM listeners l JOIN votes v ON v.listener_id = l.id
        WHERE l.study_id = :study GROUP BY v.item_id)
     SELECT i.id AS itemId, COALESCE(voted.n, 0) AS votes, COALESCE(pending.n, 0) AS pending, COALESCE(pending.reserved, 0) AS reserved
       FROM items i LEFT JOIN voted ON voted.item_id = i.id LEFT JOIN pending ON pending.item_id = i.id
      WHERE i.study_id = :study AND i.kind = i.trial_kind
      ORDER BY i.seq`,
  );
  const unansweredHolds = db.prepare<[{ study: string; key: string; listener: string; holdCutoff: string }], number>(
    `SELECT count(*) FROM listeners l
      WHERE l.study_id = :study AND l.client_key = :key AND l.id <> :listener AND l.completed_at IS NULL AND l.left_at IS NULL
        AND julianday(l.reserved_at) > julianday(:holdCutoff)
        AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = l.id)`,
  ).pluck();
  const seenByParticipant = db.prepare<[{ listener: string; study: string; path: string }], string>(
    `SELECT DISTINCT a.item_id FROM listeners me
       JOIN listeners other ON other.study_id = me.study_id AND other.id <> me.id
            AND json_extract(other.external, :path) = json_extract(me.external, :path)
       JOIN assignments a ON a.listener_id = other.id
      WHERE me.id = :listener AND me.study_id = :study AND json_extract(me.external, :path) IS NOT NULL`,
  ).pluck();

  const analysisPlan = db.prepare<[string], { hash: string; settings: string; frozenAt: string }>(
    'SELECT hash, settings, frozen_at AS frozenAt FROM analysis_plans WHERE study_id = ?',
  );
  const writeAnalysisPlan = db.prepare<[string, string, string, string]>(
    `INSERT INTO analysis_plans (study_id, hash, settings, frozen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (study_id) DO UPDATE SET hash = excluded.hash, settings = excluded.settings, frozen_at = excluded.frozen_at`,
  );
  const updateAnalysisPlan = db.prepare<[string, string, string]>('UPDATE analysis_plans SET hash = ?, settings = ? WHERE study_id = ?');
  const analysisPlanChanges = db.prepare<[string], { at: string; reason: string; fromHash: string; toHash: string; changed: string }>(
    'SELECT at, reason, from_hash AS fromHash, to_hash AS toHash, changed FROM analysis_plan_changes WHERE study_id = ? ORDER BY seq',
  );
  const recordPlanChange = db.prepare<[{ study: string; at: string; reason: string; fromHash: string; toHash: string; changed: string }]>(
    `INSERT INTO analysis_plan_changes (study_id, seq, at, reason, from_hash, to_hash, changed)
       VALUES (:study, (SELECT count(*) FROM analysis_plan_changes WHERE study_id = :study), :at, :reason, :fromHash, :toHash, :changed)`,
  );

  const manifestUtterances = db.prepare<[], ManifestUtterance>(
    `SELECT u.id, u.corpus, u.clip_id AS clipId, u.labels AS utteranceLabels, c.labels AS clipLabels
       FROM utterances u LEFT JOIN clips c ON c.id = u.clip_id`,
  );
  const manifestCaptions = db.prepare<[string], { utteranceId: string; system: string; text: string }>(
    'SELECT utterance_id AS utteranceId, system, text FROM captions WHERE task = ?',
  );
  const manifestJudgeScores = db.prepare<[], MaterialScore>('SELECT utterance_id AS utteranceId, system, judge, run, score FROM judge_scores');

  return {
    /** The study's stored definition (JSON); undefined: no such study. */
    definition: (studyId: string): string | undefined => definition.get(studyId),
    status: (studyId: string): StudyStatus | undefined => status.get(studyId),
    /** A new study, in draft. */
    insertStudy: (studyId: string, title: string, definitionJson: string, at: string): void =>
      void insertStudy.run(studyId, title, definitionJson, at, at),
    updateDefinition: (studyId: string, title: string, definitionJson: string, at: string): void =>
      void updateDefinition.run(title, definitionJson, at, studyId),
    setStatus: (studyId: string, to: StudyStatus, at: string): void => void setStatus.run(to, at, studyId),
    /** The study's analysis plan (studies/analysis-plan.ts); undefined: not frozen. */
    analysisPlan: (studyId: string) => analysisPlan.get(studyId),
    /** Freezes the plan (again): its settings and hash as of `at`. */
    writeAnalysisPlan: (studyId: string, hash: string, settings: string, at: string): void => void writeAnalysisPlan.run(studyId, hash, settings, at),
    /** The plan as a recorded change leaves it (its freezing time stays). */
    updateAnalysisPlan: (studyId: string, hash: string, settings: string): void => void updateAnalysisPlan.run(hash, settings, studyId),
    analysisPlanChanges: (studyId: string) => analysisPlanChanges.all(studyId),
    recordPlanChange: (studyId: string, change: { at: string; reason: string; fromHash: string; toHash: string; changed: string }): void =>
      void recordPlanChange.run({ study: studyId, ...change }),
    /** How many votes the study's items hold: any locks its items. */
    votes: (studyId: string): number => votes.get(studyId)!,

    /** The study's items as the build planned them, in order. */
    plannedItems: (studyId: string): PlannedItem[] => plannedItems.all(studyId).map((i) => ({ ...i, stimuli: JSON.parse(i.stimuli) as Stimulus[] })),
    items: (studyId: string): StudyItem[] => items.all(studyId).map((i) => ({ ...i, slots: JSON.parse(i.slots) as string[] })),
    /** Items of the study's own kind (not attention, not practice). */
    scoredItems: (studyId: string): number => scoredItems.get(studyId)!,
    /** The study's items and every listener's trials of them. */
    removeItems(studyId: string): void {
      removeAssignments.run(studyId);
      removeItems.run(studyId);
    },
    insertItem: (id: string, studyId: string, seq: number, item: PlannedItem): void =>
      void insertItem.run(id, studyId, seq, item.kind, item.trialKind, item.utteranceId, JSON.stringify(item.stimuli), item.expected),

    /** The study's own copy of its judge scores, replacing the one it had. */
    replaceJudgeScores(studyId: string, scores: readonly MaterialScore[]): void {
      removeJudgeScores.run(studyId);
      for (const s of scores) insertJudgeScore.run(studyId, s.utteranceId, s.system, s.judge, s.run, s.score);
    },

    assignmentCount: (listenerId: string): number => assignmentCount.get(listenerId)!,
    /** How many of the item's assignments met each slot first (a kind that balances its order across listeners). */
    firstSlots: (itemId: string): Record<string, number> =>
      Object.fromEntries(firstSlots.all(itemId).map((r) => [r.slot, r.n])),
    /** One trial of the listener: `order` the item's slots as this listener meets them (null: the kind draws no order). */
    /** An adaptive session's practice and attention positions are fixed at start: chosen now. */
    markUnscoredChosen: (listenerId: string, at: string): void => void markUnscoredChosen.run(at, listenerId),
    insertAssignment: (listenerId: string, position: number, itemId: string, order: readonly string[] | null, at: string): void =>
      void insertAssignment.run(listenerId, position, itemId, order && JSON.stringify(order), at),
    /** The listener's study; undefined: no such listener. */
    listenerStudy: (listenerId: string): string | undefined => listenerStudy.get(listenerId),
    /** The listener's client network (null: started outside the HTTP API). */
    clientKey: (listenerId: string): string | null | undefined => clientKey.get(listenerId),
    /** From now on the listener's trials hold their items before any answer. */
    reserve: (listenerId: string, at: string): void => void reserve.run(at, listenerId),
    /** Votes and live pending assignments per scored item, in item order. */
    itemLoads: (studyId: string, window: LoadWindow): ItemLoad[] => itemLoads.all({ study: studyId, ...window }),
    /** Other sessions of the study from the client network that hold trials without having answered. */
    unansweredHolds: (studyId: string, clientKey: string, listenerId: string, holdCutoff: string): number =>
      unansweredHolds.get({ study: studyId, key: clientKey, listener: listenerId, holdCutoff })!,
    /** Items the listener's other sessions (same value at `path` of their link parameters) were given. */
    seenByParticipant: (studyId: string, listenerId: string, path: string): string[] => seenByParticipant.all({ listener: listenerId, study: studyId, path }),

    manifestUtterances: (): ManifestUtterance[] => manifestUtterances.all(),
    manifestCaptions: (task: string) => manifestCaptions.all(task),
    manifestJudgeScores: (): MaterialScore[] => manifestJudgeScores.all(),
  };
}
export type StudyStore = ReturnType<typeof createStudyStore>;

/** The studies' store on this connection. */
export const studyStore: (db: Db) => StudyStore = perConnection(createStudyStore);
