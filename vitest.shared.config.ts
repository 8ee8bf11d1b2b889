import { defineConfig } from 'vitest/config';

// `npm run test:shared`: checks on the real Spider dev slice (CI runs it apart).
export default defineConfig({
  test: {
    include: ['tests-shared/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
