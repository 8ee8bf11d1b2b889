import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds db/shop.sqlite from db/shop.sql once per run.
    globalSetup: ['./tests/global-setup.ts'],
    // Registers the text2sql-ladder matchers (and closes their engine after each file).
    setupFiles: ['./tests/setup.ts'],
    // The first engine-backed assertion of a file starts a SQLite child process: well under a
    // second on an idle machine, several seconds on a busy CI runner.
    testTimeout: 30_000,
  },
});
