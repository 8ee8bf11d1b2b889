/**
 * A short run of the seeded SQL fuzzer (tests/helpers/sql-fuzz.ts) in `npm test`: no entry point
 * throws on 100 mutated real queries. The 10 000-input run with its time bound is in
 * `npm run test:faults` (tests-faults/fuzz.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../helpers/sql-fuzz.js';

describe('fuzzing the SQL entry points (short run)', () => {
  it('100 mutated real queries: no entry point throws', async () => {
    const report = await runFuzz({ seed: 7, count: 100, boundMs: Number.POSITIVE_INFINITY });
    expect(report.calls).toBeGreaterThan(100 * 13);
    expect(report.throws).toEqual([]);
  }, 120_000);
});
