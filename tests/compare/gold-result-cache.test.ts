import { describe, expect, it } from 'vitest';
import { GoldResultCache } from '../../src/compare/gold-result-cache.js';
import type { ExecutionOutcome } from '../../src/engine/engine.js';

const ok = (n: number): Promise<ExecutionOutcome> =>
  Promise.resolve({ ok: true, result: { columns: ['n'], rows: [[n]], doubleQuoteFallback: false, executedSql: 'x', elapsedMs: 0 } });

describe('GoldResultCache', () => {
  it('rejects a bad maxEntries', () => {
    expect(() => new GoldResultCache({ maxEntries: 0 })).toThrow(new RangeError('maxEntries must be an integer ≥ 1; received 0'));
  });

  it('keys on checksum when present, else on the resolved path, and on the trimmed SQL', () => {
    expect(GoldResultCache.key({ name: 'a', path: '/x/a.sqlite', checksum: 'abc' }, ' SELECT 1 ')).toBe('abc\u0000SELECT 1');
    expect(GoldResultCache.key({ name: 'a', path: '/x/a.sqlite' }, 'SELECT 1')).toBe('path:/x/a.sqlite\u0000SELECT 1');
  });

  it('runs once per key, shares the promise, evicts the oldest entry past maxEntries', async () => {
    const cache = new GoldResultCache({ maxEntries: 2 });
    let runs = 0;
    const run = () => ((runs += 1), ok(runs));
    const snapshot = { name: 's', path: '/s.sqlite', checksum: 'c1' };
    const first = cache.getOrRun(snapshot, 'SELECT 1', run);
    expect(cache.getOrRun(snapshot, 'SELECT 1', run)).toBe(first);
    cache.getOrRun({ ...snapshot, checksum: 'c2' }, 'SELECT 1', run);
    cache.getOrRun(snapshot, 'SELECT 2', run);
    expect([runs, cache.hits, cache.misses, cache.size]).toEqual([3, 1, 3, 2]);
    cache.getOrRun(snapshot, 'SELECT 1', run);
    expect(runs).toBe(4);
  });
});
