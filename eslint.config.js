// One rule only: imports run one way (README "Map"). db ← audio-manifest ← studies ← server,
// each of them and the client → contract/ (zod schemas and zod-free constants, importing nothing of
// ours), analysis alone; figures/ (React components, importing nothing of ours) may be imported by
// analysis/ (the HTML report) and client/ (the dashboard), the two that draw the same figures.
// cli/ (argument parsing) is shared by every layer's commands and imports none. Style is left to the code review, not to a linter.
import babelParser from '@babel/eslint-parser';
import importPlugin from 'eslint-plugin-import';

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
