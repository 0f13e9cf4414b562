/** The HTML report's tags section `annotation` (analysis-spec §6.5), the same figures and tables as the dashboard's panel (figure.tsx). */
import type { KindSectionProps } from '../../analysis/kinds/sections';
import { TagsFigure } from './figure';
import type { AnnotationSection } from './report';

export function TagsReportSection({ section }: KindSectionProps<AnnotationSection>) {
  return (
    <section data-section="annotation">
      <h2>Tags: how listeners label the clips</h2>
      <TagsFigure section={section} />
      <p className="muted">Per attribute, the retained listeners&apos; answers on the scored items: their agreement (Krippendorff&apos;s α), each value&apos;s prevalence and α, and where the corpus labels the clips, the corpus label against the listeners&apos; majority (a value chosen by more than half of an item&apos;s answers; items without one are left out) and, for an attribute of one value, against Dawid–Skene&apos;s estimate, which weighs each listener by their estimated reliability.</p>
    </section>
  );
}
