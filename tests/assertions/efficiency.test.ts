import { afterAll, describe, expect, it } from 'vitest';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { efficiency } from '../../assertions/efficiency.js';
import { closeSharedEngine, sharedGoldCache } from '../../src/promptfoo/runtime.js';
import { isLadderError } from '../../src/errors.js';

afterAll(() => closeSharedEngine());

// Warehouse, snapshots base/later/edge. "How many orders were placed in March 2025?"
const INDEXED = "SELECT count(*) FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
const SCANNING = "SELECT count(*) FROM orders WHERE substr(order_date, 1, 7) = '2025-03'";

function context(config?: Record<string, unknown>, vars: Record<string, unknown> = {}): AssertionContext {
  return {
    vars: { id: 'wh-eff', db: 'warehouse', expected_behavior: 'answer', gold_sql: INDEXED, ...vars },
    test: { metadata: { id: 'wh-eff', source: 'datasets/test.yaml:7' } },
    ...(config ? { config } : {}),
    providerResponse: { metadata: {} },
  };
}

describe('efficiency assertion', () => {
  it('fails a correct query that scans where the gold uses an index, with L6_efficiency 0', async () => {
    const result = await efficiency(SCANNING, context());
    expect([result.pass, result.score, result.namedScores]).toEqual([false, 0, { L6_efficiency: 0 }]);
    expect(result.reason).toBe('estimated cost 1200 vs gold 85 row visits (×14.12 > budget ×2); 1 scan where gold uses an index (orders)');
    expect(result.componentResults?.[0]?.assertion).toEqual({ type: 'javascript', value: 'assertions/efficiency.ts:efficiency' });
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({ rung: 'efficiency', status: 'fail', details: { comparison: { predictedCost: 1200, goldCost: 85 } } });
  });

  it('passes the indexed query, and the scanning one under a generous budget from config', async () => {
    expect((await efficiency(INDEXED, context())).namedScores).toEqual({ L6_efficiency: 1 });
    const generous = await efficiency(SCANNING, context({ budgetFactor: 20 }));
    expect([generous.pass, generous.namedScores]).toEqual([true, { L6_efficiency: 1 }]);
  });

  it('is skipped (passes, no named score) when L4 does not match', async () => {
    const result = await efficiency("SELECT count(*) FROM orders WHERE order_date >= '2025-03-01'", context());
    expect(result.pass).toBe(true);
    expect(result.namedScores).toBeUndefined();
    // The ladder's L6 after an L4 that did not pass.
    expect(result.reason).toBe('skipped: L4_execution fail');
  });

  it('runs its golds through the process-wide gold cache (one cache per runtime)', async () => {
    const cache = sharedGoldCache();
    cache.clear();
    const before = cache.misses + cache.hits;
    await efficiency(INDEXED, context({}, { gold_sql: `${INDEXED} ` }));
    expect([cache.size, cache.misses + cache.hits - before]).toEqual([3, 3]); // one gold on three snapshots
  });

  it('throws misuse naming config.<option> and the file (an ERROR row)', async () => {
    const run = efficiency(SCANNING, context({ budgetFactor: 0 }));
    await expect(run).rejects.toSatisfy((error: unknown) => isLadderError(error, 'invalid_option'));
    await expect(run).rejects.toThrow('config.budgetFactor must be a finite number ≥ 1 (allowed predicted/gold cost ratio); received a number (0) (in assertions/efficiency.ts:efficiency)');
    await expect(efficiency(SCANNING, context({ budget: 2 }))).rejects.toThrow(/config\.budget is not an option/);
  });
});
