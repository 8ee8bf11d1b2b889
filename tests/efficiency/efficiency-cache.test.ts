import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { utimesSync } from 'node:fs';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine, ExecuteRequest, ExplainOutcome } from '../../src/engine/engine.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { EfficiencyCache } from '../../src/efficiency/efficiency-cache.js';
import { checkEfficiency } from '../../src/rungs/efficiency.js';
import { createParseMemo } from '../../src/rungs/parse-memo.js';
import { createTempSqlite } from '../helpers/temp-sqlite.js';
import { recordingMemo } from '../helpers/recording-memo.js';

// The bundled warehouse fixture, snapshot `base` (sqlite_stat1 filled at build time, 3 views).
const INDEXED = "SELECT count(*) FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
const SCANNING = "SELECT count(*) FROM orders WHERE substr(order_date, 1, 7) = '2025-03'";
const PASSED = { status: 'pass' } as const;

let engine: Engine;
let db: string;

beforeAll(async () => {
  engine = createSqliteEngine();
  db = (await resolveFixture('warehouse')).snapshots[0]!.path;
});
afterAll(async () => {
  await engine.close();
});

/** The engine with every request it receives recorded as `op: sql`. */
function recording(inner: Engine, explain: (request: ExecuteRequest) => Promise<ExplainOutcome> = (request) => inner.explain(request)): { engine: Engine; requests: string[] } {
  const requests: string[] = [];
  return {
    requests,
    engine: {
      ...inner,
      dialect: inner.dialect,
      execute: (request) => (requests.push(`execute: ${request.sql}`), inner.execute(request)),
      explain: (request) => (requests.push(`explain: ${request.sql}`), explain(request)),
      catalog: (name) => inner.catalog(name),
      prepare: (request) => inner.prepare(request),
      close: async () => undefined,
    },
  };
}

describe('EfficiencyCache: the snapshot and the gold are read once per run', () => {
  it('two rows of one item (two providers) send the statistics, views and gold plan once', async () => {
    const { engine: counted, requests } = recording(engine);
    const cache = new EfficiencyCache();
    const first = await checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine: counted, execution: PASSED, cache });
    const second = await checkEfficiency({ predictedSql: INDEXED, goldSql: INDEXED, snapshot: db, engine: counted, execution: PASSED, cache });
    expect(requests.sort()).toEqual([
      `execute: SELECT sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL ORDER BY name`,
      'execute: SELECT tbl, idx, stat FROM sqlite_stat1',
      `explain: ${INDEXED}`,
      `explain: ${INDEXED}`,
      `explain: ${SCANNING}`,
    ]);
    expect(cache.hits).toBe(2);
    // The same verdicts as without a cache.
    expect(first.reason).toBe('estimated cost 1200 vs gold 85 row visits (×14.12 > budget ×2); 1 scan where gold uses an index (orders)');
    expect(second.reason).toBe('estimated cost 85 vs gold 85 row visits (×1 ≤ budget ×2)');
    expect(second).toEqual(await checkEfficiency({ predictedSql: INDEXED, goldSql: INDEXED, snapshot: db, engine, execution: PASSED }));
  });

  it('concurrent rows share one request', async () => {
    const { engine: counted, requests } = recording(engine);
    const cache = new EfficiencyCache();
    await Promise.all([1, 2, 3].map(() => checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine: counted, execution: PASSED, cache })));
    expect(requests.filter((request) => request.startsWith('execute')).length).toBe(2);
    expect(requests.filter((request) => request === `explain: ${INDEXED}`).length).toBe(1);
  });

  it('a gold plan that timed out is asked again; one the engine refused is kept', async () => {
    let calls = 0;
    const timingOut = recording(engine, async (request) => {
      calls += 1;
      return request.sql === 'SELECT 1' ? { ok: false, error: { code: 'timeout', message: 'timeout: deadline of 5 ms passed' } } : engine.explain(request);
    });
    const cache = new EfficiencyCache();
    for (let i = 0; i < 2; i += 1) {
      const result = await checkEfficiency({ predictedSql: INDEXED, goldSql: 'SELECT 1', snapshot: db, engine: timingOut.engine, execution: PASSED, cache });
      expect(result.reason).toBe('gold plan unavailable: timeout: timeout: deadline of 5 ms passed');
    }
    expect(timingOut.requests.filter((request) => request === 'explain: SELECT 1').length).toBe(2);
    const refusing = recording(engine, async (request) =>
      request.sql === 'SELECT 2' ? { ok: false, error: { code: 'unknown_table', message: 'no such table: x' } } : engine.explain(request),
    );
    for (let i = 0; i < 2; i += 1) await checkEfficiency({ predictedSql: INDEXED, goldSql: 'SELECT 2', snapshot: db, engine: refusing.engine, execution: PASSED, cache });
    expect(refusing.requests.filter((request) => request === 'explain: SELECT 2').length).toBe(1);
    expect(calls).toBe(4);
  });

  it('a database rebuilt at the same path is read again', async () => {
    const database = createTempSqlite('CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER); CREATE INDEX t_k ON t(k); INSERT INTO t VALUES (1, 1), (2, 2);', { prefix: 'l6-cache-', name: 'plain.sqlite' });
    try {
      const cache = new EfficiencyCache();
      const run = () => checkEfficiency({ predictedSql: 'SELECT id FROM t WHERE k + 0 = 1', goldSql: 'SELECT id FROM t WHERE k = 1', snapshot: database.file, engine, execution: PASSED, cache });
      expect((await run()).details?.statistics).toBe('none');
      const writer = new Database(database.file);
      writer.exec('ANALYZE');
      writer.close();
      utimesSync(database.file, new Date(), new Date(Date.now() + 5_000));
      const analyzed = await run();
      expect(analyzed.details?.statistics).toBe('sqlite_stat1');
      // SCAN t: 2 rows (sqlite_stat1 `t t_k 2 1`); SEARCH t USING COVERING INDEX t_k (k=?): 1 + log2(2) = 2
      expect(analyzed.reason).toBe('estimated cost 2 vs gold 2 row visits (×1 ≤ budget ×2); 1 scan where gold uses an index (t)');
    } finally {
      database.remove();
    }
  });

  it('rejects a bad size', () => {
    expect(() => new EfficiencyCache({ maxGoldPlans: 0 })).toThrow('maxGoldPlans must be an integer ≥ 1; received 0');
  });
});

describe('checkEfficiency: the engine round trips overlap the parses', () => {
  it('starts both parses before the engine explains, awaits them once it has answered, then reads them', async () => {
    const events: string[] = [];
    const memo = recordingMemo(events);
    const explain = (request: ExecuteRequest): Promise<ExplainOutcome> => (events.push(`explain: ${request.sql}`), engine.explain(request).then((outcome) => (events.push(`explained: ${request.sql}`), outcome)));
    const watching = recording(engine, explain);
    const result = await checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine: watching.engine, execution: PASSED, parses: memo, cache: new EfficiencyCache() });
    expect(events).toEqual([
      `ahead: ${SCANNING}`,
      `ahead: ${INDEXED}`,
      `explain: ${INDEXED}`,
      `explain: ${SCANNING}`,
      `explained: ${INDEXED}`,
      `explained: ${SCANNING}`,
      `wait: ${SCANNING}`,
      `wait: ${INDEXED}`,
      `parse: ${SCANNING}`,
      `parse: ${INDEXED}`,
    ]);
    expect(memo.parses).toBe(2);
    expect(result.reason).toBe('estimated cost 1200 vs gold 85 row visits (×14.12 > budget ×2); 1 scan where gold uses an index (orders)');
  });
});
