/**
 * The studio's per-listener table and the approvals file a researcher works through on the
 * recruiting platform. Who is excluded, and why, is the live report's answer (analysis/report.ts
 * with the study's rules, via liveReport): this module only joins it to the listeners' link
 * parameters, progress and screening and words the decision.
 *
 * The decision is fair by construction (docs/studio.md, "Approvals"): REJECT only on a ground the
 * study's `approvals.rejectFor` names (default: failed attention checks, and only when at least
 * two were failed); every other exclusion is "approve, excluded from analysis"; a participant the
 * headphone check sent away is returned (Prolific's screen-out), never rejected, and so is someone
 * who left with the page's "Leave the study" (failed checks before it still count); someone who only
 * opened the link has submitted nothing and is listed apart, after everyone else.
 */
import { csvLines } from '../analysis/csv';
import type { Db } from '../db/open';
import type { ParticipantRow } from '../contract/reports';
import type { RejectionGround } from '../contract/study-definition';
import { liveReport } from './live-report';
import { liveRepository, type ScreeningRecord } from './store/live';
import { studyRepository } from './store/studies';

/** The platform's id of a listener: Prolific's, else MTurk's worker id. */
const PARTICIPANT_PARAMETERS = ['PROLIFIC_PID', 'workerId'] as const;

/**
 * Prolific's rejection categories (its API's `rejection_category`) for each ground of rejection;
 * a ground without one is OTHER.
 */
const REJECTION_CATEGORY: Record<string, string> = {
  attention: 'FAILED_CHECK',
  fast: 'TOO_QUICKLY',
  listening: 'FAILED_INSTRUCTIONS',
  hidden: 'FAILED_INSTRUCTIONS',
  incomplete: 'NO_CODE',
};

/**
 * A rejection for attention needs at least this many failed checks, whatever the share: one slip
 * excludes from the analysis (when below minAttention) but is not a reason to withhold pay.
 */
export const MIN_FAILED_CHECKS_TO_REJECT = 2;

type Detail = Record<string, unknown>;

/** A figure as given, or rounded to `digits` places (a correlation to two). */
const num = (v: unknown, digits?: number): string => (typeof v === 'number' && digits !== undefined ? v.toFixed(digits) : String(v));

/** A check's score, "2 of 6 right", or both checks' when the study ran both. */
function screeningScore(s: ScreeningRecord): string {
  const one = (r: ScreeningRecord) => (r.correct !== undefined && r.trials !== undefined ? `${r.kind} ${r.correct} of ${r.trials} right` : `${r.kind} ${r.passed ? 'passed' : 'failed'}`);
  return (s.results ?? [s]).map(one).join(', ');
}

/** What was measured against what, for one failed rule, from the report's figures of that listener. */
function measured(reason: string, d: Detail, rule: string | undefined, screening: ScreeningRecord | undefined): string {
  switch (reason) {
    case 'attention':
      return `attention checks ${num(d.correct)}/${num(d.answered)} right (needs ${(rule ?? '').replace(/^attention checks /, '')})`;
    case 'fast':
      return `median response ${num(d.median_response_ms, 0)} ms < ${num(d.min_ms)} ms`;
    case 'listening':
      return `${num(d.listening_violations)} trials answered before the listening requirement was met > ${num(d.max)} allowed`;
    case 'hidden':
      return `tab hidden ${num(d.hidden_ms, 0)} ms in total > ${num(d.max_ms)} ms allowed`;
    case 'screening':
      return `headphone check failed${screening ? ` (${screeningScore(screening)})` : ''}`;
    case 'listener_correlation':
      return `r = ${num(d.pearson_r, 2)} < ${num(d.min_r)} over ${num(d.n)} items`;
    default:
      return `failed: ${rule ?? reason}`;
  }
}

/** The platform id of a listener's link parameters: Prolific's, else MTurk's; null for a plain link. */
function platformIdOf(external: Record<string, string>): string | null {
  return PARTICIPANT_PARAMETERS.map((p) => external[p]).find((v) => v !== undefined && v !== '') ?? null;
}

/** Each listener's platform id (listeners without one are absent): what a researcher sees beside a listener id. */
export function platformIds(db: Db, studyId: string): Map<string, string> {
  return new Map(liveRepository(db).participants(studyId).flatMap((l) => {
    const id = platformIdOf(l.external);
    return id === null ? [] : [[l.id, id] as const];
  }));
}

export function participantTable(db: Db, studyId: string): ParticipantRow[] {
  const live = liveRepository(db);
  const { report, rules } = liveReport(db, studyId);
  const rejectFor = new Set<RejectionGround>(studyRepository(db).get(studyId)?.definition.approvals.rejectFor ?? []);
  const excluded = new Map(report.listeners.excluded.map((e) => [e.listener_id, e]));
  const ruleText = new Map(rules.map((r) => [r.reason, r.description]));
  const attention = new Map(live.attention(studyId).map((a) => [a.listener_id, a]));
  const screening = live.screeningResults(studyId);

  return live.participants(studyId).map((l): ParticipantRow => {
    const exclusion = excluded.get(l.id);
    const excludedFor = exclusion?.reasons ?? [];
    const seen = attention.get(l.id);
    const checked = screening.get(l.id);
    const participant = platformIdOf(l.external);
    const status: ParticipantRow['status'] =
      l.completed_at !== null ? 'finished'
      : checked?.passed === false ? 'screened_out'
      : l.done === 0 && checked === undefined ? 'opened'
      : l.left_at !== null ? 'left'
      : 'unfinished';
    const why = (r: string) => measured(r, exclusion ?? {}, ruleText.get(r), checked);
    const oneSlip = seen !== undefined && seen.answered - seen.correct < MIN_FAILED_CHECKS_TO_REJECT;
    const grounds = excludedFor.filter((r) => rejectFor.has(r as RejectionGround) && !(r === 'attention' && oneSlip));
    const others = excludedFor.filter((r) => !grounds.includes(r));
    const notGrounds = (r: string) =>
      r === 'attention' && rejectFor.has('attention') ? `fewer than ${MIN_FAILED_CHECKS_TO_REJECT} failed checks: not grounds for rejection`
      : r === 'screening' ? 'the screening is never grounds for rejection'
      : 'not grounds for rejection in this study';
    const alsoExcluded = others.length > 0 ? `; excluded from analysis: ${others.map((r) => `${why(r)} (${notGrounds(r)})`).join('; ')}` : '';
    const unfinished = `did not finish: ${l.done} of ${l.total} trials; no completion code was shown`;

    let decision: ParticipantRow['decision'];
    let reason: string;
    let category = '';
    if (status === 'opened') {
      decision = 'NONE';
      reason = 'opened the link only: no check taken, no trial answered; nothing was submitted to approve or reject';
    } else if (status === 'screened_out') {
      decision = 'RETURN';
      reason = `screened out: ${why('screening')}; ask them to return the study (a screen-out, never a rejection)`;
    } else if (grounds.length > 0) {
      decision = 'REJECT';
      reason = grounds.map(why).join('; ') + alsoExcluded;
      category = REJECTION_CATEGORY[grounds[0]] ?? 'OTHER';
    } else if (status === 'left') {
      // Withdrawing is the participant's right: never a ground, whatever rejectFor says of the unfinished.
      decision = 'RETURN';
      reason = `left the study from its page after ${l.done} of ${l.total} trials; ask them to return the study (leaving is never grounds for rejection)${alsoExcluded}`;
    } else if (status === 'unfinished') {
      decision = rejectFor.has('incomplete') ? 'REJECT' : 'RETURN';
      category = decision === 'REJECT' ? REJECTION_CATEGORY.incomplete : '';
      reason = (decision === 'REJECT' ? unfinished : `${unfinished}; ask them to return the study (leaving part-way is not grounds for rejection in this study)`) + alsoExcluded;
    } else if (excludedFor.length > 0) {
      decision = 'APPROVE';
      reason = `completed ${l.done} of ${l.total} trials${alsoExcluded}`;
    } else {
      decision = 'APPROVE';
      reason = `completed ${l.done} of ${l.total} trials${seen ? `; attention checks ${seen.correct}/${seen.answered} right` : ''}`;
    }
    return {
      listener: l.id,
      participant,
      external: l.external,
      startedAt: l.created_at,
      completedAt: l.completed_at,
      progress: { done: l.done, total: l.total },
      attention: seen ? { correct: seen.correct, answered: seen.answered } : null,
      screening: checked === undefined ? null : checked.passed ? 'passed' : 'failed',
      excludedFor,
      completionCode: l.completion_code,
      status,
      inAnalysis: l.done > 0 && excludedFor.length === 0,
      decision,
      rejectionCategory: category || null,
      reason,
    };
  });
}

/**
 * participant_id, decision (APPROVE | REJECT | RETURN | NONE), reason, then the platform's
 * rejection category and our own listener id and completion code. Those who only opened the link
 * (NONE) come after everyone else. Listeners who came without a platform id cannot be approved or
 * rejected there and are left out (they stay in the studio's table).
 */
export function approvalsCsv(rows: readonly ParticipantRow[]): string {
  const header = ['participant_id', 'decision', 'reason', 'rejection_category', 'listener_id', 'completion_code'];
  const withId = rows.filter((r) => r.participant !== null);
  const lines = [...withId.filter((r) => r.status !== 'opened'), ...withId.filter((r) => r.status === 'opened')]
    .map((r) => [r.participant, r.decision, r.reason, r.rejectionCategory ?? '', r.listener, r.completionCode]);
  return [...csvLines(header, lines)].join('');
}
