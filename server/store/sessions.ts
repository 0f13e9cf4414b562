import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../db/open';
import { UPCOMING_TRIALS } from '../../contract/constants';
import { type SessionState } from '../../contract/listener';
import type { TrialKind } from '../../contract/trials';
import type { StudyRow } from './studies';
import { conflict } from '../errors';
import { assignTrials } from '../../studies/design';
import { installationSecret } from '../../audio-manifest/ids';
import { trialKinds, type ServedItem } from './trials';
import { screeningRepository } from './screening';

/** The listener a session token resolves to. */
export interface ListenerRow {
  id: string;
  studyId: string;
  completionCode: string | null;
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

interface TrialRow extends ServedItem {
  position: number;
  first: 'a' | 'b' | null;
  trial_kind: TrialKind;
}

/**
 * Link parameters that name a person (not a study, session or assignment): a session started with
 * one of them is that participant's only session in the study.
 */
export const PARTICIPANT_PARAMETERS = ['PROLIFIC_PID', 'workerId', 'participantId', 'PARTICIPANT_ID'];

/** The participant id a link carries: the first of the study's recorded parameters that names a person. */
export function participantOf(linkParameters: string[], kept: Record<string, string>): string | null {
  const key = linkParameters.find((p) => PARTICIPANT_PARAMETERS.includes(p) && kept[p]);
  return key ? kept[key] : null;
}

/** The participant id of an existing session came with other link parameters than this start. */
export class ParticipantMismatchError extends Error {}

/**
 * A keyed hash of the client's network, for the per-address cap on held trials: an IPv4 address,
 * or an IPv6 address's /64 (one household or phone gets a whole /64). The address itself is not kept.
 */
function clientKey(secret: string, address: string): string {
  const network = address.includes(':') && !address.startsWith('::ffff:') ? expandIpv6(address).slice(0, 4).join(':') : address.replace(/^::ffff:/, '');
  return createHmac('sha256', secret).update(`client\0${network}`).digest('hex').slice(0, 32);
}

function expandIpv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  return [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
}

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function sessionRepository(db: Db) {
  const insertListener = db.prepare(
    `INSERT INTO listeners (id, study_id, token_hash, external, user_agent, created_at, participant, client_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // A session's first token is on its row; tokens of the browsers it was resumed in are in session_tokens.
  const byTokenHash = db.prepare<
    [string, string],
    { id: string; study_id: string; completion_code: string | null }
  >(`SELECT id, study_id, completion_code FROM listeners
      WHERE id = COALESCE((SELECT listener_id FROM session_tokens WHERE token_hash = ?),
                          (SELECT id FROM listeners WHERE token_hash = ?))`);
  const byParticipant = db.prepare<[string, string], { id: string; external: string }>(
    'SELECT id, external FROM listeners WHERE study_id = ? AND participant = ? ORDER BY created_at LIMIT 1',
  );
  const insertToken = db.prepare('INSERT INTO session_tokens (token_hash, listener_id, created_at) VALUES (?, ?, ?)');
  const keySecret = installationSecret(db);
  // Keyed by the token itself, which the request carries anyway: a hit costs neither the sha256
  // nor the lookup. Only tokens that named a listener are kept, so guessing cannot fill it.
  const remembered = new Map<string, SessionListener>();
  // The next unanswered trials only: walks the listener's assignments in position order (primary
  // key) and stops after the current one and its upcoming ones, instead of reading every trial.
  const openTrials = db.prepare<[string, number], TrialRow>(`
    SELECT a.position, a.first, i.kind, i.trial_kind, s.id AS clip_id, s.duration, i.caption_a, i.caption_b
    FROM assignments a
    JOIN items i ON i.id = a.item_id
    JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id
    WHERE a.listener_id = ?
      AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
      AND NOT EXISTS (SELECT 1 FROM trial_problems p WHERE p.listener_id = a.listener_id AND p.position = a.position)
    ORDER BY a.position
    LIMIT ?`);
  // Done: answered or skipped as unplayable (a reported problem); voted: answers alone.
  const progress = db.prepare<[string, string, string], { total: number; voted: number; skipped: number }>(`
    SELECT (SELECT count(*) FROM assignments WHERE listener_id = ?) AS total,
           (SELECT count(*) FROM votes WHERE listener_id = ?) AS voted,
           (SELECT count(*) FROM trial_problems WHERE listener_id = ?) AS skipped`);
  const screening = screeningRepository(db);
  const saveComments = db.prepare('UPDATE listeners SET comments = ? WHERE id = ?');

  const createListener = db.transaction((study: StudyRow, external: Record<string, string>, userAgent: string | null, clientAddress: string) => {
    const token = randomBytes(32).toString('base64url');
    const now = new Date().toISOString();
    // Only what the study asked to record: a link may carry anything.
    const kept = Object.fromEntries(
      Object.entries(external).filter(([key]) => study.definition.linkParameters.includes(key)),
    );
    const participant = participantOf(study.definition.linkParameters, kept);
    const earlier = participant === null ? undefined : byParticipant.get(study.id, participant);
    if (earlier) {
      // The same participant again, in any browser: their one session goes on, under a new token
      // for this browser, if the link carries every parameter that session was started with.
      const recorded = JSON.parse(earlier.external) as Record<string, string>;
      if (!Object.entries(recorded).every(([key, value]) => kept[key] === value)) throw new ParticipantMismatchError();
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
        }
      );
    },
    /** Where a listener stands: the first unanswered trial, the next few after it, or the completion. */
    /**
     * Where a listener stands: the first open trial, the next few after it, or the completion. A
     * paused or closed study offers no trials; a listener with saved answers gets the study's
     * completion path there too (studies/README.md, "Pausing and closing").
     */
    state(listener: ListenerRow, study: StudyRow): SessionState {
      const status = study.status === 'open' || study.status === 'closed' ? study.status : 'paused';
      const [trial, ...upcoming] = status === 'open' ? openTrials.all(listener.id, 1 + UPCOMING_TRIALS).map((row) => trialKinds[row.trial_kind].trial(row, row.position, row.first)) : [];
      const { total, voted, skipped } = progress.get(listener.id, listener.id, listener.id)!;
      const done = voted + skipped;
      const finished = total > 0 && done >= total;
      const way = {
        code: listener.completionCode ?? study.definition.completion.code,
        redirectUrl: study.definition.completion.redirectUrl,
      };
      return {
        study: study.id,
        progress: { done, total },
        trial: trial ?? null,
        upcoming,
        completion: finished ? way : null,
        status,
        stopped: finished || status === 'open' ? null : voted > 0 ? way : { code: null, redirectUrl: null },
        screening: screening.standing(listener.id),
      };
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
  };
}
export type SessionRepository = ReturnType<typeof sessionRepository>;
