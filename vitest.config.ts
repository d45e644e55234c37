import { defineConfig } from 'vitest/config';

// One run for the whole workspace. Integration tests use real Postgres and Redis: each test file
// gets its own database cloned from a migrated template (packages/testing), so files run in
// parallel safely. Two workers match this 2-core machine.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'chaos/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.fault.test.ts', '**/*.e2e.test.ts'],
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    pool: 'forks',
    // Every cached statement is also built directly and compared (store/src/cached-statement.ts).
    env: { SWITCHYARD_VERIFY_STATEMENTS: '1' },
  },
});
