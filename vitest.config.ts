import { defineConfig } from 'vitest/config';

// `npm test`: fast, self-contained unit and integration tests. Nothing here reads the shared data folder.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
