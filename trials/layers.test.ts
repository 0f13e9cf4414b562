/**
 * A kind's folder keeps its layers apart (eslint.config.js, "A trial kind is a folder"): each file
 * obeys the rule of the layer its name puts it in, and the registries import their own layer's
 * files only. Snippets are linted as if they sat in the named (existing) folder; nothing is written.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

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
  ])('refuses %s importing across', async (file, code) => {
    expect(await boundaryErrors(file, code)).toHaveLength(1);
  });

  it.each([
    ['trials/pair/Other.tsx', "import type { PairTrial } from './contract';\nimport { useMessages } from '../../client/listener/messages';\nexport const u = [useMessages] as unknown as PairTrial[];"],
    ['trials/pair/plan.ts', "import { PairSettings } from './contract';\nimport { sampleItems } from '../../studies/sampler';\nexport const p = [PairSettings, sampleItems];"],
    ['trials/pair/server.ts', "import { invalidRequest } from '../../server/errors';\nimport { PairAnswer } from './contract';\nexport const s = [invalidRequest, PairAnswer];"],
    ['contract/x.ts', "import { PairTrial } from '../trials/pair/contract';\nexport const P = PairTrial;"],
    ['client/listener/x.ts', "import { PairTrial } from '../../trials/pair/PairTrial';\nexport const P = PairTrial;"],
  ])('lets %s through', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});
