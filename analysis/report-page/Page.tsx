import { hasKindSections, KindSections } from '../kinds/sections';
import type { Report } from '../report';
import type { ReportHeader as Header } from '../study-settings';
import { ReportHeader } from './Header';
import { ListenersSection, QualitySection } from './Listeners';
import { ItemsSection, JudgeSections, RankingSection, ReliabilitySection, sideNoun } from '../../trials/pair/report-section';
import { RatingsSection } from '../../trials/rating/report-section';

const CSS = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:0 0 12px}h3{font-size:16px;margin:16px 0 4px}
section{background:#fff;border:1px solid #dfe3ea;border-radius:8px;padding:18px 22px;margin:18px 0;overflow-x:auto}
table{border-collapse:collapse;margin:10px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 12px;border-bottom:1px solid #e8ebf0;text-align:left}th{font-weight:600;color:#4a5568;font-size:13px}
td.n,th.n{text-align:right}td.n{white-space:nowrap}
details{margin:8px 0}summary{cursor:pointer;color:#1e40af}
.reading{background:#f0f5ff;border-left:4px solid #3d6fd8;padding:8px 12px;margin:10px 0 0}
.muted{color:#667085;font-size:13px}.warn{color:#a4330f}
figure{margin:6px 0}figcaption{font-size:13px}figcaption a{color:#1e40af}
svg{display:block;max-width:100%;height:auto}
.row{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:center}
@media print{section{break-inside:avoid}figcaption{display:none}}
`;

/**
 * The report as one page of components (React's server rendering escapes every name and caption
 * by construction). Sections belong to a kind: a rating report has no pair sections and a pair
 * report no rating sections; the listener sections serve both.
 */
export function ReportPage({ report, header }: { report: Report; header?: Header }) {
  const bt = report.bradley_terry;
  const ensemble = report.judges[0];
  // A rating study without pair votes has no pair sections.
  const pairs = report.reliability.votes > 0 || (!report.ratings && !hasKindSections(report));
  // A two-system study with no votes at all (no votes.csv, or only its header): nothing to compute from votes.
  const unvoted = pairs && report.reliability.votes === 0 && !report.reliability.ties?.votes;
  const voted = pairs && !unvoted;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${header?.title ? `${header.title} · ` : ''}Earmark study report`}</title>
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <main>
          <ReportHeader header={header} />
          <ListenersSection report={report} platformIds={header?.platformIds} />
          <QualitySection report={report} />
          {report.ratings && <RatingsSection ratings={report.ratings} />}
          {unvoted && (
            <section data-section="votes">
              <h2>Votes</h2>
              <p>{`This bundle has no votes of retained listeners (votes.csv is absent, has only its header, or holds attention checks only), so the sections computed from votes — reliability, the judges’ agreement and calibration, and the ranking — are left out.${ensemble ? '' : ' It has no judge scores either (judge_scores.csv is absent or empty).'}`}</p>
            </section>
          )}
          {voted && <ReliabilitySection report={report} />}
          {pairs && report.items && <ItemsSection items={report.items} side={sideNoun(report)} />}
          {voted && ensemble && <JudgeSections report={report} ensemble={ensemble} />}
          {voted && !ensemble && (
            <section data-section="judges">
              <h2>Judges</h2>
              <p>This bundle has no judge scores (judge_scores.csv is absent or empty), so the sections comparing a judge with the listeners are left out.</p>
            </section>
          )}
          {voted && bt.systems.length > 0 && <RankingSection report={report} />}
          {voted && bt.systems.length === 0 && bt.error && (
            <section data-section="ranking">
              <h2>Ranking from human votes</h2>
              <p className="warn">{bt.error}</p>
            </section>
          )}
          <KindSections report={report} />
        </main>
      </body>
    </html>
  );
}
