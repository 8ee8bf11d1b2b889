import { defineConfig } from 'vitest/config';

// `npm run test:faults`: fault injection against the engine, the CLI, promptfoo and the fixture
// cache (signals, a blocked parent, memory bombs, temp spills, WAL files, concurrent runs, a
// corrupted cache), the adversarial input shapes and the seeded fuzz test. Linux only (/proc).
// CI runs it apart from `npm test`; each file is bounded by its timeouts.
export default defineConfig({
  test: {
    include: ['tests-faults/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
