import type { Db } from '../../db/open';
import type { ProblemBody } from '../../contract/listener';
import { HttpError, conflict, sessionLeft } from '../errors';
import type { ListenerRow } from './sessions';

/**
 * Trials a listener skipped because the clip would not load or play. A report counts the trial
 * as done for the listener's progress (and completion) but is never a vote.
 */
export function trialProblemRepository(db: Db) {
  const trialAt = db.prepare<[string, number], { item_id: string; status: string }>(`
    SELECT a.item_id, s.status FROM assignments a JOIN items i ON i.id = a.item_id JOIN studies s ON s.id = i.study_id
    WHERE a.listener_id = ? AND a.position = ?`);
  const answered = db.prepare<[string, number]>('SELECT 1 FROM votes WHERE listener_id = ? AND position = ?');
  const reported = db.prepare<[string, number]>('SELECT 1 FROM trial_problems WHERE listener_id = ? AND position = ?');
  // Trials neither answered nor skipped; none left after this report means the session is finished.
  const left = db.prepare<[string], { n: number }>(`
    SELECT count(*) AS n FROM assignments a WHERE a.listener_id = ?
      AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
      AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)`);
  const insert = db.prepare(`
    INSERT INTO trial_problems (listener_id, position, item_id, problem, detail, client_ts, server_ts)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const complete = db.prepare('UPDATE listeners SET completed_at = ?, completion_code = ? WHERE id = ? AND completed_at IS NULL');

  // IMMEDIATE: votes are written by another connection; the count of trials left must see all of them.
  const report = db.transaction((listener: ListenerRow, body: ProblemBody, completionCode: string | null) => {
    const trial = trialAt.get(listener.id, body.position);
    if (!trial) throw new HttpError(403, 'not_assigned', 'no trial at this position in your session', 'position');
    if (reported.get(listener.id, body.position)) return; // a retried report
    if (trial.status !== 'open') throw conflict(`study_${trial.status}`, `this study is ${trial.status} and takes no answers now`);
    if (listener.leftAt !== null) throw sessionLeft();
    if (answered.get(listener.id, body.position)) throw conflict('already_answered', 'this trial was already answered', 'position');
    const serverTs = new Date().toISOString();
    insert.run(listener.id, body.position, trial.item_id, body.problem, body.detail, body.clientTs, serverTs);
    if (left.get(listener.id)!.n === 0) complete.run(serverTs, completionCode, listener.id);
  });

  return {
    report: (listener: ListenerRow, body: ProblemBody, completionCode: string | null) =>
      report.immediate(listener, body, completionCode),
  };
}
export type TrialProblemRepository = ReturnType<typeof trialProblemRepository>;
