/** The dashboard's ABX panel (client/reports/kind-panels.tsx): the report's `abx` section, drawn as the HTML report draws it. */
import type { KindPanelProps } from '../../client/reports/kind-panels';
import { SavableFigure } from '../../client/reports/SavableFigure';
import { AbxFigure, type AbxFigureSection } from './figure';

export function AbxPanel({ section, study }: KindPanelProps<AbxFigureSection>) {
  return (
    <div data-testid="dash-abx">
      <h3>ABX: can listeners tell the systems apart?</h3>
      <SavableFigure file={`${study}-abx`} what="ABX">
        <AbxFigure section={section} />
      </SavableFigure>
    </div>
  );
}
