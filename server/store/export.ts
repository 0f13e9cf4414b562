import type { Db } from '../db/open';

export interface ExportItem {
  item_id: string;
  utterance_id: string;
  system_a: string;
  system_b: string;
  attention: 0 | 1;
  expected: 'a' | 'b' | null;
}
export interface ExportVote {
  item_id: string;
  listener_id: string;
  first: 'a' | 'b';
  chosen: 'a' | 'b';
  position: number;
  play_count: number;
  seconds_listened: number;
  heard_to_end: 0 | 1;
  hidden_ms: number;
  response_ms: number;
  client_ts: string;
  server_ts: string;
  vote_id: string;
}
export interface ExportJudgeScore {
  utterance_id: string;
  system: string;
  judge: string;
  run: string;
  score: number;
}
export interface ExportRows {
  items: ExportItem[];
  votes: ExportVote[];
  judgeScores: ExportJudgeScore[];
}

/**
 * The rows of a study's export bundle (analysis-spec §1). Practice trials are left out: they
 * teach the task and are not data. Judge scores are those of the captions the study shows, as
 * the study's build kept them.
 */
export function exportRepository(db: Db) {
  const items = db.prepare<[string], ExportItem>(`
    SELECT id AS item_id, utterance_id, system_a, system_b, (kind = 'attention') AS attention,
           CASE WHEN kind = 'attention' THEN expected END AS expected
    FROM items WHERE study_id = ? AND kind != 'practice' ORDER BY seq`);
  const votes = db.prepare<[string], ExportVote>(`
    SELECT v.item_id, v.listener_id, v.first, v.chosen, v.position, v.play_count, v.seconds_listened,
           v.heard_to_end, v.hidden_ms, v.response_ms, v.client_ts, v.server_ts, v.id AS vote_id
    FROM votes v JOIN items i ON i.id = v.item_id
    WHERE i.study_id = ? AND i.kind != 'practice' ORDER BY v.rowid`);
  // The study's own copy, taken at build from the judge files it declares (migration 3).
  const judgeScores = db.prepare<[string], ExportJudgeScore>(`
    SELECT utterance_id, system, judge, run, score FROM study_judge_scores
    WHERE study_id = ? ORDER BY utterance_id, system, judge, run`);
  return {
    rows: db.transaction(
      (studyId: string): ExportRows => ({
        items: items.all(studyId),
        votes: votes.all(studyId),
        judgeScores: judgeScores.all(studyId),
      }),
    ),
  };
}
