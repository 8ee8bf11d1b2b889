import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as realSetImmediate } from 'node:timers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GoldResultCache, type GoldRunKey } from '../../src/compare/gold-result-cache.js';
import type { Engine, ExecutionOutcome } from '../../src/engine/engine.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { withRequestDefaults } from '../../src/promptfoo/runtime.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

const ok = (n: number): Promise<ExecutionOutcome> =>
  Promise.resolve({ ok: true, result: { columns: ['n'], rows: [[n]], doubleQuoteFallback: false, executedSql: 'x', elapsedMs: 0 } });
const failing = (code: 'timeout' | 'memory_limit' | 'engine_failure' | 'db_not_found' | 'query_error' | 'result_too_large'): Promise<ExecutionOutcome> =>
  Promise.resolve({ ok: false, error: { code, message: code } });

const snapshot = { name: 's', path: '/s.sqlite', checksum: 'c1' };
const key = (extra: Partial<GoldRunKey> = {}): GoldRunKey => ({ snapshot, sql: 'SELECT 1', doubleQuotes: 'legacy', maxRows: 100, ...extra });

describe('GoldResultCache', () => {
  it('rejects a bad maxEntries', () => {
    expect(() => new GoldResultCache({ maxEntries: 0 })).toThrow(new RangeError('maxEntries must be an integer ≥ 1; received 0'));
  });

  it('keys on the snapshot checksum, the double-quote mode, the row cap and the SQL as run', () => {
    expect(GoldResultCache.key(key())).toBe('c1\u0000legacy\u0000100\u0000SELECT 1');
    expect(GoldResultCache.key(key({ doubleQuotes: 'strict', maxRows: undefined, sql: ' SELECT 1 ' }))).toBe('c1\u0000strict\u0000default\u0000 SELECT 1 ');
  });

  it('without a checksum, keys on the path and the file identity, read once per turn of the event loop: a database rebuilt at the same path is another key from the next turn', async () => {
    const dir = createTempSqlite('CREATE TABLE t (a)');
    try {
      const fileKey = () => GoldResultCache.key(key({ snapshot: { name: 'x', path: dir.file } }));
      const before = fileKey();
      expect(before).toMatch(new RegExp(`^path:${dir.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}@\\d+:\\d+:\\d+:\\d+\u0000`));
      writeFileSync(dir.file, 'rebuilt');
      utimesSync(dir.file, new Date(2001, 1, 1), new Date(2001, 1, 1));
      expect(fileKey()).toBe(before);
      await new Promise((resolve) => setImmediate(resolve));
      expect(fileKey()).not.toBe(before);
      expect(GoldResultCache.key(key({ snapshot: { name: 'x', path: path.join(dir.dir, 'missing.sqlite') } }))).toBe(`path:${path.join(dir.dir, 'missing.sqlite')}\u0000legacy\u0000100\u0000SELECT 1`);
    } finally {
      dir.remove();
    }
  });

  it('reads a rebuilt file again on the next turn with a faked setImmediate too (a user test may fake it)', async () => {
    const dir = createTempSqlite('CREATE TABLE t (a)');
    await new Promise((resolve) => realSetImmediate(resolve)); // identities read by earlier tests are forgotten
    vi.useFakeTimers({ toFake: ['setImmediate', 'clearImmediate'] });
    try {
      const fileKey = () => GoldResultCache.key(key({ snapshot: { name: 'x', path: dir.file } }));
      const before = fileKey();
      writeFileSync(dir.file, 'rebuilt');
      utimesSync(dir.file, new Date(2001, 1, 1), new Date(2001, 1, 1));
      await new Promise((resolve) => realSetImmediate(resolve));
      expect(fileKey()).not.toBe(before);
    } finally {
      vi.useRealTimers();
      dir.remove();
    }
  });

  it('runs once per key, shares the promise, evicts the oldest entry past maxEntries', async () => {
    const cache = new GoldResultCache({ maxEntries: 2 });
    let runs = 0;
    const run = () => ((runs += 1), ok(runs));
    const first = cache.getOrRun(key(), run);
    expect(cache.getOrRun(key(), run)).toBe(first);
    cache.getOrRun(key({ snapshot: { ...snapshot, checksum: 'c2' } }), run);
    cache.getOrRun(key({ sql: 'SELECT 2' }), run);
    expect([runs, cache.hits, cache.misses, cache.size]).toEqual([3, 1, 3, 2]);
    cache.getOrRun(key(), run);
    expect(runs).toBe(4);
  });

  it('a strict run and a legacy run of the same gold are two entries; so are two row caps', () => {
    const cache = new GoldResultCache();
    cache.getOrRun(key({ doubleQuotes: 'strict' }), () => failing('query_error'));
    cache.getOrRun(key({ doubleQuotes: 'legacy' }), () => ok(1));
    cache.getOrRun(key({ maxRows: 1 }), () => failing('result_too_large'));
    expect([cache.misses, cache.hits]).toEqual([3, 0]);
  });

  it.each(['timeout', 'memory_limit', 'engine_failure', 'db_not_found'] as const)('never keeps a %s: the next lookup runs again', async (code) => {
    const cache = new GoldResultCache();
    const entry = cache.getOrRun(key(), () => failing(code));
    expect(cache.getOrRun(key(), () => ok(1))).toBe(entry); // concurrent callers share the pending run
    await entry.outcome;
    await Promise.resolve();
    expect(cache.size).toBe(0);
    const again = cache.getOrRun(key(), () => ok(2));
    expect(await again.outcome).toMatchObject({ ok: true, result: { rows: [[2]] } });
  });

  it('keeps a deterministic error (query_error, result_too_large)', async () => {
    const cache = new GoldResultCache();
    await cache.getOrRun(key(), () => failing('query_error')).outcome;
    await cache.getOrRun(key({ sql: 'SELECT 2' }), () => failing('result_too_large')).outcome;
    await Promise.resolve();
    expect(cache.size).toBe(2);
  });
});

describe('GoldResultCache shared by checkExecution runs with different options', () => {
  let engine: Engine;
  let db: TempSqlite;
  beforeAll(() => {
    db = createTempSqlite(`CREATE TABLE flights (id INTEGER, airline TEXT); INSERT INTO flights VALUES (1, 'APG'), (2, 'UAL');`);
    engine = createSqliteEngine({ poolSize: 1 });
  });
  afterAll(async () => {
    await engine.close();
    db.remove();
  });

  it('a strict run does not leave a gold error that a later legacy run reuses', async () => {
    const cache = new GoldResultCache();
    const input = { predictedSql: "SELECT id FROM flights WHERE airline = 'APG'", golds: ['SELECT id FROM flights WHERE airline = "APG"'], snapshots: [{ name: 'base', path: db.file }], engine, cache };
    const strict = await checkExecution({ ...input, doubleQuotes: 'strict' });
    expect([strict.status, strict.details.flags]).toEqual(['unscored', ['gold_error']]);
    const legacy = await checkExecution({ ...input, doubleQuotes: 'legacy' });
    expect([legacy.status, legacy.details.flags, legacy.details.doubleQuotes]).toEqual(['pass', ['gold_rewritten'], 'legacy']);
    expect([cache.misses, cache.hits]).toEqual([2, 0]);
  });

  it('two assertions on one shared cache, one strict and one legacy (engine views), do not share a gold error', async () => {
    const cache = new GoldResultCache();
    const input = { predictedSql: "SELECT id FROM flights WHERE airline = 'APG'", golds: ['SELECT id FROM flights WHERE airline = "APG"'], snapshots: [{ name: 'base', path: db.file }], cache };
    const strict = await checkExecution({ ...input, engine: withRequestDefaults(engine, { doubleQuotes: 'strict' }) });
    const legacy = await checkExecution({ ...input, engine: withRequestDefaults(engine, { doubleQuotes: 'legacy' }) });
    expect([strict.status, legacy.status, legacy.reason]).toEqual(['unscored', 'pass', 'matches']);
  });

  it('a gold that timed out runs again on the next item', async () => {
    const cache = new GoldResultCache();
    const slow = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000000) SELECT count(*) FROM n';
    const input = { predictedSql: 'SELECT 1', golds: [slow], snapshots: [{ name: 'base', path: db.file }], engine, cache };
    const first = await checkExecution({ ...input, timeoutMs: 50 });
    expect(first.details.goldErrors.map((error) => error.error.code)).toEqual(['timeout']);
    await Promise.resolve();
    expect(cache.size).toBe(0);
  });
});
