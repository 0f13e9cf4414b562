/**
 * The paper bundle (`npm run analyze -- <bundle> --format paper --out <dir>`, issue 26): the
 * tables as booktabs LaTeX (tables.tex), every number of them unrounded (numbers.json), the
 * figures as SVG (figures/), the methods (methods.md) and the references (paper.bib). A pure
 * function of the report and the bundle: no clock, no environment, fixed order, so the same
 * bundle gives the same bytes.
 */
import type { Bundle } from '../bundle';
import type { Report } from '../report';
import type { AnalysisSettings, ReportHeader } from '../study-settings';
import { citedKeys, paperBib } from './bib';
import { paperFigures } from './figures';
import { renderTables, tableNumbers } from './latex';
import { paperMethods, type MethodsInput } from './methods';
import { paperTables } from './tables';

/** The bundle's files, by their path inside the output directory, in a fixed order. */
export function paperFiles(bundle: Bundle, report: Report, header: ReportHeader, settings: AnalysisSettings, options: MethodsInput['options']): [string, string][] {
  const tables = paperTables(report);
  const figures = paperFigures(report);
  const citations = citedKeys(report);
  const study = header.study ?? 'a study without study.json';
  return [
    ['tables.tex', renderTables(tables, `Tables of ${study}`)],
    ['numbers.json', `${JSON.stringify(tableNumbers(tables), null, 2)}\n`],
    ['methods.md', paperMethods({ bundle, report, header, settings, options, figures: figures.map(([name]) => name), citations })],
    ['paper.bib', paperBib(citations)],
    ...figures.map(([name, svg]): [string, string] => [`figures/${name}`, svg]),
  ];
}
