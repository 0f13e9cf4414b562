/** The dashboard's MUSHRA panel (client/reports/kind-panels.tsx): the report's `mushra` section, drawn as the HTML report draws it. */
import type { KindPanelProps } from '../../client/reports/kind-panels';
import { SavableFigure } from '../../client/reports/SavableFigure';
import { MushraFigure, type MushraFigureSection } from './figure';

export function MushraPanel({ section, study }: KindPanelProps<MushraFigureSection>) {
  return (
    <div data-testid="dash-mushra">
      <h3>MUSHRA: scores against the hidden reference</h3>
      <SavableFigure file={`${study}-mushra`} what="MUSHRA">
        <MushraFigure section={section} />
      </SavableFigure>
    </div>
  );
}
