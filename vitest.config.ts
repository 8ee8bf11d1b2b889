import { defineConfig } from 'vitest/config';

// `npm test`: fast, self-contained unit and integration tests. Nothing here reads the shared data folder.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // A private temp folder per run; a test that leaves a file there fails the run (see the file).
    globalSetup: ['tests/helpers/temp-root.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
