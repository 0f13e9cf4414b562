// One rule only: imports run one way (README "Map"). db ← audio-manifest ← studies ← server,
// client → the contract, analysis alone. Style is left to the code review, not to a linter.
import babelParser from '@babel/eslint-parser';
import importPlugin from 'eslint-plugin-import';

// server/contract.ts is the one file of server/ that the client and the study definitions share
// (zod schemas and types, nothing else), until the contract leaves server/ (issue 13 item 2).
const contract = { except: ['./contract.ts'] };

const layers = [
  { target: './db', from: ['./audio-manifest', './studies', './server', './analysis', './client'], message: 'db/ imports no domain code.' },
  { target: './audio-manifest', from: ['./studies', './server', './analysis', './client'], message: 'audio-manifest/ sits on db/ only.' },
  { target: './studies', from: ['./server', './client'], ...contract, message: 'studies/ sits on db/ and audio-manifest/ (and the contract); the server calls studies, not the other way.' },
  { target: './analysis', from: ['./db', './audio-manifest', './studies', './server', './client'], message: 'analysis/ stands alone: it reads export bundles, not the database or the server.' },
  { target: './client', from: ['./db', './audio-manifest', './studies', './analysis', './server'], ...contract, message: 'the client imports only the contract.' },
  { target: './server', from: ['./client'], message: 'the server does not import the client.' },
];

export default [
  { ignores: ['node_modules/', 'dist/', 'test-results/', 'playwright-report/'] },
  {
    files: ['{db,audio-manifest,studies,server,analysis,client}/**/*.{ts,tsx,mjs}'],
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
