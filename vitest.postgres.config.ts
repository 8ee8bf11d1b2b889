import { defineConfig } from 'vitest/config';

// `npm run test:postgres`: the PostgreSQL engine on a real server (a private one each test file
// starts in a temporary folder and stops). CI runs it apart; `npm test` needs no server.
export default defineConfig({
  test: {
    include: ['tests-postgres/**/*.test.ts'],
    globalSetup: ['tests-postgres/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
