import { defineConfig } from 'vitest/config';

// Fault scenarios kill and restart real processes; they are slower, so they run as their own
// command (script/test runs them after the main suite; `pnpm test:fault` alone).
export default defineConfig({
  test: {
    include: [
      'packages/*/test/**/*.fault.test.ts',
      'apps/*/test/**/*.fault.test.ts',
      'chaos/test/**/*.fault.test.ts',
      'bench/test/**/*.fault.test.ts',
    ],
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    passWithNoTests: true,
    pool: 'forks',
    // Every cached statement is also built directly and compared (store/src/cached-statement.ts).
    env: { SWITCHYARD_VERIFY_STATEMENTS: '1' },
  },
});
