/**
 * The studio's per-listener table and the approve/reject file a researcher uploads to the
 * recruiting platform. Who is excluded, and why, is the live report's answer (analysis/report.ts
 * with the study's rules, via liveReport): this module only joins it to the listeners' link
 * parameters and progress and words the decision.
 */
import { csvLines } from '../analysis/csv';
import type { Db } from '../db/open';
import type { ParticipantRow } from '../contract/reports';
import { liveReport } from './live-report';
import { liveRepository } from './store/live';

/** The platform's id of a listener: Prolific's, else MTurk's worker id. */
const PARTICIPANT_PARAMETERS = ['PROLIFIC_PID', 'workerId'] as const;

/**
 * Prolific's rejection categories (its API's `rejection_category`) for each exclusion reason;
 * a reason without one is OTHER.
 */
const REJECTION_CATEGORY: Record<string, string> = {
  attention: 'FAILED_CHECK',
  fast: 'TOO_QUICKLY',
  listening: 'FAILED_INSTRUCTIONS',
  hidden: 'FAILED_INSTRUCTIONS',
  screening: 'FAILED_CHECK',
  incomplete: 'NO_CODE',
};

export function participantTable(db: Db, studyId: string): ParticipantRow[] {
  const live = liveRepository(db);
  const { report, rules } = liveReport(db, studyId);
  const excluded = new Map(report.listeners.excluded.map((e) => [e.listener_id, e]));
  const ruleText = new Map(rules.map((r) => [r.reason, r.description]));
  const attention = new Map(live.attention(studyId).map((a) => [a.listener_id, a]));
  const screening = live.screeningOutcomes(studyId);

  return live.participants(studyId).map((l) => {
    const exclusion = excluded.get(l.id);
    const excludedFor = exclusion?.reasons ?? [];
    const seen = attention.get(l.id);
    const participant = PARTICIPANT_PARAMETERS.map((p) => l.external[p]).find((v) => v !== undefined && v !== '') ?? null;
    const progress = { done: l.done, total: l.total };
    let decision: ParticipantRow['decision'] = 'APPROVE';
    let reason = `completed ${l.done} of ${l.total} trials${seen ? `; attention checks ${seen.correct}/${seen.answered} right` : ''}`;
    if (excludedFor.length > 0) {
      decision = 'REJECT';
      reason = excludedFor
        .map((r) => {
          const rule = ruleText.get(r) ?? r;
          return r === 'attention' && seen ? `attention checks ${seen.correct}/${seen.answered} right (needs ${rule.replace(/^attention checks /, '')})` : `failed: ${rule}`;
        })
        .join('; ');
    } else if (l.completed_at === null) {
      decision = 'REJECT';
      reason = `did not finish: ${l.done} of ${l.total} trials; no completion code was shown`;
    }
    return {
      listener: l.id,
      participant,
      external: l.external,
      startedAt: l.created_at,
      completedAt: l.completed_at,
      progress,
      attention: seen ? { correct: seen.correct, answered: seen.answered } : null,
      screening: screening.get(l.id) ?? null,
      excludedFor,
      completionCode: l.completion_code,
      decision,
      reason,
    };
  });
}

/** The category Prolific asks for with a rejection: from the first exclusion reason, or an unfinished session. */
function rejectionCategory(row: ParticipantRow): string {
  if (row.decision === 'APPROVE') return '';
  return REJECTION_CATEGORY[row.excludedFor[0] ?? 'incomplete'] ?? 'OTHER';
}

/**
 * participant_id, decision (APPROVE|REJECT), reason, then the platform's rejection category and
 * our own listener id and completion code. Listeners who came without a platform id cannot be
 * approved or rejected there and are left out (they stay in the studio's table).
 */
export function approvalsCsv(rows: readonly ParticipantRow[]): string {
  const header = ['participant_id', 'decision', 'reason', 'rejection_category', 'listener_id', 'completion_code'];
  const lines = rows
    .filter((r) => r.participant !== null)
    .map((r) => [r.participant, r.decision, r.reason, rejectionCategory(r), r.listener, r.completionCode]);
  return [...csvLines(header, lines)].join('');
}
