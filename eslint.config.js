// One rule only: imports run one way (README "Map"). db ← audio-manifest ← studies ← server,
// each of them and the client → contract/ (zod schemas and zod-free constants, importing nothing of
// ours), analysis alone; figures/ (React components, importing nothing of ours) may be imported by
// analysis/ (the HTML report) and client/ (the dashboard), the two that draw the same figures.
// cli/ (argument parsing) is shared by every layer's commands and imports none. A trial kind is a folder
// trials/<kind>/ (trials/README.md) whose files each belong to one layer by name: contract.ts is contract,
// plan.ts studies, server.ts server, *.tsx named in PascalCase (its listener component, its dashboard
// panel <Name>Panel.tsx) and words.ts the client, report.ts, report-section.tsx and simulate.ts analysis,
// and figure.tsx the kind's figures/ (drawn by both its report section and its panel: figures/ only); each obeys its
// layer's rule, and the layers' registries (contract/trials, studies/trials, server/store/trials,
// client/listener/trials, analysis/kinds) import the kinds' files of their own layer only.
// Style is left to the code review, not to a linter.
import babelParser from '@babel/eslint-parser';
import importPlugin from 'eslint-plugin-import';

// A kind's files by layer (globs, relative to the repository).
const kind = {
  contract: './trials/*/contract.ts',
  studies: './trials/*/plan.ts',
  server: './trials/*/server.ts',
  client: './trials/*/{[A-Z]*.tsx,words.ts}',
  analysis: ['./trials/*/report.ts', './trials/*/report-section.tsx', './trials/*/simulate.ts'],
  figures: './trials/*/figure.tsx',
};
const notContract = [kind.studies, kind.server, kind.client, ...kind.analysis, kind.figures];

const layers = [
  { target: './contract', from: ['./db', './audio-manifest', './studies', './server', './analysis', './client', './figures'], message: 'contract/ is the neutral API description: zod and constants only.' },
  { target: './figures', from: ['./contract', './db', './audio-manifest', './studies', './server', './analysis', './client'], message: 'figures/ is shared by the report (analysis/) and the dashboard (client/): React components that import nothing of ours.' },
  { target: './db', from: ['./contract', './audio-manifest', './studies', './server', './analysis', './client', './figures'], message: 'db/ imports no domain code.' },
  { target: './audio-manifest', from: ['./studies', './server', './analysis', './client', './figures'], message: 'audio-manifest/ sits on db/ only.' },
  { target: './studies', from: ['./server', './client'], message: 'studies/ sits on db/, audio-manifest/ and contract/; the server calls studies, not the other way.' },
  { target: './analysis', from: ['./contract', './db', './audio-manifest', './studies', './server', './client'], message: 'analysis/ stands alone: it reads export bundles, not the database or the server.' },
  { target: './client', from: ['./db', './audio-manifest', './studies', './analysis', './server'], message: 'the client imports only contract/.' },
  { target: './server', from: ['./client'], message: 'the server does not import the client.' },
  { target: './cli', from: ['./contract', './db', './audio-manifest', './studies', './server', './analysis', './client'], message: 'cli/ is the argument parsing every command shares: Node only.' },
  // The kinds' files, each in its layer.
  { target: './contract/**', from: notContract, message: 'contract/ registers the kinds\' contract.ts only.' },
  { target: './studies/**', from: [kind.server, kind.client], message: 'studies/ registers the kinds\' plan.ts; the server calls studies, not the other way.' },
  { target: './analysis/**', from: [kind.contract, kind.studies, kind.server, kind.client], message: 'analysis/ stands alone: it registers the kinds\' report.ts and simulate.ts only.' },
  { target: './client/**', from: [kind.studies, kind.server, ...kind.analysis], message: 'the client imports only contract/ and the kinds\' components, contract.ts and words.ts.' },
  { target: kind.contract, from: ['./db/**', './audio-manifest/**', './studies/**', './server/**', './analysis/**', './client/**', './figures/**', ...notContract], message: 'a kind\'s contract.ts is contract: zod and constants only.' },
  { target: kind.studies, from: ['./server/**', './client/**', kind.server, kind.client], message: 'a kind\'s plan.ts is studies/: the server calls it, not the other way.' },
  { target: kind.server, from: ['./client/**', kind.client], message: 'a kind\'s server.ts does not import the client.' },
  { target: kind.client, from: ['./db/**', './audio-manifest/**', './studies/**', './analysis/**', './server/**', kind.studies, kind.server, ...kind.analysis], message: 'a kind\'s component imports only contract/, client/ and its contract.ts and words.ts.' },
  {
    target: kind.figures, from: ['./contract/**', './db/**', './audio-manifest/**', './studies/**', './server/**', './analysis/**', './client/**', './cli/**', kind.contract, kind.studies, kind.server, kind.client, ...kind.analysis],
    message: 'a kind\'s figure.tsx is figures/: shared by its report section and its dashboard panel, it imports figures/ only.',
  },
  ...kind.analysis.map((target) => ({
    target, from: ['./contract/**', './db/**', './audio-manifest/**', './studies/**', './server/**', './client/**', kind.contract, kind.studies, kind.server, kind.client],
    message: 'a kind\'s report.ts and simulate.ts are analysis/: they read bundles, nothing else.',
  })),
];

export default [
  { ignores: ['node_modules/', 'dist/', 'test-results/', 'playwright-report/'] },
  {
    files: ['{contract,db,audio-manifest,studies,server,analysis,client,figures,cli,trials}/**/*.{ts,tsx,mjs}'],
    // Tests that drive the whole stack (a study built, served, exported and analysed) and their
    // shared helpers may import across layers; the code they test may not.
    ignores: ['**/*.test.{ts,tsx}', 'studies/test-support.ts'],
    languageOptions: {
      // Babel strips the types without the TypeScript compiler (typescript 7 has no JavaScript API).
      parser: babelParser,
      parserOptions: {
        requireConfigFile: false,
        babelOptions: { babelrc: false, configFile: false, presets: ['@babel/preset-typescript'] },
      },
    },
    plugins: { import: importPlugin },
    settings: { 'import/resolver': { node: { extensions: ['.ts', '.tsx', '.mjs', '.js'] } } },
    rules: { 'import/no-restricted-paths': ['error', { zones: layers }] },
  },
];
