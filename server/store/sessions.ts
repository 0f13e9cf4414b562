import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/open';
import { UPCOMING_TRIALS, type ScreeningBody, type SessionState, type Trial } from '../contract';
import type { StudyRow } from './studies';
import { assignTrials } from '../../studies/design';

/** The listener a session token resolves to. */
export interface ListenerRow {
  id: string;
  studyId: string;
  screened: boolean;
  completionCode: string | null;
}

interface TrialRow {
  position: number;
  first: 'a' | 'b';
  kind: 'pair' | 'attention' | 'practice';
  clip_id: string;
  duration: number;
  caption_a: string;
  caption_b: string;
}

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function sessionRepository(db: Db) {
  const insertListener = db.prepare(
    'INSERT INTO listeners (id, study_id, token_hash, external, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byTokenHash = db.prepare<
    [string],
    { id: string; study_id: string; screening: string | null; completion_code: string | null }
  >('SELECT id, study_id, screening, completion_code FROM listeners WHERE token_hash = ?');
  // The next unanswered trials only: walks the listener's assignments in position order (primary
  // key) and stops after the current one and its upcoming ones, instead of reading every trial.
  const openTrials = db.prepare<[string, number], TrialRow>(`
    SELECT a.position, a.first, i.kind, s.id AS clip_id, s.duration, i.caption_a, i.caption_b
    FROM assignments a
    JOIN items i ON i.id = a.item_id
    JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id
    WHERE a.listener_id = ?
      AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.item_id = a.item_id)
    ORDER BY a.position
    LIMIT ?`);
  const progress = db.prepare<[string, string], { total: number; done: number }>(`
    SELECT (SELECT count(*) FROM assignments WHERE listener_id = ?) AS total,
           (SELECT count(*) FROM votes WHERE listener_id = ?) AS done`);
  const saveScreening = db.prepare('UPDATE listeners SET screening = ? WHERE id = ?');

  const createListener = db.transaction((study: StudyRow, external: Record<string, string>, userAgent: string | null) => {
    const token = randomBytes(32).toString('base64url');
    const listenerId = randomUUID();
    // Only what the study asked to record: a link may carry anything.
    const kept = Object.fromEntries(
      Object.entries(external).filter(([key]) => study.definition.linkParameters.includes(key)),
    );
    insertListener.run(
      listenerId,
      study.id,
      hashSessionToken(token),
      JSON.stringify(kept),
      userAgent?.slice(0, 512) ?? null,
      new Date().toISOString(),
    );
    assignTrials(db, study.id, listenerId);
    return { token, listenerId };
  });

  return {
    /** IMMEDIATE: votes are written by another connection (the vote writer) of the same file. */
    create: (study: StudyRow, external: Record<string, string>, userAgent: string | null) =>
      createListener.immediate(study, external, userAgent),
    byToken(token: string): ListenerRow | undefined {
      const row = byTokenHash.get(hashSessionToken(token));
      return (
        row && {
          id: row.id,
          studyId: row.study_id,
          screened: row.screening !== null,
          completionCode: row.completion_code,
        }
      );
    },
    /** Where a listener stands: the first unanswered trial, the next few after it, or the completion. */
    state(listener: ListenerRow, study: StudyRow): SessionState {
      const [trial, ...upcoming] = openTrials.all(listener.id, 1 + UPCOMING_TRIALS).map(toTrial);
      const { total, done } = progress.get(listener.id, listener.id)!;
      return {
        study: study.id,
        progress: { done, total },
        trial: trial ?? null,
        upcoming,
        completion: total > 0 && done >= total
          ? {
              code: listener.completionCode ?? study.definition.completion.code,
              redirectUrl: study.definition.completion.redirectUrl,
            }
          : null,
      };
    },
    recordScreening(listenerId: string, screening: ScreeningBody): void {
      saveScreening.run(JSON.stringify({ ...screening, recordedAt: new Date().toISOString() }), listenerId);
    },
  };
}
export type SessionRepository = ReturnType<typeof sessionRepository>;

/** Blinding happens here: a trial carries the served copy's opaque id and the caption texts, nothing else. */
export function toTrial(row: Pick<TrialRow, 'position' | 'first' | 'kind' | 'clip_id' | 'duration' | 'caption_a' | 'caption_b'>): Trial {
  const media = `/media/clips/${encodeURIComponent(row.clip_id)}`;
  return {
    position: row.position,
    kind: row.kind === 'practice' ? 'practice' : 'pair',
    clip: { id: row.clip_id, audioUrl: `${media}/audio`, peaksUrl: `${media}/peaks`, duration: row.duration },
    captions: row.first === 'a' ? [row.caption_a, row.caption_b] : [row.caption_b, row.caption_a],
  };
}
