/**
 * figures/ sits beside the layers: the report (analysis/) and the dashboard (client/) may import
 * it, and it imports nothing of ours (eslint.config.js), so sharing it joins no layers.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

describe('figures/ is a neutral folder', () => {
  it.each([
    ['figures/x.tsx', "import { analyze } from '../analysis/report';\nexport const a = analyze;"],
    ['figures/x.tsx', "import { Dashboard } from '../client/reports/Dashboard';\nexport const D = Dashboard;"],
    ['figures/x.tsx', "import { StudyId } from '../contract/common';\nexport const s = StudyId;"],
    ['contract/x.ts', "import { INK } from '../figures/chart';\nexport const i = INK;"],
    ['db/x.ts', "import { INK } from '../figures/chart';\nexport const i = INK;"],
    ['trials/abx/figure.tsx', "import { StudyId } from '../../contract/common';\nexport const s = StudyId;"],
  ])('refuses %s importing across', async (file, code) => {
    const errors = await boundaryErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Unexpected path/);
  });

  it.each([
    ['analysis/x.tsx', "import { MosChart } from '../figures/MosChart';\nexport const M = MosChart;"],
    ['client/reports/x.tsx', "import { BarChart } from '../../figures/BarChart';\nexport const B = BarChart;"],
    ['figures/x.tsx', "import { useId } from 'react';\nimport { INK } from './chart';\nexport const both = [useId, INK];"],
    ['trials/abx/figure.tsx', "import { ShareChart } from '../../figures/ShareChart';\nexport const S = ShareChart;"],
  ])('lets %s through', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});
