/**
 * The HTML report's section of each registered kind (analysis/kinds/index.ts), by the kind's name:
 * its component lives in its folder (trials/<kind>/report-section.tsx). A new kind is one entry
 * here; a kind without one is shown as plain tables of its section (figures/SectionTable), so the
 * page never leaves a section out.
 */
import type { ComponentType, ReactElement } from 'react';
import { SectionTable } from '../../figures/SectionTable';
import type { Report } from '../report';
import { ANALYSIS_KINDS } from './index';
import { AbxReportSection } from '../../trials/abx/report-section';
import { CcrReportSection } from '../../trials/ccr/report-section';
import { MushraReportSection } from '../../trials/mushra/report-section';
import { TagsReportSection } from '../../trials/tags/report-section';
import { mushraFigures } from '../../trials/mushra/figure';
import { tagsFigures } from '../../trials/tags/figure';

/** What a kind's HTML section is drawn from: its own section, and the whole report (for its header or listeners). */
export interface KindSectionProps<Section = unknown> {
  section: Section;
  report: Report;
}

// `any`: each kind has its own section type.
export const KIND_SECTIONS: Record<string, ComponentType<KindSectionProps<any>>> = { abx: AbxReportSection, ccr: CcrReportSection, mushra: MushraReportSection, tags: TagsReportSection };

/** A kind's standalone figures for the paper bundle (analysis/paper/figures.tsx): file name → element, from its section. */
// `any`: each kind has its own section type.
export const KIND_FIGURES: Record<string, (section: any) => [string, ReactElement][]> = { mushra: mushraFigures, tags: tagsFigures };

/** Every registered kind's section the report has, in the registry's order. */
export function KindSections({ report }: { report: Report }) {
  const sections = report as unknown as Record<string, unknown>;
  return (
    <>
      {ANALYSIS_KINDS.filter((kind) => sections[kind.section] !== undefined).map((kind) => {
        const Section = KIND_SECTIONS[kind.kind];
        return Section ? <Section key={kind.kind} section={sections[kind.section]} report={report} /> : (
          <section key={kind.kind} data-section={kind.section}>
            <h2>{kind.section}</h2>
            <SectionTable value={sections[kind.section]} />
          </section>
        );
      })}
    </>
  );
}

/** Whether the report has a registered kind's section (then a study without votes is not a pair study). */
export const hasKindSections = (report: Report): boolean =>
  ANALYSIS_KINDS.some((kind) => (report as unknown as Record<string, unknown>)[kind.section] !== undefined);
