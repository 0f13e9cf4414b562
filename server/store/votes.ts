import type { Db } from '../../db/open';
import type { VoteAck, VoteBody } from '../../contract/listener';
import type { ItemKind } from '../../contract/constants';
import type { TrialKind } from '../../contract/trials';
import { conflict, sessionLeft } from '../errors';
import type { SessionListener } from './sessions';
import type { StudyRow } from './studies';
import { practiceFeedback, trialKinds, type AnswerDocument } from './trials';
import { UsedVoteIds } from './used-vote-ids';
import { voteTarget } from '../../studies/design';

export interface VoteInput {
  listener: SessionListener;
  vote: VoteBody;
}

/** The trial a vote answers, and the vote already stored for it if there is one (a retry, or another answer). */
interface TrialForVote {
  item_id: string;
  /** the assignment's slot order (JSON list), or null */
  slot_order: string | null;
  kind: ItemKind;
  trial_kind: TrialKind;
  expected: string | null;
  /** The stored screening's kind ('both' once a study asking for both has both) and whether it passed (1/0), null before any. */
  screening_kind: string | null;
  screening_passed: 0 | 1 | null;
  /** Another session of the same participant in this study has a failed check. */
  failed_elsewhere: 0 | 1;
  skipped: 0 | 1;
  /** The listener left the study from its page (POST /api/session/leave). */
  left_study: 0 | 1;
  /** Whether a later trial of the session is still open (neither answered nor skipped). */
  open_after: 0 | 1;
  stored_id: string | null;
  /** the stored answer document (JSON) */
  stored_answer: string | null;
  stored_ts: string | null;
}

export function voteRepository(db: Db) {
  // Whether the listener has an open trial on the given side of a position: the search walks the
  // listener's assignments in position order and stops at the first open one, which for a listener
  // answering in order is the very next (counting every answer of the session instead costs a third
  // of a vote's statements' time).
  const openTrial = (side: '>' | '<') => `
    EXISTS (SELECT 1 FROM assignments o WHERE o.listener_id = a.listener_id AND o.position ${side} a.position
      AND NOT EXISTS (SELECT 1 FROM votes w WHERE w.listener_id = o.listener_id AND w.position = o.position)
      AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = o.listener_id AND p.position = o.position))`;
  // Everything a vote needs in one statement, all of it found through the listener's own index
  // entries (migration 11): the trial, the vote already at that trial, the screening, what is left.
  const trialFor = db.prepare<[string, number], TrialForVote>(`
    SELECT a.item_id, a.slot_order, i.kind, i.trial_kind, i.expected,
           json_extract(l.screening, '$.kind') AS screening_kind, json_extract(l.screening, '$.passed') AS screening_passed,
           (l.participant IS NOT NULL AND EXISTS (SELECT 1 FROM listeners o WHERE o.study_id = l.study_id AND o.participant = l.participant
              AND o.id <> l.id AND json_extract(o.screening, '$.passed') = 0)) AS failed_elsewhere,
           EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position) AS skipped,
           l.left_at IS NOT NULL AS left_study,
           ${openTrial('>')} AS open_after,
           v.id AS stored_id, v.answer AS stored_answer, v.server_ts AS stored_ts
    FROM assignments a
    JOIN items i ON i.id = a.item_id
    JOIN listeners l ON l.id = a.listener_id
    LEFT JOIN votes v ON v.listener_id = a.listener_id AND v.position = a.position
    WHERE a.listener_id = ? AND a.position = ?`);
  const openBefore = db
    .prepare<[string, number], 0 | 1>(`SELECT ${openTrial('<')} FROM assignments a WHERE a.listener_id = ? AND a.position = ?`)
    .pluck();
  // A vote id names one answer of one listener: asked only before a new answer is stored, of the
  // ids the writer remembers (used-vote-ids.ts); these read the listener's votes (no index has their ids).
  const idUsed = db.prepare<[string, string], 1>('SELECT 1 FROM votes WHERE listener_id = ? AND id = ? LIMIT 1').pluck();
  const idsOf = db.prepare<[string], string>('SELECT id FROM votes WHERE listener_id = ?').pluck();
  const usedIds = new UsedVoteIds((listenerId) => idsOf.all(listenerId), (listenerId, voteId) => idUsed.get(listenerId, voteId) !== undefined);
  const insert = db.prepare(`
    INSERT INTO votes (id, listener_id, item_id, position, answer, listening, play_count, seconds_listened,
                       heard_to_end, hidden_ms, response_ms, client_ts, server_ts, comment)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const itemVotes = db.prepare<[string], number>('SELECT count(*) FROM votes WHERE item_id = ?').pluck();
  const complete = db.prepare(`
    UPDATE listeners SET completed_at = ?, completion_code = ?
    WHERE id = ? AND completed_at IS NULL`);

  return {
    /**
     * Records one vote (inside the group-commit transaction) or throws the refusal. Refusals are
     * thrown before the only writes (the insert, then the completion), which group commit relies on.
     * `study` is the listener's study as read inside the same transaction.
     */
    record({ listener, vote }: VoteInput, study: StudyRow): VoteAck {
      const trial = trialFor.get(listener.id, vote.position);
      if (!trial) throw conflict('not_assigned', 'no trial at this position in your session', 'position');
      if (trial.stored_id !== null) {
        // A vote id names one answer to one trial: the same id again is a retry, answered as it was
        // the first time (whatever the study's status is now); another id is a second answer.
        if (trial.stored_id !== vote.voteId) throw conflict('already_answered', 'this trial was already answered', 'position');
        const stored = JSON.parse(trial.stored_answer!) as AnswerDocument;
        if (!trialKinds[trial.trial_kind].sameAnswer(stored, vote)) {
          throw conflict('vote_id_reused', 'this vote id was already used for a different answer', 'voteId');
        }
        return { voteId: vote.voteId, position: vote.position, serverTs: trial.stored_ts!, feedback: practiceFeedback(trial, stored) };
      }
      // One rule for paused and closed alike (studies/README.md): no new votes; stored ones stay.
      if (study.status !== 'open') throw conflict(`study_${study.status}`, `this study is ${study.status} and takes no votes now`);
      if (trial.left_study) throw sessionLeft();
      const screening = study.definition.screening;
      if (screening.required) {
        // A failed check is final for the participant, in any browser and any of their sessions.
        if (trial.screening_passed === 0 || trial.failed_elsewhere) {
          throw conflict('screened_out', 'this study needs a passed headphone check, and this participant\'s check did not pass; no answers are taken');
        }
        if (trial.screening_kind !== screening.kind) throw conflict('screening_required', 'this study asks for the headphone check before the first trial');
      }
      if (trial.skipped) throw conflict('trial_skipped', 'this trial was skipped after its clip would not play', 'position');
      if (usedIds.used(listener.id, vote.voteId)) throw conflict('vote_id_reused', 'this vote id was already used for another trial', 'voteId');
      if (vote.comment && !study.definition.trialComments) throw conflict('comments_not_asked', 'this study has no comment box on its trials', 'comment');
      // Exact targets: one indexed count, only for a scored item of a design with a target.
      const target = trial.kind === trial.trial_kind ? voteTarget(study.definition.design) : null;
      if (target !== null && itemVotes.get(trial.item_id)! >= target) {
        throw conflict('item_complete', 'this clip already has all the answers it needs; your next trial follows', 'position');
      }
      const order = trial.slot_order === null ? null : (JSON.parse(trial.slot_order) as string[]);
      const answer = trialKinds[trial.trial_kind].answer(vote, order, study.definition.trial);
      const serverTs = new Date().toISOString();
      insert.run(
        vote.voteId, listener.id, trial.item_id, vote.position, JSON.stringify(answer), listeningRecord(vote, order), vote.playCount,
        vote.secondsListened, vote.heardToEnd ? 1 : 0, vote.hiddenMs, vote.responseMs, vote.clientTs, serverTs, vote.comment || null,
      );
      usedIds.add(listener.id, vote.voteId);
      // The session's last open trial completes it.
      if (!trial.open_after && !openBefore.get(listener.id, vote.position)) {
        complete.run(serverTs, study.definition.completion.code, listener.id);
      }
      return {
        voteId: vote.voteId,
        position: vote.position,
        serverTs,
        feedback: practiceFeedback(trial, answer),
      };
    },
  };
}
export type VoteRepository = ReturnType<typeof voteRepository>;

/**
 * votes.listening: the vote's per-stimulus record (sent in screen order) with each entry's slot, as
 * JSON; null for a trial of one clip, whose record is the vote's totals (play_count, seconds_listened,
 * heard_to_end). A record that does not match the trial's stimuli is refused by the kind's check first.
 */
function listeningRecord(vote: VoteBody, order: string[] | null): string | null {
  if (!vote.listening) return null;
  return JSON.stringify(vote.listening.map((l, i) => ({ slot: order?.[i] ?? null, plays: l.plays, seconds: l.secondsHeard, toEnd: l.heardToEnd })));
}
