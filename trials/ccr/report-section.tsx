/** The HTML report's CCR section (analysis-spec §6.4), the same figure and table as the dashboard's panel (figure.tsx). */
import type { KindSectionProps } from '../../analysis/kinds/sections';
import { CcrFigure } from './figure';
import type { CcrSection } from './report';

export function CcrReportSection({ section }: KindSectionProps<CcrSection>) {
  return (
    <section data-section="ccr">
      <h2>CCR: comparison mean opinion score</h2>
      <CcrFigure section={section} />
    </section>
  );
}
