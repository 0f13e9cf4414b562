/** The HTML report's MUSHRA section (analysis-spec §5.3), the same figure and tables as the dashboard's panel (figure.tsx). */
import type { KindSectionProps } from '../../analysis/kinds/sections';
import { MushraFigure } from './figure';
import type { MushraSection } from './report';

export function MushraReportSection({ section }: KindSectionProps<MushraSection>) {
  return (
    <section data-section="mushra">
      <h2>MUSHRA: scores against the hidden reference</h2>
      <MushraFigure section={section} />
      <p className="muted">Per stimulus, the retained listeners&apos; scores (0–100) on the scored MUSHRA pages: the hidden reference, the two low-pass anchors (3.5 kHz, 7 kHz) and each system under test (ITU-R BS.1534-3).</p>
    </section>
  );
}
