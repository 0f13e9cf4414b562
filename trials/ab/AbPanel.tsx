/** The dashboard's A/B panel (client/reports/kind-panels.tsx): the preference per system pair, as the HTML report draws it. */
import type { KindPanelProps } from '../../client/reports/kind-panels';
import { SavableFigure } from '../../client/reports/SavableFigure';
import { AbFigure, type AbItemVotes } from './figure';

/** The A/B items of the report (those that count ties), or undefined in a report without them. */
export function abPanelSection(report: Record<string, unknown>): AbItemVotes[] | undefined {
  const items = report.items as ReadonlyArray<AbItemVotes> | undefined;
  const ab = items?.filter((i) => i.ties !== undefined);
  return ab && ab.length > 0 ? ab : undefined;
}

export function AbPanel({ section, study }: KindPanelProps<AbItemVotes[]>) {
  return (
    <div data-testid="dash-ab">
      <h3>A/B preference per system pair</h3>
      <SavableFigure file={`${study}-ab-preference`} what="A/B preference">
        <AbFigure items={section} />
      </SavableFigure>
      <p className="muted small">Retained listeners, attention items left out; a tie takes no side and is counted apart.</p>
    </div>
  );
}
