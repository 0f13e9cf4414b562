/**
 * Headphone checks issued and scored by the server. An attempt is a sequence of rounds the server
 * draws (which of the three intervals is the target, per round) and keeps; the browser receives
 * each round only as the sound it plays (GET …/screening/<kind>/<attempt>/<round>) and sends back
 * the intervals the listener picked; the server counts the matches and decides pass or fail. A
 * bare "passed" from the browser is not a thing the API takes (docs/security.md, "Headphone checks").
 */
import { randomInt } from 'node:crypto';
import type { Db } from '../../db/open';
import { SCREENING_RULES, type HEADPHONE_CHECKS } from '../../contract/constants';
import type { ScreeningAttempt, ScreeningBody, ScreeningStartBody } from '../../contract/listener';
import { antiphaseTrial, calibrationTone, hugginsTrial, shuffled, stereoWav, type AntiphaseTone } from '../../audio-manifest/headphone';
import { conflict, invalidRequest } from '../errors';

type Check = (typeof HEADPHONE_CHECKS)[number];

/** One round as the server keeps it: the target interval (0-based) and, for antiphase, the order of the three tones. */
interface Round {
  target: number;
  order?: AntiphaseTone[];
}

/** The rate the stimuli are rendered at: both checks' sounds lie far below its Nyquist frequency, and a round stays ~250 kB. */
const STIMULUS_RATE = 16_000;

/** listeners.screening: one check's outcome, or both checks' under `results`. */
interface StoredScreening {
  kind: string;
  passed: boolean;
  recordedAt: string;
  results?: StoredScreening[];
}

/** Uniform in [0, 1) from the operating system's generator: a listener cannot predict the next round from earlier ones. */
const unpredictable = () => randomInt(2 ** 47) / 2 ** 47;

function drawRounds(kind: Check): Round[] {
  return Array.from({ length: SCREENING_RULES[kind].trials }, () => {
    if (kind === 'huggins') return { target: randomInt(3) };
    const order = shuffled<AntiphaseTone>(['standard', 'quiet', 'antiphase'], unpredictable);
    return { target: order.indexOf('quiet'), order };
  });
}

const recorded = (stored: string | null): StoredScreening[] =>
  stored === null ? [] : ((p: StoredScreening) => p.results ?? [p])(JSON.parse(stored) as StoredScreening);

export type ScreeningOutcome = 'passed' | 'retry' | 'failed';

export function screeningRepository(db: Db) {
  // The listener's stored result, whether they voted, and whether another session of the same
  // participant in the study failed a check (a fresh browser is not a fresh try).
  const standing = db.prepare<[string], { screening: string | null; voted: 0 | 1; failedElsewhere: 0 | 1 }>(`
    SELECT l.screening, EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = l.id) AS voted,
           (l.participant IS NOT NULL AND EXISTS (
              SELECT 1 FROM listeners o WHERE o.study_id = l.study_id AND o.participant = l.participant AND o.id <> l.id
                AND json_extract(o.screening, '$.passed') = 0)) AS failedElsewhere
    FROM listeners l WHERE l.id = ?`);
  const attemptsOf = db.prepare<[string, string], { attempt: number; rounds: string; correct: number | null; answered: 0 | 1 }>(
    'SELECT attempt, rounds, correct, answers IS NOT NULL AS answered FROM screening_attempts WHERE listener_id = ? AND kind = ? ORDER BY attempt',
  );
  const attemptsBegun = db.prepare<[string], { kind: Check; n: number }>('SELECT kind, count(*) AS n FROM screening_attempts WHERE listener_id = ? GROUP BY kind');
  const insertAttempt = db.prepare('INSERT INTO screening_attempts (listener_id, kind, attempt, rounds, issued_at) VALUES (?, ?, ?, ?, ?)');
  const scoreAttempt = db.prepare('UPDATE screening_attempts SET answers = ?, correct = ?, answered_at = ? WHERE listener_id = ? AND kind = ? AND attempt = ?');
  const saveScreening = db.prepare('UPDATE listeners SET screening = ? WHERE id = ?');
  const openRound = db.prepare<[string, string, number], string>(
    'SELECT rounds FROM screening_attempts WHERE listener_id = ? AND kind = ? AND attempt = ? AND answers IS NULL',
  ).pluck();

  /** Why no (further) attempt at this check can be begun or answered, or null. */
  function refusal(listenerId: string, kind: Check): string | null {
    const { screening, voted, failedElsewhere } = standing.get(listenerId)!;
    if (recorded(screening).some((r) => r.kind === kind)) return `the ${kind} check is already recorded and cannot change`;
    if (failedElsewhere) return "this participant's headphone check is already recorded as not passed";
    if (voted) return 'the headphone check cannot change after the first answer';
    return null;
  }

  /** Writes one check's final outcome; a study asking for both stores both, passed only if each passed. */
  function record(listenerId: string, result: Omit<StoredScreening, 'recordedAt'> & Record<string, unknown>): void {
    const previous = recorded(standing.get(listenerId)!.screening);
    const now: StoredScreening = { ...result, recordedAt: new Date().toISOString() };
    const results = [...previous, now];
    const value = results.length === 1 ? now : { kind: 'both', passed: results.every((r) => r.passed), results, recordedAt: now.recordedAt };
    saveScreening.run(JSON.stringify(value), listenerId);
  }

  const device = (body: ScreeningStartBody) => ({ userAgent: body.userAgent, audioOutput: body.audioOutput });

  return {
    /** SessionState.screening: the checks recorded, and whether this participant failed one (here or in another session). */
    standing(listenerId: string): { done: Check[]; usedUp: Check[]; failed: boolean } {
      const { screening, failedElsewhere } = standing.get(listenerId)!;
      const results = recorded(screening);
      const done = results.map((r) => r.kind).filter((k): k is Check => k === 'antiphase' || k === 'huggins');
      const begun = new Map(attemptsBegun.all(listenerId).map((r) => [r.kind, r.n]));
      return {
        done,
        usedUp: (['antiphase', 'huggins'] as const).filter((k) => !done.includes(k) && (begun.get(k) ?? 0) >= SCREENING_RULES[k].attempts),
        failed: failedElsewhere === 1 || results.some((r) => !r.passed),
      };
    },
    /**
     * A new attempt at the check: its rounds drawn and kept here, the browser told only where each
     * round's sound is. An attempt begun and never answered (a reload) counts: once every attempt
     * was begun, the check is recorded as not passed and `usedUp` is returned instead.
     */
    begin: db
      .transaction((listenerId: string, body: ScreeningStartBody): ScreeningAttempt | { usedUp: true } => {
        const why = refusal(listenerId, body.kind);
        if (why) throw conflict('screening_recorded', why, 'kind');
        const rules = SCREENING_RULES[body.kind];
        const earlier = attemptsOf.all(listenerId, body.kind);
        if (earlier.length >= rules.attempts) {
          const best = Math.max(0, ...earlier.map((a) => a.correct ?? 0));
          record(listenerId, { kind: body.kind, passed: false, correct: best, trials: rules.trials, attempts: earlier.length, ...device(body) });
          return { usedUp: true };
        }
        const attempt = earlier.length + 1;
        insertAttempt.run(listenerId, body.kind, attempt, JSON.stringify(drawRounds(body.kind)), new Date().toISOString());
        return {
          kind: body.kind,
          attempt,
          attempts: rules.attempts,
          rounds: Array.from({ length: rules.trials }, (_, i) => ({ audioUrl: `/api/session/screening/${body.kind}/${attempt}/${i + 1}` })),
        };
      })
      .immediate,
    /**
     * Scores the answers of the listener's open attempt against its rounds: passed (recorded),
     * retry (another attempt is allowed) or failed (recorded).
     */
    answer: db
      .transaction((listenerId: string, body: ScreeningBody): ScreeningOutcome => {
        const why = refusal(listenerId, body.kind);
        if (why) throw conflict('screening_recorded', why, 'kind');
        const rules = SCREENING_RULES[body.kind];
        const attempts = attemptsOf.all(listenerId, body.kind);
        const open = attempts.at(-1);
        if (!open || open.attempt !== body.attempt || open.answered) {
          throw conflict('screening_attempt_closed', `attempt ${body.attempt} of the ${body.kind} check is not the one open; begin a new attempt`, 'attempt');
        }
        const rounds = JSON.parse(open.rounds) as Round[];
        if (body.answers.length !== rounds.length) throw invalidRequest('answers', `this attempt has ${rounds.length} rounds; send one answer (0, 1 or 2) for each`);
        const correct = rounds.filter((r, i) => r.target === body.answers[i]).length;
        scoreAttempt.run(JSON.stringify(body.answers), correct, new Date().toISOString(), listenerId, body.kind, body.attempt);
        const passed = correct >= rules.passAt;
        if (!passed && body.attempt < rules.attempts) return 'retry';
        record(listenerId, { kind: body.kind, passed, correct, trials: rounds.length, attempts: body.attempt, ...device(body) });
        return passed ? 'passed' : 'failed';
      })
      .immediate,
    /** A round's sound as WAV, while its attempt is open (answered attempts are not served again). */
    roundSound(listenerId: string, kind: Check, attempt: number, round: number): Uint8Array | undefined {
      const rounds = openRound.get(listenerId, kind, attempt);
      const r = rounds === undefined ? undefined : (JSON.parse(rounds) as Round[])[round - 1];
      if (!r) return undefined;
      return stereoWav(kind === 'antiphase' ? antiphaseTrial(r.order!, STIMULUS_RATE) : hugginsTrial(r.target, STIMULUS_RATE), STIMULUS_RATE);
    },
    /** The volume-setting tone, the same for everyone. */
    calibration: (): Uint8Array => stereoWav(calibrationTone(STIMULUS_RATE), STIMULUS_RATE),
  };
}
export type ScreeningRepository = ReturnType<typeof screeningRepository>;
