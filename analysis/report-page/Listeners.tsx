import type { ListenerQuality, Report } from '../report';
import { ciText, Muted, num, pct, Reading, Shown, Table } from './parts';

/** Who took part, who was excluded and why. */
export function ListenersSection({ report, platformIds: ids }: { report: Report; platformIds?: Readonly<Record<string, string>> }) {
  const l = report.listeners;
  const detail = (e: Report['listeners']['excluded'][number]) =>
    e.reason === 'attention'
      ? `${e.correct}/${e.answered}`
      : Object.entries(e).filter(([k]) => !['listener_id', 'reason', 'reasons'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', ');
  const byReason = Object.entries(l.excluded_by_reason).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  return (
    <section>
      <h2>Listeners</h2>
      <p>
        {`${l.total} listeners took part; `}<b>{l.retained}</b>{' were retained. Attention-check pass rate over all listeners: '}
        <b>{pct(l.attention_pass_rate)}</b>.
      </p>
      {l.excluded.length ? (
        <Table
          head={['listener', ...(ids ? ['platform id'] : []), 'reason(s)', 'detail']}
          rows={l.excluded.map((e) => [e.listener_id, ...(ids ? [ids[e.listener_id] ?? '—'] : []), e.reasons.join(', '), detail(e)])}
          numericFrom={ids ? 4 : 3}
        />
      ) : (
        <Muted>Nobody was excluded.</Muted>
      )}
      {Object.keys(l.not_run_by_reason).length > 0 && (
        <Muted>{`Checks that could not run (neither pass nor fail): ${Object.entries(l.not_run_by_reason).map(([k, v]) => `${k} ${v}`).join(', ')}.`}</Muted>
      )}
      {report.input && (
        <p className="warn">
          {`${report.input.skipped_rows} invalid input row(s) were skipped: ${Object.entries(report.input.skipped_by_reason).map(([k, v]) => `${k} ${v}`).join('; ')}.`}
        </p>
      )}
      <Reading>{`Excluded listeners are left out of everything below; counts by reason: ${byReason}.`}</Reading>
    </section>
  );
}

const QUALITY_ROWS = 50;

const FLAG_TEXT: Record<string, string> = {
  agreement_at_chance: 'agrees with the others’ majority no more than chance',
  uncorrelated_with_panel: 'ratings not correlated with the panel',
};

/** Flagged retained listeners first (the ones the rules let through), then the least in step. */
function order(a: ListenerQuality, b: ListenerQuality): number {
  const rank = (q: ListenerQuality) => (q.retained && q.flags.length ? 0 : q.retained ? 2 : 1);
  const score = (q: ListenerQuality) => q.majority_agreement ?? q.panel_r ?? Infinity;
  return rank(a) - rank(b) || score(a) - score(b) || a.listener_id.localeCompare(b.listener_id);
}

/**
 * The per-listener quality view: attention, response time and agreement with the others side by
 * side, so a listener who passes the attention checks and still answers at random stands out.
 */
export function QualitySection({ report }: { report: Report }) {
  const rows = [...report.listener_quality].sort(order);
  const pairs = rows.some((q) => q.majority_items !== undefined);
  const ratings = rows.some((q) => q.panel_n !== undefined);
  const shown = rows.slice(0, QUALITY_ROWS);
  const suspects = rows.filter((q) => q.retained && q.flags.length > 0);
  const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);
  const head = [
    'listener', 'status', 'answers', 'attention', 'median response',
    ...(pairs ? ['agreement with the others’ majority', '95% CI (Wilson)', 'items'] : []),
    ...(ratings ? ['r with the panel', '95% CI (Fisher z)', 'ratings'] : []),
    'flags',
  ];
  const body = shown.map((q) => [
    q.listener_id,
    q.retained ? 'retained' : `excluded: ${q.reasons.join(', ')}`,
    String(q.answers),
    q.attention_answered ? `${q.attention_correct}/${q.attention_answered}` : '—',
    seconds(q.median_response_ms),
    ...(pairs ? [pct(q.majority_agreement), ciText(q.majority_agreement_ci95), String(q.majority_items ?? 0)] : []),
    ...(ratings ? [num(q.panel_r), ciText(q.panel_r_ci95, (v) => num(v, 2)), String(q.panel_n ?? 0)] : []),
    q.flags.map((f) => FLAG_TEXT[f] ?? f).join('; '),
  ]);
  const describe = (q: ListenerQuality) => {
    const parts = [`${q.listener_id} (attention ${q.attention_answered ? `${q.attention_correct}/${q.attention_answered}` : 'not asked'}`];
    if (q.majority_agreement_ci95) parts.push(`, agreement ${pct(q.majority_agreement)} over ${q.majority_items} items ${ciText(q.majority_agreement_ci95)}`);
    if (q.panel_r_ci95) parts.push(`, r = ${num(q.panel_r, 2)} over ${q.panel_n} ratings ${ciText(q.panel_r_ci95, (v) => num(v, 2))}`);
    return `${parts.join('')})`;
  };
  return (
    <section data-section="listener-quality">
      <h2>How carefully did each listener answer?</h2>
      <Table head={head} rows={body} numericFrom={2} numericTo={head.length - 1} testId="listener-quality" />
      <Shown shown={shown.length} total={rows.length} what="listeners (flagged retained listeners first)" />
      <Reading>
        {(pairs ? 'Agreement compares each vote with the majority of the other retained listeners on the same item (50% is a coin flip). ' : '') +
          (ratings ? 'r compares each listener’s scores with the other listeners’ mean score of the same items (0 is no relation). ' : '') +
          'A flag means the interval reaches chance: the listener’s answers cannot be told apart from random ones. ' +
          (suspects.length
            ? `Retained but flagged: ${suspects.map(describe).join('; ')}. The exclusion rules let ${suspects.length === 1 ? 'this listener' : 'these listeners'} through; look at their answers before trusting them (a few answers give wide intervals, so a flag on a short session is weak evidence).`
            : 'No retained listener is flagged.')}
      </Reading>
    </section>
  );
}
