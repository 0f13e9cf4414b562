/** The dashboard's CCR panel (client/reports/kind-panels.tsx): the report's `ccr` section, drawn as the HTML report draws it. */
import type { KindPanelProps } from '../../client/reports/kind-panels';
import { SavableFigure } from '../../client/reports/SavableFigure';
import { CcrFigure, type CcrFigureSection } from './figure';

export function CcrPanel({ section, study }: KindPanelProps<CcrFigureSection>) {
  return (
    <div data-testid="dash-ccr">
      <h3>CCR: comparison mean opinion score per system</h3>
      <SavableFigure file={`${study}-cmos`} what="CMOS">
        <CcrFigure section={section} />
      </SavableFigure>
    </div>
  );
}
