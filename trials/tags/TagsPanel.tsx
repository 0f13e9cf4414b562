/** The dashboard's tags panel (client/reports/kind-panels.tsx): the report's `annotation` section, drawn as the HTML report draws it. */
import type { KindPanelProps } from '../../client/reports/kind-panels';
import { SavableFigure } from '../../client/reports/SavableFigure';
import { TagsFigure, type TagsFigureSection } from './figure';

export function TagsPanel({ section, study }: KindPanelProps<TagsFigureSection>) {
  return (
    <div data-testid="dash-tags">
      <h3>Tags: how listeners label the clips</h3>
      <TagsFigure
        section={section}
        frame={(svg, attribute) => <SavableFigure file={`${study}-tags-${attribute}`} what={`${attribute} confusion`}>{svg}</SavableFigure>}
      />
    </div>
  );
}
