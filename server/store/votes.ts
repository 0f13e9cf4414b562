import type { Db } from '../db/open';
import type { VoteAck, VoteBody } from '../contract';
import { HttpError, conflict } from '../errors';
import type { ListenerRow } from './sessions';

interface StoredVote {
  rowid: number;
  listener_id: string;
  position: number;
  first: 'a' | 'b';
  chosen: 'a' | 'b';
  server_ts: string;
  kind: string;
  expected: 'a' | 'b' | null;
}

export interface VoteInput {
  listener: ListenerRow;
  vote: VoteBody;
  /** Written on the listener when this vote answers the last trial. */
  completionCode: string | null;
}

/** The screen choice (1 = caption shown first) in the item's own terms. */
export const chosenCaption = (first: 'a' | 'b', choice: 1 | 2): 'a' | 'b' =>
  choice === 1 ? first : first === 'a' ? 'b' : 'a';

export function voteRepository(db: Db) {
  const byId = db.prepare<[string], StoredVote>(`
    SELECT v.rowid, v.listener_id, v.position, v.first, v.chosen, v.server_ts, i.kind, i.expected
    FROM votes v JOIN items i ON i.id = v.item_id WHERE v.id = ?`);
  const assignment = db.prepare<
    [string, number],
    { item_id: string; first: 'a' | 'b'; status: string; answered: 0 | 1 }
  >(`
    SELECT a.item_id, a.first, s.status,
           EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.item_id = a.item_id) AS answered
    FROM assignments a JOIN items i ON i.id = a.item_id JOIN studies s ON s.id = i.study_id
    WHERE a.listener_id = ? AND a.position = ?`);
  const insert = db.prepare(`
    INSERT INTO votes (id, listener_id, item_id, position, first, chosen, play_count, seconds_listened,
                       heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
    VALUES (@id, @listener_id, @item_id, @position, @first, @chosen, @play_count, @seconds_listened,
            @heard_to_end, @hidden_ms, @response_ms, @client_ts, @server_ts)`);
  // Counting by rowid makes a replayed acknowledgement report the progress of the original one.
  const doneUpTo = db.prepare<[string, number], { n: number }>(
    'SELECT count(*) AS n FROM votes WHERE listener_id = ? AND rowid <= ?',
  );
  const total = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM assignments WHERE listener_id = ?');
  const complete = db.prepare(`
    UPDATE listeners SET completed_at = ?, completion_code = ?
    WHERE id = ? AND completed_at IS NULL`);

  const ack = (voteId: string, stored: StoredVote): VoteAck => ({
    voteId,
    position: stored.position,
    serverTs: stored.server_ts,
    progress: { done: doneUpTo.get(stored.listener_id, stored.rowid)!.n, total: total.get(stored.listener_id)!.n },
    feedback:
      stored.kind === 'practice' && stored.expected ? { correct: stored.chosen === stored.expected } : null,
  });

  return {
    /** Records one vote (inside the group-commit transaction) or throws the refusal. */
    record({ listener, vote, completionCode }: VoteInput): VoteAck {
      const previous = byId.get(vote.voteId);
      if (previous) {
        const sameVote =
          previous.listener_id === listener.id &&
          previous.position === vote.position &&
          previous.chosen === chosenCaption(previous.first, vote.choice);
        if (!sameVote) throw conflict('vote_id_reused', 'this vote id was already used for a different vote', 'voteId');
        return ack(vote.voteId, previous);
      }
      const trial = assignment.get(listener.id, vote.position);
      if (!trial) throw new HttpError(403, 'not_assigned', 'no trial at this position in your session', 'position');
      if (trial.status === 'closed') throw conflict('study_closed', 'this study is closed and takes no more votes');
      if (trial.answered) throw conflict('already_answered', 'this trial was already answered', 'position');
      insert.run({
        id: vote.voteId,
        listener_id: listener.id,
        item_id: trial.item_id,
        position: vote.position,
        first: trial.first,
        chosen: chosenCaption(trial.first, vote.choice),
        play_count: vote.playCount,
        seconds_listened: vote.secondsListened,
        heard_to_end: vote.heardToEnd ? 1 : 0,
        hidden_ms: vote.hiddenMs,
        response_ms: vote.responseMs,
        client_ts: vote.clientTs,
        server_ts: new Date().toISOString(),
      });
      const stored = byId.get(vote.voteId)!;
      const result = ack(vote.voteId, stored);
      if (result.progress.done === result.progress.total) {
        complete.run(new Date().toISOString(), completionCode, listener.id);
      }
      return result;
    },
  };
}
export type VoteRepository = ReturnType<typeof voteRepository>;
