import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds db/shop.sqlite from db/shop.sql once per run.
    globalSetup: ['./tests/global-setup.ts'],
    // Registers the text2sql-ladder matchers (and closes their engine after each file).
    setupFiles: ['./tests/setup.ts'],
  },
});
