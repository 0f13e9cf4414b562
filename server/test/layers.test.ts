/**
 * The lint rule of eslint.config.js (run by `npm test`) refuses imports against the layers —
 * contract ← db ← audio-manifest ← studies ← server, client → contract, analysis alone — and lets the
 * allowed ones through, and keeps each file of a trial kind's folder (trials/<kind>/) in its layer.
 * Snippets are linted as if they sat in each (existing) folder — the resolver looks for the imported
 * file from there; nothing is written.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

describe('imports run one way', () => {
  it.each([
    ['studies/x.ts', "import { buildApp } from '../server/app';\nexport const app = buildApp;"],
    ['studies/templates/x.ts', "import type { VoteInput } from '../../server/store/votes';\nexport type V = VoteInput;"],
    ['audio-manifest/x.ts', "import { loadStudyDir } from '../studies/load';\nexport const load = loadStudyDir;"],
    ['db/x.ts', "export { migrations } from './migrations';\nexport { StudyId } from '../contract/common';"],
    ['contract/x.ts', "import type { Db } from '../db/open';\nexport type D = Db;"],
    ['analysis/x.ts', "import { openDatabase } from '../db/open';\nexport const open = openDatabase;"],
    ['client/x.tsx', "import { salientAttributes } from '../studies/attention';\nexport const A = () => <p>{String(salientAttributes)}</p>;"],
    ['client/lib/x.ts', "import type { Config } from '../../server/config';\nexport type C = Config;"],
  ])('refuses an upward import in %s', async (file, code) => {
    const errors = await boundaryErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Unexpected path/);
  });

  it.each([
    ['studies/x.ts', "import { StudyId } from '../contract/common';\nimport type { Db } from '../db/open';\nimport { clipId } from '../audio-manifest/ids';\nexport const all = [StudyId, clipId] as const;\nexport type D = Db;"],
    ['audio-manifest/x.ts', "import type { Db } from '../db/open';\nexport type D = Db;"],
    ['server/x.ts', "import { loadStudyDir } from '../studies/load';\nimport { analyze } from '../analysis/report';\nexport const both = [loadStudyDir, analyze];"],
    ['client/x.tsx', "import type { Trial } from '../contract/listener';\nexport const T = (p: { trial: Trial }) => <p>{p.trial.kind}</p>;"],
  ])('lets a downward import in %s through', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});

// A kind's folder keeps its layers apart (eslint.config.js, "A trial kind is a folder"): each file obeys the
// rule of the layer its name puts it in, and the registries import their own layer's files only.
describe('a trial kind is a folder of layers', () => {
  it.each([
    ['trials/pair/Other.tsx', "import { pair } from './server';\nexport const p = pair;"],
    ['trials/pair/Other.tsx', "import { planPairItems } from './plan';\nexport const p = planPairItems;"],
    ['trials/pair/Other.tsx', "import { buildApp } from '../../server/app';\nexport const a = buildApp;"],
    ['trials/pair/contract.ts', "import { pair } from './server';\nexport const p = pair;"],
    ['trials/pair/contract.ts', "import { useClipTrial } from '../../client/listener/trials/useClipTrial';\nexport const u = useClipTrial;"],
    ['trials/pair/plan.ts', "import { pair } from './server';\nexport const p = pair;"],
    ['trials/pair/plan.ts', "import { buildApp } from '../../server/app';\nexport const a = buildApp;"],
    ['trials/pair/server.ts', "import { PairTrial } from './PairTrial';\nexport const P = PairTrial;"],
    ['client/listener/x.ts', "import { pair } from '../../trials/pair/server';\nexport const p = pair;"],
    ['studies/x.ts', "import { pair } from '../trials/pair/server';\nexport const p = pair;"],
    ['analysis/x.ts', "import { planPairItems } from '../trials/pair/plan';\nexport const p = planPairItems;"],
    ['contract/x.ts', "import { planPairItems } from '../trials/pair/plan';\nexport const p = planPairItems;"],
    ['trials/abx/AbxPanel.tsx', "import { abxPairs } from './report';\nexport const p = abxPairs;"],
    ['trials/abx/figure.tsx', "import { abxPairs } from './report';\nexport const p = abxPairs;"],
    ['trials/abx/figure.tsx', "import { SavableFigure } from '../../client/reports/SavableFigure';\nexport const S = SavableFigure;"],
    ['trials/abx/figure.tsx', "import { AbxPanel } from './AbxPanel';\nexport const P = AbxPanel;"],
    ['trials/abx/report-section.tsx', "import { AbxPanel } from './AbxPanel';\nexport const P = AbxPanel;"],
    ['trials/tags/figure.tsx', "import { annotationSection } from './report';\nexport const a = annotationSection;"],
    ['trials/tags/report-section.tsx', "import { TagsPanel } from './TagsPanel';\nexport const P = TagsPanel;"],
    ['analysis/x.tsx', "import { AbxPanel } from '../trials/abx/AbxPanel';\nexport const P = AbxPanel;"],
    ['client/reports/x.tsx', "import { AbxReportSection } from '../../trials/abx/report-section';\nexport const S = AbxReportSection;"],
  ])('refuses %s importing across', async (file, code) => {
    expect(await boundaryErrors(file, code)).toHaveLength(1);
  });

  it.each([
    ['trials/pair/Other.tsx', "import type { PairTrial } from './contract';\nimport { useMessages } from '../../client/listener/messages';\nexport const u = [useMessages] as unknown as PairTrial[];"],
    ['trials/pair/plan.ts', "import { PairSettings } from './contract';\nimport { sampleItems } from '../../studies/sampler';\nexport const p = [PairSettings, sampleItems];"],
    ['trials/pair/server.ts', "import { invalidRequest } from '../../server/errors';\nimport { PairAnswer } from './contract';\nexport const s = [invalidRequest, PairAnswer];"],
    ['contract/x.ts', "import { PairTrial } from '../trials/pair/contract';\nexport const P = PairTrial;"],
    ['client/listener/x.ts', "import { PairTrial } from '../../trials/pair/PairTrial';\nexport const P = PairTrial;"],
    ['trials/abx/AbxPanel.tsx', "import { SavableFigure } from '../../client/reports/SavableFigure';\nimport { AbxFigure } from './figure';\nexport const both = [SavableFigure, AbxFigure];"],
    ['trials/abx/figure.tsx', "import { ShareChart } from '../../figures/ShareChart';\nexport const S = ShareChart;"],
    ['trials/abx/report-section.tsx', "import { AbxFigure } from './figure';\nexport const F = AbxFigure;"],
    ['trials/tags/figure.tsx', "import { HeatMap } from '../../figures/HeatMap';\nexport const H = HeatMap;"],
    ['trials/tags/TagsPanel.tsx', "import { SavableFigure } from '../../client/reports/SavableFigure';\nimport { TagsFigure } from './figure';\nexport const both = [SavableFigure, TagsFigure];"],
    ['client/reports/x.tsx', "import { AbxPanel } from '../../trials/abx/AbxPanel';\nexport const P = AbxPanel;"],
  ])('lets %s through', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});
