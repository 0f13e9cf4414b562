/**
 * The dashboard's panel of each trial kind the study has beyond the caption pair and the rating
 * (which the dashboard draws itself, from contract/reports.ts `Dashboard`). A kind's numbers are
 * its section of the report JSON (GET /api/reports/{study}, the live report = the offline one), so
 * the panels show what the HTML report shows. A kind may give its own panel,
 * trials/<kind>/<Name>Panel.tsx (client layer); a kind without one is shown as plain tables of its
 * section (figures/SectionTable), so no figure of it is hidden. A new kind is one entry here.
 */
import { useEffect, useState, type ComponentType } from 'react';
import type { ItemKind } from '../../contract/constants';
import { SectionTable } from '../../figures/SectionTable';
import { AbPanel, abPanelSection } from '../../trials/ab/AbPanel';
import { AbxPanel } from '../../trials/abx/AbxPanel';
import { CcrPanel } from '../../trials/ccr/CcrPanel';
import { MushraPanel } from '../../trials/mushra/MushraPanel';
import { TagsPanel } from '../../trials/tags/TagsPanel';
import { errorText, studio } from '../studio/api';

/** The report JSON, read by name (its types are the analysis layer's). */
export type ReportJson = Record<string, unknown>;

export interface KindPanelProps<Section = unknown> {
  section: Section;
  study: string;
}

interface KindPanel {
  /** the kind's section of the report, or undefined when the report has none (yet); default `report[kind]` */
  section?: (report: ReportJson) => unknown;
  // `any`: each kind has its own section type. Without one: plain tables of the section.
  Panel?: ComponentType<KindPanelProps<any>>;
}

export const KIND_PANELS: Partial<Record<ItemKind, KindPanel>> = {
  ab: { section: abPanelSection, Panel: AbPanel },
  abx: { Panel: AbxPanel },
  ccr: { Panel: CcrPanel },
  // The tags kind reports under the spec's name for its section (§6.5).
  tags: { section: (report) => report.annotation, Panel: TagsPanel },
  mushra: { Panel: MushraPanel },
};

/** Kinds and roles the dashboard shows itself (or that are no kind of trial), never a kind panel. */
const DASHBOARD_OWN: ReadonlySet<string> = new Set(['pair', 'rating', 'attention', 'practice']);

/**
 * The panels of the study's kinds (`kinds`: the kinds its items have, from the dashboard). The
 * report is fetched again when `votes` (the dashboard's count) changes, not on every poll.
 */
export function KindPanels({ study, kinds, votes }: { study: string; kinds: readonly ItemKind[]; votes: number }) {
  const shown = kinds.filter((k) => !DASHBOARD_OWN.has(k));
  const [report, setReport] = useState<ReportJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wanted = shown.length > 0;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    studio.report(study).then(
      (r) => live && (setReport(r), setError(null)),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [study, votes, wanted]);
  if (!wanted) return null;
  return (
    <div data-testid="dash-kinds">
      {error && <p className="notice">{error}</p>}
      {!report && !error && <p className="muted">Loading the report…</p>}
      {report &&
        shown.map((kind) => {
          const entry = KIND_PANELS[kind];
          const section = entry?.section ? entry.section(report) : report[kind];
          if (section === undefined) return null;
          return (
            <section key={kind} className="kind-panel" aria-label={`${kind} results`} data-kind-panel={kind}>
              {entry?.Panel ? <entry.Panel section={section} study={study} /> : (
                <>
                  <h3>{kind}</h3>
                  <SectionTable value={section} />
                </>
              )}
            </section>
          );
        })}
    </div>
  );
}
