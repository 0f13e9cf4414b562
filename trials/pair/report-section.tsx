import { BucketChart } from '../../figures/BucketChart';
import { CalibrationChart } from '../../figures/CalibrationChart';
import { StrengthChart } from '../../figures/StrengthChart';
import type { TieCounts } from '../../analysis/stats/tie-counts';
import type { JudgeReport, PairItemRow, Report } from '../../analysis/report';
import { alphaReading } from '../../analysis/report-page/reading';
import { ciText, Downloadable, Folded, Muted, num, pct, pValue, Reading, Shown, Table } from '../../analysis/report-page/parts';

const ITEM_ROWS = 100;

/** What a side of an item is: a caption (the caption-pair study) or a system's rendition (A/B, whose report has ties). */
export const sideNoun = (report: Report): string => (report.reliability.ties ? 'rendition' : 'caption');

export function ReliabilitySection({ report }: { report: Report }) {
  const r = report.reliability;
  const side = sideNoun(report);
  return (
    <section data-section="reliability">
      <h2>Do listeners agree? (reliability)</h2>
      <Table head={['measure', 'value']} rows={[
        ['items / votes analysed', `${r.items} / ${r.votes}`],
        ['Krippendorff’s α (nominal)', num(r.krippendorff_alpha)],
        ['Fleiss’ κ', r.fleiss_kappa === null ? '— (unequal votes per item)' : num(r.fleiss_kappa)],
        ['Brennan–Prediger κ (free-marginal; independent of the a/b coding)', num(r.brennan_prediger_kappa)],
        ['mean pairwise agreement (chance 50%)', pct(r.mean_pairwise_agreement)],
        ['items split / lopsided / unanimous', `${r.split} / ${r.lopsided} / ${r.unanimous}`],
      ]} />
      <Muted>{`Coding of α and Fleiss’ κ: ${r.coding}.`}</Muted>
      <Reading>
        {`${alphaReading(r.krippendorff_alpha)} Two listeners picked the same ${side} on ${pct(r.mean_pairwise_agreement)} of shared items on average. ${r.split} of ${r.items} items were split (the more popular ${side} got less than the split threshold of the votes).`}
      </Reading>
      {r.ties && <TiesTable ties={r.ties} counted={r.votes} />}
    </section>
  );
}

/** An A/B study's ties per system pair: counted here, left out of every figure of the report. */
function TiesTable({ ties, counted }: { ties: TieCounts; counted: number }) {
  const all = counted + ties.votes;
  return (
    <>
      <h3>Ties (no preference)</h3>
      <Table
        head={['system a', 'system b', 'ties', 'votes', 'share tied']}
        rows={ties.per_system_pair.map((p) => [p.system_a, p.system_b, String(p.ties), String(p.votes), pct(p.votes > 0 ? p.ties / p.votes : null)])}
        numericFrom={2}
        testId="ties"
      />
      <Reading>
        {`${ties.votes} of the ${all} votes of retained listeners on the A/B items were ties (no preference). A tie takes no side, so every figure of this report — agreement, the judges, calibration and the ranking — rests on the other ${counted} votes; a pair with many ties is one listeners found hard to tell apart.`}
      </Reading>
    </>
  );
}

/** Most split first: the items listeners disagree on are the ones to look at. */
function bySplit(a: PairItemRow, b: PairItemRow): number {
  return (a.majority_share ?? Infinity) - (b.majority_share ?? Infinity) || b.votes - a.votes || a.item_id.localeCompare(b.item_id);
}

export function ItemsSection({ items, side = 'caption' }: { items: PairItemRow[]; side?: string }) {
  const rows = [...items].sort(bySplit).slice(0, ITEM_ROWS);
  const tied = side === 'rendition';
  // An even split has no majority; in an A/B table "tie" is the listeners' answer, so it is not called one.
  const winner = (i: PairItemRow) => (i.majority === 'a' ? i.system_a : i.majority === 'b' ? i.system_b : i.votes ? (tied ? 'none (even)' : 'tie') : '—');
  const unvoted = items.filter((i) => i.votes === 0).length;
  return (
    <section data-section="items">
      <h2>How did listeners vote on each item?</h2>
      <Folded summary={`The ${items.length} ${side} pairs, most split first`} count={items.length}>
        <Table
          head={['item', 'utterance', 'system a', 'system b', 'votes', 'for a', 'for b', ...(tied ? ['ties'] : []), 'majority', 'majority share', 'class']}
          rows={rows.map((i) => [i.item_id, i.utterance_id, i.system_a, i.system_b, String(i.votes), String(i.votes_a), String(i.votes_b), ...(tied ? [String(i.ties ?? 0)] : []), winner(i), pct(i.majority_share), i.split ?? '—'])}
          numericFrom={4}
          numericTo={tied ? 8 : 7}
          testId="items"
        />
        <Shown shown={rows.length} total={items.length} what="items, most split first" />
      </Folded>
      <Reading>
        {`Votes of retained listeners on each ${side} pair${side === 'rendition' ? ' (ties left out)' : ''}; the majority is the ${side} chosen by more than half of them (a tie has none). An item is split when the majority share is below the split threshold, lopsided above it and unanimous at 100%.${unvoted ? ` ${unvoted} item(s) have no votes yet.` : ''}`}
      </Reading>
    </section>
  );
}

export function JudgeSections({ report, ensemble }: { report: Report; ensemble: JudgeReport }) {
  const hasBoot = report.judges.some((j) => j.bootstrap_ci95 !== undefined);
  const b = ensemble.buckets;
  const trend = b.filter((x) => x.agreement !== null);
  const c = ensemble.calibration;
  const side = sideNoun(report);
  return (
    <>
      <section data-section="judges">
        <h2>Does the judge prefer what the human majority prefers?</h2>
        <Table
          head={['judge', 'n', 'Δ = 0', 'agreement', '95% CI (Wilson)', ...(hasBoot ? ['95% CI (bootstrap)'] : []), 'Cohen’s κ', 'p (exact binomial)']}
          rows={report.judges.map((j) => [j.judge, String(j.n), String(j.n_delta_zero), pct(j.agreement), ciText(j.ci95), ...(hasBoot ? [ciText(j.bootstrap_ci95)] : []), num(j.cohen_kappa), pValue(j.p_value)])}
        />
        <Reading>
          {ensemble.agreement === null ? 'No item had both a human majority and a judge preference.' :
            `On the ${ensemble.n} items where listeners had a majority and the ensemble had a preference, the ensemble agreed with the majority on ${pct(ensemble.agreement)} (95% CI ${ciText(ensemble.ci95)}); ` +
            `${ensemble.p_value !== null && ensemble.p_value < 0.05 ? 'this is clearly above the 50% a coin flip would reach' : 'this is not distinguishable from a coin flip'} (p = ${pValue(ensemble.p_value)}). ` +
            `Items where the judge scored both ${side}s the same (Δ = 0) are not counted.`}
        </Reading>
      </section>
      <section data-section="buckets">
        <h2>Is the judge right more often when its score gap is larger?</h2>
        <div className="row">
          <Downloadable file="agreement-by-gap"><BucketChart buckets={b} /></Downloadable>
          <Table head={['bucket', '|Δ| range', 'n', 'agreement', '95% CI', 'p']}
            rows={b.map((x) => [`B${x.bucket}`, `${num(x.lo, 2)}–${num(x.hi, 2)}`, String(x.n), pct(x.agreement), ciText(x.ci95), pValue(x.p_value)])} numericFrom={2} />
        </div>
        <Reading>
          {trend.length >= 2 ? `Ensemble agreement goes from ${pct(trend[0].agreement)} in the smallest-gap bucket to ${pct(trend[trend.length - 1].agreement)} in the largest. Wide bars mean few items: compare buckets by their intervals, not their dots.` : 'Too few decided items to compare buckets.'}
        </Reading>
      </section>
      <section data-section="calibration">
        <h2>Calibration of the score gap (individual votes)</h2>
        <div className="row">
          {c.bins.length === 0 ? <Muted>No votes with judge scores.</Muted> : (
            <Downloadable file={`calibration-${ensemble.judge}`}><CalibrationChart judge={ensemble.judge} calibration={c} /></Downloadable>
          )}
          <Table head={['judge', 'votes', 'β0 (SE)', 'β1 (SE)', 'position bias σ(β0)']}
            rows={report.judges.map((j) => [j.judge, String(j.calibration.votes), `${num(j.calibration.beta0)} (${num(j.calibration.se_beta0)})`, `${num(j.calibration.beta1)} (${num(j.calibration.se_beta1)})`, pct(j.calibration.position_bias)])} />
        </div>
        <Reading>
          {c.beta1 === null ? 'The logistic model could not be fitted (no votes, or the outcome is perfectly separated).' :
            `Each circle is the share of votes for the ${side} ${side === 'caption' ? 'shown' : 'offered'} first, among votes whose ensemble gap (first minus second) falls in that bin; circle size shows how many votes. The curve is the fitted P = σ(β0 + β1·Δ). ` +
            `β1 = ${num(c.beta1)} ${c.beta1 - 1.96 * (c.se_beta1 ?? 0) > 0 ? 'is clearly positive: a larger gap makes listeners more likely to choose the judge’s favourite' : 'is not clearly positive: the gap carries little information about listeners’ choices'}. ` +
            `At a tie the first ${side} is chosen ${pct(c.position_bias)} of the time (50% = no position bias).`}
        </Reading>
      </section>
    </>
  );
}

/** How a judge's ranking compares with the listeners', in a sentence only where there is a ranking to compare. */
function rankingSentence(j: JudgeReport | undefined): string {
  if (!j || j.ranking.systems < 2) return '';
  if (j.ranking.systems === 2) return `With two systems scored by the ${j.judge}, a rank correlation can only be +1 or −1: ρ = ${num(j.ranking.spearman_rho)}.`;
  return `The ${j.judge}’s system ranking correlates with the human ranking at ρ = ${num(j.ranking.spearman_rho)} (τ-b = ${num(j.ranking.kendall_tau)}) over ${j.ranking.systems} systems; 1 would be identical order.`;
}

export function RankingSection({ report }: { report: Report }) {
  const bt = report.bradley_terry;
  const ensemble = report.judges[0];
  const top = bt.systems.filter((s) => s.rank_ci === 1).map((s) => s.system);
  const hasBoot = bt.systems.some((s) => s.bootstrap_ci95 !== undefined);
  const ranked = report.judges.filter((j) => j.ranking.systems >= 2);
  return (
    <section data-section="ranking">
      <h2>Does a ranking from human votes alone reproduce the judge’s ranking?</h2>
      <Muted>{`Bradley–Terry ${bt.method === 'map' ? `MAP estimate with ridge prior λ = ${bt.prior_lambda}` : 'maximum likelihood'} over ${bt.comparisons} comparisons; log-strengths sum to 0.`}</Muted>
      <Downloadable file="bradley-terry"><StrengthChart systems={bt.systems} judges={report.judges} /></Downloadable>
      <Table
        head={['rank', 'system', 'log-strength', 'SE', '95% CI', ...(hasBoot ? ['bootstrap 95% CI'] : []), 'rank_ci']}
        rows={bt.systems.map((s) => [String(s.rank), s.system, num(s.log_strength), num(s.se), ciText(s.ci95, (v) => num(v, 2)), ...(hasBoot ? [ciText(s.bootstrap_ci95, (v) => num(v, 2))] : []), String(s.rank_ci)])}
        numericFrom={2}
      />
      {ranked.length > 0 && (
        <Table head={['judge', 'systems', 'Spearman ρ', 'Kendall τ-b']}
          rows={ranked.map((j) => [j.judge, String(j.ranking.systems), num(j.ranking.spearman_rho), num(j.ranking.kendall_tau)])} />
      )}
      <Reading>
        {`${top.length > 1 ? `Listeners cannot separate ${top.join(', ')}: their intervals overlap, so they share rank 1 (rank_ci).` : `${top[0]} is ahead of every other system beyond its interval.`} ${rankingSentence(ensemble)}`.trim()}
      </Reading>
      {report.bootstrap && (
        <Muted>{`Bootstrap: ${report.bootstrap.resamples} resamples of listeners (seed ${report.bootstrap.seed}); the MLE did not exist in ${report.bootstrap.bt_mle_missing}. ${report.bootstrap.note ?? ''}`}</Muted>
      )}
    </section>
  );
}
