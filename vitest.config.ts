import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{contract,analysis,db,server,studies,audio-manifest,client,figures,cli,trials}/**/*.test.{ts,tsx}'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
