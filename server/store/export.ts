import { readAnalysisPlan, type AnalysisPlan } from '../../studies/analysis-plan';
import type { Db } from '../../db/open';
import { StudyDefinition } from '../../contract/study-definition';
import type { AnswerValue } from '../../contract/questionnaire';
import type { TrialKind } from '../../contract/trials';
import type { Stimulus } from '../../studies/stimuli';
import type { AnswerDocument } from './trials';

/** An item as stored; its kind (server/store/trials) makes it an items.csv row. */
export interface ExportItem {
  item_id: string;
  trial_kind: TrialKind;
  utterance_id: string;
  stimuli: Stimulus[];
  attention: 0 | 1;
  /** an attention item's intended answer (a pair's a|b, a rating's score as text); null otherwise */
  expected: string | null;
}
/** A vote as stored; its item's kind makes it a row of that kind's answers file. */
export interface ExportVote {
  item_id: string;
  listener_id: string;
  /** the kind's answer document (votes.answer) */
  answer: AnswerDocument;
  position: number;
  play_count: number;
  seconds_listened: number;
  heard_to_end: 0 | 1;
  hidden_ms: number;
  response_ms: number;
  client_ts: string;
  server_ts: string;
  vote_id: string;
  /** when the trial's item was given to the listener (ISO time; an adaptive study's: when it was chosen) */
  assigned_at: string;
  /** the listener's comment on the trial (study.yaml trialComments), or null */
  comment: string | null;
}
export interface ExportJudgeScore {
  utterance_id: string;
  system: string;
  judge: string;
  run: string;
  score: number;
}
export interface ExportListener {
  listener_id: string;
  started_at: string;
  completed_at: string | null;
  screening: 'passed' | 'failed' | null;
  /** the link parameters recorded at session start (only those the study keeps) */
  external: Record<string, string>;
  completion_code: string | null;
  /** end-of-study comments, when the study asks for them and the listener gave some */
  comments: string | null;
  /** answers to the study's questions, by question id (study.yaml questions) */
  answers: Record<string, AnswerValue>;
}
/** `Votes`: an array as rows() reads them, or an iterable a snapshot reads as it goes. */
export interface ExportRows<Votes extends Iterable<ExportVote> = ExportVote[]> {
  studyId: string;
  /** the study's stored definition: the rules and link parameters of study.json and listeners.csv */
  definition: StudyDefinition;
  items: ExportItem[];
  /** every vote in the order stored; iterable more than once (a snapshot reads them again each pass) */
  votes: Votes;
  judgeScores: ExportJudgeScore[];
  listeners: ExportListener[];
  /** the study's analysis plan with its recorded changes; null: never opened, or opened before plans existed */
  plan?: AnalysisPlan | null;
}

/** The stored screening JSON as listeners.csv's outcome; null when the check never reported. */
export function screeningOutcome(json: string | null): ExportListener['screening'] {
  if (json === null) return null;
  const passed = (JSON.parse(json) as { passed?: unknown }).passed;
  return passed === true ? 'passed' : passed === false ? 'failed' : null;
}

/**
 * The rows of a study's export bundle (analysis-spec §1), read in one transaction so the files
 * describe one moment. Practice trials are left out: they teach the task and are not data.
 * Judge scores are those of the captions the study shows, as the study's build kept them. Every
 * listener who started a session is listed, voted or not.
 */
export function exportRepository(db: Db) {
  const items = db.prepare<[string], Omit<ExportItem, 'stimuli'> & { stimuli: string }>(`
    SELECT id AS item_id, trial_kind, utterance_id, stimuli, (kind = 'attention') AS attention,
           CASE WHEN kind = 'attention' THEN expected END AS expected
    FROM items WHERE study_id = ? AND kind != 'practice' ORDER BY seq`);
  const votes = db.prepare<[string], Omit<ExportVote, 'answer'> & { answer: string }>(`
    SELECT v.item_id, v.listener_id, v.answer, v.position, v.play_count, v.seconds_listened,
           v.heard_to_end, v.hidden_ms, v.response_ms, v.client_ts, v.server_ts, v.id AS vote_id, a.assigned_at, v.comment
    FROM listeners l JOIN votes v ON v.listener_id = l.id JOIN items i ON i.id = v.item_id
    JOIN assignments a ON a.listener_id = v.listener_id AND a.position = v.position
    WHERE l.study_id = ? AND i.kind != 'practice' ORDER BY v.rowid`);
  const parsedVotes = function* (studyId: string): Iterable<ExportVote> {
    for (const v of votes.iterate(studyId)) yield { ...v, answer: JSON.parse(v.answer) as AnswerDocument };
  };
  // The study's own copy, taken at build from the judge files it declares (migration 3).
  const judgeScores = db.prepare<[string], ExportJudgeScore>(`
    SELECT utterance_id, system, judge, run, score FROM study_judge_scores
    WHERE study_id = ? ORDER BY utterance_id, system, judge, run`);
  const listeners = db.prepare<[string], { id: string; created_at: string; completed_at: string | null; screening: string | null; external: string; completion_code: string | null; comments: string | null }>(`
    SELECT id, created_at, completed_at, screening, external, completion_code, comments FROM listeners
    WHERE study_id = ? ORDER BY created_at, rowid`);
  const definition = db.prepare<[string], { definition: string }>('SELECT definition FROM studies WHERE id = ?');
  // A listener's answers by question id: one primary-key range per listener (migration 14).
  const answers = db.prepare<[string], { question: string; answer: string }>('SELECT question, answer FROM questionnaire_answers WHERE listener_id = ?');
  const listenerAnswers = (listenerId: string): Record<string, AnswerValue> =>
    Object.fromEntries(answers.all(listenerId).map((a) => [a.question, JSON.parse(a.answer) as AnswerValue]));
  const read = <Votes extends Iterable<ExportVote>>(studyId: string, votesOf: Votes): ExportRows<Votes> => ({
    studyId,
    definition: StudyDefinition.parse(JSON.parse(definition.get(studyId)!.definition)),
    items: items.all(studyId).map((i) => ({ ...i, stimuli: JSON.parse(i.stimuli) as Stimulus[] })),
    votes: votesOf,
    judgeScores: judgeScores.all(studyId),
    listeners: listeners.all(studyId).map((l) => ({
      listener_id: l.id,
      started_at: l.created_at,
      completed_at: l.completed_at,
      screening: screeningOutcome(l.screening),
      external: JSON.parse(l.external) as Record<string, string>,
      completion_code: l.completion_code,
      comments: l.comments,
      answers: listenerAnswers(l.id),
    })),
    plan: readAnalysisPlan(db, studyId),
  });
  return {
    rows: db.transaction((studyId: string): ExportRows => read(studyId, [...parsedVotes(studyId)])),
    /**
     * The same rows for a download, in a read transaction the caller ends with end(): the votes
     * are read as they are iterated (each pass a new query of the same snapshot), so a million
     * votes are never in memory at once. The connection is the caller's alone until end().
     */
    snapshot(studyId: string): ExportRows<Iterable<ExportVote>> & { end(): void } {
      db.exec('BEGIN');
      try {
        return { ...read<Iterable<ExportVote>>(studyId, { [Symbol.iterator]: () => parsedVotes(studyId)[Symbol.iterator]() }), end: () => db.exec('COMMIT') };
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
  };
}
