/** The HTML report's ABX section (analysis-spec §6.3), the same figure and table as the dashboard's panel (figure.tsx). */
import type { KindSectionProps } from '../../analysis/kinds/sections';
import { AbxFigure } from './figure';
import type { AbxSection } from './report';

export function AbxReportSection({ section }: KindSectionProps<AbxSection>) {
  return (
    <section data-section="abx">
      <h2>ABX: can listeners tell two systems apart?</h2>
      <AbxFigure section={section} />
      <p className="muted">Per system pair (the lesser name first), the retained listeners&apos; answers on the scored ABX items: the share naming X right against the 50% of guessing, and d′ under both of Macmillan &amp; Creelman&apos;s models (independent observations; differencing).</p>
    </section>
  );
}
