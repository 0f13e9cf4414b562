import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../db/open';
import { UPCOMING_TRIALS, type ItemKind } from '../../contract/constants';
import { type SessionState } from '../../contract/listener';
import type { AnswerValue, Question } from '../../contract/questionnaire';
import type { TrialKind } from '../../contract/trials';
import type { StudyRow } from './studies';
import { conflict } from '../errors';
import { clientNetwork } from '../network';
import { assignTrials, voteTarget } from '../../studies/design';
import { chooseServed } from '../../studies/adaptive/assign';

/** How many trials after the current one an adaptive study serves (fewer than UPCOMING_TRIALS: choices read recent votes). */
export const ADAPTIVE_UPCOMING_TRIALS = 1;
import { installationSecret } from '../../audio-manifest/ids';
import { trialKinds } from './trials';
import { SERVED_STIMULI_SQL, servedStimuli } from './trials/served';
import { screeningRepository } from './screening';

/** The listener a session token resolves to. */
export interface ListenerRow {
  id: string;
  studyId: string;
  completionCode: string | null;
  /** When the listener left the study from its page, or null. */
  leftAt: string | null;
}

/**
 * What a session token names for good: its listener and that listener's study. A token is never
 * moved to another listener and listeners are never deleted, so this can be remembered; every
 * other fact (screening, completion, the study's status and definition) can change and is read
 * where it is used.
 */
export interface SessionListener {
  id: string;
  studyId: string;
}

/** Tokens remembered by sessionListener; the oldest is forgotten first (one lookup to bring it back). */
const REMEMBERED_TOKENS = 20_000;

interface TrialRow {
  position: number;
  /** JSON list of the item's slots in this listener's order, or null */
  slot_order: string | null;
  kind: ItemKind;
  trial_kind: TrialKind;
  /** JSON (SERVED_STIMULI_SQL) */
  stimuli: string;
}

/**
 * Link parameters that name a person (not a study, session or assignment): a session started with
 * one of them, on a complete link, is resumed by that link in any browser (resumeClaim).
 */
export const PARTICIPANT_PARAMETERS = ['PROLIFIC_PID', 'workerId', 'participantId', 'PARTICIPANT_ID'];

/** The participant id a link carries: the first of the study's recorded parameters that names a person. */
export function participantOf(linkParameters: string[], kept: Record<string, string>): string | null {
  const key = linkParameters.find((p) => PARTICIPANT_PARAMETERS.includes(p) && kept[p]);
  return key ? kept[key] : null;
}

/**
 * Values a platform puts in a link to mean "nothing here": MTurk's preview of a HIT carries
 * `assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE`, and an unsubstituted Prolific placeholder stays
 * `{{%SESSION_ID%}}`. A link with one of them is not a complete link.
 */
const PLACEHOLDER_VALUE = /^(?:ASSIGNMENT_ID_NOT_AVAILABLE|\{\{%.*%\}\})$/;

/**
 * The link a session may be resumed by, or null: only a link carrying every parameter the study
 * records, each with a real value, and naming a participant. Its values, in the study's order,
 * are the claim; a start resumes a session only when its claim equals that session's
 * (docs/security.md, "One session per participant").
 */
export function resumeClaim(linkParameters: string[], kept: Record<string, string>): Record<string, string> | null {
  if (participantOf(linkParameters, kept) === null) return null;
  if (!linkParameters.every((p) => kept[p] && !PLACEHOLDER_VALUE.test(kept[p]))) return null;
  return Object.fromEntries(linkParameters.map((p) => [p, kept[p]]));
}

const sameClaim = (claim: Record<string, string>, external: Record<string, string>) =>
  Object.keys(external).length === Object.keys(claim).length && Object.entries(claim).every(([key, value]) => external[key] === value);

/**
 * A keyed hash of the client's network (clientNetwork: an IPv4 address or an IPv6 /64), for the
 * per-address cap on held trials. The address itself is not kept.
 */
function clientKey(secret: string, address: string): string {
  return createHmac('sha256', secret).update(`client\0${clientNetwork(address).replace(/::\/64$/, '')}`).digest('hex').slice(0, 32);
}

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * What a listener stopped part-way (the study paused or closed) is given: the finisher's code only
 * when the study says so (`completion.whenStopped: finisher`), a code of its own, or none.
 */
function stoppedWay(study: StudyRow, finisher: { code: string | null; redirectUrl: string | null }): { code: string | null; redirectUrl: string | null } {
  const rule = study.definition.completion.whenStopped;
  if (rule === 'finisher') return finisher;
  if (rule === 'return') return { code: null, redirectUrl: null };
  return { code: rule.code, redirectUrl: rule.redirectUrl };
}

export function sessionRepository(db: Db) {
  const insertListener = db.prepare(
    `INSERT INTO listeners (id, study_id, token_hash, external, user_agent, created_at, participant, client_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // A session's first token is on its row; tokens of the browsers it was resumed in are in session_tokens.
  const byTokenHash = db.prepare<
    [string, string],
    { id: string; study_id: string; completion_code: string | null; left_at: string | null }
  >(`SELECT id, study_id, completion_code, left_at FROM listeners
      WHERE id = COALESCE((SELECT listener_id FROM session_tokens WHERE token_hash = ?),
                          (SELECT id FROM listeners WHERE token_hash = ?))`);
  const byParticipant = db.prepare<[string, string], { id: string; external: string }>(
    'SELECT id, external FROM listeners WHERE study_id = ? AND participant = ? ORDER BY created_at',
  );
  const insertToken = db.prepare('INSERT INTO session_tokens (token_hash, listener_id, created_at) VALUES (?, ?, ?)');
  const keySecret = installationSecret(db);
  // Keyed by the token itself, which the request carries anyway: a hit costs neither the sha256
  // nor the lookup. Only tokens that named a listener are kept, so guessing cannot fill it.
  const remembered = new Map<string, SessionListener>();
  // The next unanswered trials only: walks the listener's assignments in position order (primary
  // key) and stops after the current one and its upcoming ones, instead of reading every trial.
  const openTrials = db.prepare<[string, number], TrialRow>(`
    SELECT a.position, a.slot_order, i.kind, i.trial_kind, ${SERVED_STIMULI_SQL} AS stimuli
    FROM assignments a
    JOIN items i ON i.id = a.item_id
    WHERE a.listener_id = ?
      AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
      AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)
    ORDER BY a.position
    LIMIT ?`);
  const openPositions = db.prepare<[string, number], number>(`
    SELECT a.position FROM assignments a
    WHERE a.listener_id = ?
      AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
      AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)
    ORDER BY a.position
    LIMIT ?`).pluck();
  // Done: answered or skipped as unplayable (a reported problem); voted: answers alone.
  const progress = db.prepare<[string, string, string], { total: number; voted: number; skipped: number }>(`
    SELECT (SELECT count(*) FROM assignments WHERE listener_id = ?) AS total,
           (SELECT count(*) FROM votes WHERE listener_id = ?) AS voted,
           (SELECT count(*) FROM trial_problems WHERE listener_id = ?) AS skipped`);
  // Exact targets: the listener's unanswered scored trials whose item already has the study's
  // target of votes (others filled it while this listener was away, or two sessions held its last
  // place). They are given back: removed from the session, which moves on (studies/design.ts).
  const completeOpen = db.prepare<[string, number], number>(`
    SELECT a.position FROM assignments a JOIN items i ON i.id = a.item_id
     WHERE a.listener_id = ? AND i.kind = i.trial_kind
       AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
       AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)
       AND (SELECT count(*) FROM votes w WHERE w.item_id = a.item_id) >= ?`).pluck();
  const removeAssignment = db.prepare<[string, number]>('DELETE FROM assignments WHERE listener_id = ? AND position = ?');
  const openLeft = db.prepare<[string], number>(`
    SELECT count(*) FROM assignments a WHERE a.listener_id = ?
       AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
       AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)`).pluck();
  const completeListener = db.prepare<[string, string | null, string]>('UPDATE listeners SET completed_at = ?, completion_code = ? WHERE id = ? AND completed_at IS NULL');
  // IMMEDIATE: the votes deciding what is complete are written by another connection (the vote writer).
  const giveBack = db.transaction((listenerId: string, target: number, code: string | null) => {
    const positions = completeOpen.all(listenerId, target);
    for (const position of positions) removeAssignment.run(listenerId, position);
    // The given-back trials were the last open ones: the session is finished.
    if (positions.length > 0 && openLeft.get(listenerId) === 0) completeListener.run(new Date().toISOString(), code, listenerId);
  });
  const leave = db.prepare<[string, string]>('UPDATE listeners SET left_at = ? WHERE id = ? AND left_at IS NULL AND completed_at IS NULL');
  const leftAt = db.prepare<[string], string | null>('SELECT left_at FROM listeners WHERE id = ?').pluck();
  const screening = screeningRepository(db);
  const saveComments = db.prepare('UPDATE listeners SET comments = ? WHERE id = ?');
  const answeredParts = db.prepare<[string], { before: string | null; after: string | null }>(
    'SELECT answered_before AS before, answered_after AS after FROM listeners WHERE id = ?',
  );
  const clearAnswers = db.prepare<[string, string]>('DELETE FROM questionnaire_answers WHERE listener_id = ? AND question = ?');
  const insertAnswer = db.prepare<[string, string, string, string]>(
    'INSERT INTO questionnaire_answers (listener_id, question, answer, answered_at) VALUES (?, ?, ?, ?)',
  );
  const markPart = {
    before: db.prepare<[string, string]>('UPDATE listeners SET answered_before = ? WHERE id = ?'),
    after: db.prepare<[string, string]>('UPDATE listeners SET answered_after = ? WHERE id = ?'),
  };
  // One part's answers replace what that part had: the questions of the part are cleared, the given ones written.
  const saveAnswers = db.transaction((listenerId: string, when: 'before' | 'after', ids: string[], answers: Record<string, AnswerValue>) => {
    const now = new Date().toISOString();
    for (const id of ids) clearAnswers.run(listenerId, id);
    for (const [id, value] of Object.entries(answers)) insertAnswer.run(listenerId, id, JSON.stringify(value), now);
    markPart[when].run(now, listenerId);
  });

  const createListener = db.transaction((study: StudyRow, external: Record<string, string>, userAgent: string | null, clientAddress: string) => {
    const token = randomBytes(32).toString('base64url');
    const now = new Date().toISOString();
    // Only what the study asked to record, in the study's order: a link may carry anything.
    const kept = Object.fromEntries(
      study.definition.linkParameters.filter((key) => Object.hasOwn(external, key)).map((key) => [key, external[key]]),
    );
    const participant = participantOf(study.definition.linkParameters, kept);
    // The same participant again, in any browser, on the same submission: their one session goes
    // on, under a new token for this browser. Any other start (an incomplete link, another
    // submission id) is a session of its own, so it can neither take over nor lock out another.
    const claim = resumeClaim(study.definition.linkParameters, kept);
    const earlier = claim === null ? undefined : byParticipant.all(study.id, participant!).find((row) => sameClaim(claim, JSON.parse(row.external) as Record<string, string>));
    if (earlier) {
      insertToken.run(hashSessionToken(token), earlier.id, now);
      return { token, listenerId: earlier.id, resumed: true };
    }
    const listenerId = randomUUID();
    insertListener.run(
      listenerId, study.id, hashSessionToken(token), JSON.stringify(kept), userAgent?.slice(0, 512) ?? null, now,
      participant, clientKey(keySecret, clientAddress),
    );
    assignTrials(db, study.id, listenerId);
    return { token, listenerId, resumed: false };
  });

  return {
    /**
     * A new session, or the participant's existing one (`resumed`). IMMEDIATE: votes are written
     * by another connection (the vote writer) of the same file, and two browsers of one
     * participant starting at once must not both create a session.
     */
    create: (study: StudyRow, external: Record<string, string>, userAgent: string | null, clientAddress: string) =>
      createListener.immediate(study, external, userAgent, clientAddress),
    /** The listener and study a token names, from memory after the first lookup (see SessionListener). */
    sessionListener(token: string): SessionListener | undefined {
      const known = remembered.get(token);
      if (known) return known;
      const hash = hashSessionToken(token);
      const row = byTokenHash.get(hash, hash);
      if (!row) return undefined;
      if (remembered.size >= REMEMBERED_TOKENS) remembered.delete(remembered.keys().next().value!);
      const named = { id: row.id, studyId: row.study_id };
      remembered.set(token, named);
      return named;
    },
    byToken(token: string): ListenerRow | undefined {
      const hash = hashSessionToken(token);
      const row = byTokenHash.get(hash, hash);
      return (
        row && {
          id: row.id,
          studyId: row.study_id,
          completionCode: row.completion_code,
          leftAt: row.left_at,
        }
      );
    },
    /**
     * Where a listener stands: the first open trial, the next few after it, or the completion. A
     * paused or closed study offers no trials, nor does a session the listener left; a listener
     * with saved answers gets the study's completion path there too (studies/README.md, "Pausing
     * and closing", "Leaving").
     */
    state(listener: ListenerRow, study: StudyRow): SessionState {
      const status = study.status === 'open' || study.status === 'closed' ? study.status : 'paused';
      const left = listener.leftAt !== null;
      const serving = status === 'open' && !left;
      const target = voteTarget(study.definition.design);
      if (target !== null && serving && completeOpen.all(listener.id, target).length > 0) {
        giveBack.immediate(listener.id, target, study.definition.completion.code);
      }
      // An adaptive study serves one trial ahead, so each choice reads the latest votes; its
      // provisional positions get their items now, before they are read (studies/adaptive/assign.ts).
      const ahead = study.definition.design.kind === 'adaptive' ? ADAPTIVE_UPCOMING_TRIALS : UPCOMING_TRIALS;
      if (serving && study.definition.design.kind === 'adaptive') {
        chooseServed(db, study.id, listener.id, openPositions.all(listener.id, 1 + ahead));
      }
      const [trial, ...upcoming] = serving ? openTrials.all(listener.id, 1 + ahead).map((row) => trialKinds[row.trial_kind].trial({ kind: row.kind, stimuli: servedStimuli(row.stimuli) }, row.position, row.slot_order === null ? null : (JSON.parse(row.slot_order) as string[]), study.definition.trial)) : [];
      const { total, voted, skipped } = progress.get(listener.id, listener.id, listener.id)!;
      const done = voted + skipped;
      const finished = total > 0 && done >= total;
      const way = {
        code: listener.completionCode ?? study.definition.completion.code,
        redirectUrl: study.definition.completion.redirectUrl,
      };
      const answered = answeredParts.get(listener.id)!;
      const asks = (when: 'before' | 'after') => study.definition.questions.some((q) => q.when === when);
      return {
        study: study.id,
        progress: { done, total },
        questionsDue: { before: asks('before') && answered.before === null, after: asks('after') && answered.after === null },
        trial: trial ?? null,
        upcoming,
        completion: finished ? way : null,
        status,
        left: left && !finished,
        stopped: finished || serving ? null : voted > 0 ? stoppedWay(study, way) : { code: null, redirectUrl: null },
        screening: screening.standing(listener.id),
      };
    },
    /**
     * The listener leaves the study part-way: their session takes no more votes and its unanswered
     * trials stop holding items at once, so other listeners get them (studies/README.md, "Leaving").
     * Leaving again, or after finishing, changes nothing.
     */
    leave(listener: ListenerRow): ListenerRow {
      leave.run(new Date().toISOString(), listener.id);
      return { ...listener, leftAt: leftAt.get(listener.id) ?? null };
    },
    /**
     * A finished listener's end-of-study comments; sending again replaces them (the box stays
     * editable on the completion screen).
     */
    saveComments(listener: ListenerRow, text: string): void {
      const { total, voted, skipped } = progress.get(listener.id, listener.id, listener.id)!;
      if (total === 0 || voted + skipped < total) throw conflict('not_finished', 'comments are asked for once every trial is answered');
      saveComments.run(text, listener.id);
    },
    /**
     * The listener's answers to the study's questions of one part (contract/questionnaire.ts checks
     * them against the questions first); sending a part again replaces its answers. The questions
     * after the trials are asked once every trial is answered.
     */
    saveAnswers(listener: ListenerRow, questions: readonly Question[], when: 'before' | 'after', answers: Record<string, AnswerValue>): void {
      if (when === 'after') {
        const { total, voted, skipped } = progress.get(listener.id, listener.id, listener.id)!;
        if (total === 0 || voted + skipped < total) throw conflict('not_finished', 'the questions after the trials are asked once every trial is answered');
      }
      saveAnswers(listener.id, when, questions.filter((q) => q.when === when).map((q) => q.id), answers);
    },
  };
}
export type SessionRepository = ReturnType<typeof sessionRepository>;
