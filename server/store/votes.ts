import type { Db } from '../../db/open';
import type { VoteAck, VoteBody } from '../../contract/listener';
import type { ItemKind } from '../../contract/constants';
import type { TrialKind } from '../../contract/trials';
import { conflict } from '../errors';
import type { SessionListener } from './sessions';
import type { StudyRow } from './studies';
import { practiceFeedback, trialKinds, type AnswerColumns } from './trials';

interface StoredVote extends AnswerColumns {
  rowid: number;
  listener_id: string;
  position: number;
  server_ts: string;
  kind: ItemKind;
  trial_kind: TrialKind;
  expected: string | null;
}

export interface VoteInput {
  listener: SessionListener;
  vote: VoteBody;
}

export function voteRepository(db: Db) {
  const byId = db.prepare<[string], StoredVote>(`
    SELECT v.rowid, v.listener_id, v.position, v.first, v.chosen, v.score, v.server_ts, i.kind, i.trial_kind, i.expected
    FROM votes v JOIN items i ON i.id = v.item_id WHERE v.id = ?`);
  // Everything a new vote needs in one statement: the trial, whether it is answered, whether the
  // vote id was seen before (then the slow path below replays or refuses it), and the progress.
  const trialFor = db.prepare<
    [string, string, number], // vote id, listener id, position
    {
      item_id: string; first: 'a' | 'b' | null; kind: ItemKind; trial_kind: TrialKind; expected: string | null;
      answered: 0 | 1; skipped: 0 | 1; seen: 0 | 1; done: number; total: number;
    }
  >(`
    SELECT a.item_id, a.first, i.kind, i.trial_kind, i.expected,
           EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.item_id = a.item_id) AS answered,
           EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position) AS skipped,
           EXISTS (SELECT 1 FROM votes v WHERE v.id = ?) AS seen,
           (SELECT count(*) FROM votes v WHERE v.listener_id = a.listener_id)
             + (SELECT count(*) FROM trial_problems p WHERE p.listener_id = a.listener_id) AS done,
           (SELECT count(*) FROM assignments t WHERE t.listener_id = a.listener_id) AS total
    FROM assignments a JOIN items i ON i.id = a.item_id
    WHERE a.listener_id = ? AND a.position = ?`);
  const screened = db.prepare<[string], { screened: 0 | 1 }>('SELECT screening IS NOT NULL AS screened FROM listeners WHERE id = ?');
  const insert = db.prepare(`
    INSERT INTO votes (id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened,
                       heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Counting by rowid makes a replayed acknowledgement report the progress of the original one.
  const doneUpTo = db.prepare<[string, number], { n: number }>(
    'SELECT count(*) AS n FROM votes WHERE listener_id = ? AND rowid <= ?',
  );
  const total = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM assignments WHERE listener_id = ?');
  const complete = db.prepare(`
    UPDATE listeners SET completed_at = ?, completion_code = ?
    WHERE id = ? AND completed_at IS NULL`);

  /** The acknowledgement of a vote already stored, as it was first given. */
  const replay = (voteId: string, stored: StoredVote): VoteAck => ({
    voteId,
    position: stored.position,
    serverTs: stored.server_ts,
    progress: { done: doneUpTo.get(stored.listener_id, stored.rowid)!.n, total: total.get(stored.listener_id)!.n },
    feedback: practiceFeedback(stored, stored),
  });

  return {
    /**
     * Records one vote (inside the group-commit transaction) or throws the refusal. Refusals are
     * thrown before the only writes (the insert, then the completion), which group commit relies on.
     * `study` is the listener's study as read inside the same transaction.
     */
    record({ listener, vote }: VoteInput, study: StudyRow): VoteAck {
      if (study.definition.screening.required && !screened.get(listener.id)!.screened) {
        throw conflict('screening_required', 'this study asks for the headphone check before the first trial');
      }
      const trial = trialFor.get(vote.voteId, listener.id, vote.position);
      if (!trial || trial.seen) {
        const previous = byId.get(vote.voteId);
        if (previous) {
          const sameVote =
            previous.listener_id === listener.id &&
            previous.position === vote.position &&
            trialKinds[previous.trial_kind].sameAnswer(previous, vote);
          if (!sameVote) throw conflict('vote_id_reused', 'this vote id was already used for a different vote', 'voteId');
          return replay(vote.voteId, previous);
        }
      }
      if (!trial) throw conflict('not_assigned', 'no trial at this position in your session', 'position');
      // One rule for paused and closed alike (studies/README.md): no new votes; stored ones stay.
      if (study.status !== 'open') throw conflict(`study_${study.status}`, `this study is ${study.status} and takes no votes now`);
      if (trial.answered) throw conflict('already_answered', 'this trial was already answered', 'position');
      if (trial.skipped) throw conflict('trial_skipped', 'this trial was skipped after its clip would not play', 'position');
      const answer = trialKinds[trial.trial_kind].answer(vote, trial.first, study.definition.trial);
      const serverTs = new Date().toISOString();
      insert.run(
        vote.voteId, listener.id, trial.item_id, vote.position, answer.first, answer.chosen, answer.score, vote.playCount,
        vote.secondsListened, vote.heardToEnd ? 1 : 0, vote.hiddenMs, vote.responseMs, vote.clientTs, serverTs,
      );
      const done = trial.done + 1;
      if (done === trial.total) complete.run(serverTs, study.definition.completion.code, listener.id);
      return {
        voteId: vote.voteId,
        position: vote.position,
        serverTs,
        progress: { done, total: trial.total },
        feedback: practiceFeedback(trial, answer),
      };
    },
  };
}
export type VoteRepository = ReturnType<typeof voteRepository>;
