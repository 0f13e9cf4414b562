import { MosChart } from '../../figures/MosChart';
import type { RatingsReport } from './report';
import { alphaReading } from '../../analysis/report-page/reading';
import { ciText, Downloadable, Folded, Muted, num, Reading, Shown, Table } from '../../analysis/report-page/parts';

const CLIP_ROWS = 100;

/** The MOS section (analysis-spec §4): per condition (system), the spread of its scores, per clip. */
export function RatingsSection({ ratings: r }: { ratings: RatingsReport }) {
  const hasBoot = r.systems.some((s) => s.ci95_bootstrap !== undefined);
  const several = r.systems.length > 1;
  const top = r.systems.filter((s) => s.rank_ci === 1).map((s) => s.system);
  const alpha = r.reliability.krippendorff_alpha_interval;
  const ranking = !several
    ? r.systems.length === 1
      ? `One system was rated (${r.systems[0].system}), so there is nothing to rank. `
      : 'No system has an interval yet. '
    : top.length > 1
      ? `Listeners cannot separate ${top.join(', ')}: their intervals overlap, so they share rank 1 (rank_ci). `
      : top.length
        ? `${top[0]} is ahead of every other system beyond its interval. `
        : 'No system has an interval yet. ';
  const points = r.scale ? Array.from({ length: r.scale[1] - r.scale[0] + 1 }, (_, k) => r.scale![0] + k) : [];
  const clips = r.items.slice(0, CLIP_ROWS);
  return (
    <section data-section="ratings">
      <h2>How good is each system? (ratings, MOS)</h2>
      <Muted>{`${r.votes} ratings by ${r.listeners} retained listeners on a ${r.scale ? `${r.scale[0]}–${r.scale[1]}` : '—'} scale; attention items and excluded listeners left out.`}</Muted>
      {r.systems.length > 0 && (
        <Downloadable file="mos">
          <MosChart systems={r.systems} scale={r.scale} />
        </Downloadable>
      )}
      <h3>MOS per condition (system)</h3>
      <Table
        head={[...(several ? ['rank'] : []), 'system', 'n', 'MOS', 'SD', '95% CI (t)', ...(hasBoot ? ['95% CI (listener bootstrap)'] : []), ...(several ? ['rank_ci'] : [])]}
        rows={r.systems.map((s) => [
          ...(several ? [String(s.rank)] : []), s.system, String(s.n), num(s.mos, 2), num(s.sd, 2), ciText(s.ci95, (v) => num(v, 2)),
          ...(hasBoot ? [ciText(s.ci95_bootstrap, (v) => num(v, 2))] : []), ...(several ? [s.rank_ci === null ? '—' : String(s.rank_ci)] : []),
        ])}
        numericFrom={several ? 2 : 1}
        testId="mos"
      />
      <Table head={['measure', 'value']} rows={[
        ['Krippendorff’s α (interval)', num(r.reliability.krippendorff_alpha_interval)],
        ['Krippendorff’s α (ordinal)', num(r.reliability.krippendorff_alpha_ordinal)],
      ]} />
      <Reading>
        {ranking +
          `The t-interval treats every score as independent; ${hasBoot ? 'the listener bootstrap keeps each listener’s scores together, so it also reflects how listeners differ in their use of the scale — where the two differ, trust the bootstrap.' : 'run with --bootstrap to add an interval that resamples listeners, which also reflects how listeners differ in their use of the scale.'} ` +
          (alpha === null ? 'Krippendorff’s α could not be computed (fewer than two ratings per item, or one score only).' : alphaReading(alpha))}
      </Reading>
      {r.spread.length > 0 && (
        <>
          <h3>How spread are each system’s ratings?</h3>
          <Table
            head={['system', 'n', ...points.map((p) => `${p}`), 'median', 'IQR']}
            rows={r.spread.map((s) => [s.system, String(s.n), ...s.counts.map((c) => (s.n ? `${c} (${Math.round((100 * c) / s.n)}%)` : '0')), num(s.median, 1), ciText(s.iqr, (v) => num(v, 2))])}
            testId="spread"
          />
          <Reading>
            Each column is a point of the scale: how many ratings gave that score. The median and the interquartile range (the middle half of the ratings) show
            how far listeners agree on a system; a wide range with a mean in the middle can hide listeners who disagree, not a middling system.
          </Reading>
        </>
      )}
      {r.items.length > 0 && (
        <>
          <h3>MOS per clip</h3>
          <Folded summary={`The ${r.items.length} rated clips`} count={r.items.length}>
            <Table
              head={['item', 'utterance', 'system', 'n', 'MOS', 'SD', '95% CI (t)']}
              rows={clips.map((c) => [c.item_id, c.utterance_id, c.system, String(c.n), num(c.mos, 2), num(c.sd, 2), ciText(c.ci95, (v) => num(v, 2))])}
              numericFrom={3}
              testId="clips"
            />
            <Shown shown={clips.length} total={r.items.length} what="clips" />
          </Folded>
          <Reading>A clip whose MOS lies far from its system’s, or whose interval is very wide, is worth hearing again: the clip, not the system, may be what listeners judged.</Reading>
        </>
      )}
    </section>
  );
}
