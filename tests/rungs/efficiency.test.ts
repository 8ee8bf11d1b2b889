import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempSqlite } from '../helpers/temp-sqlite.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine, ExplainOutcome } from '../../src/engine/engine.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { checkEfficiency, readEfficiencyOptions } from '../../src/rungs/efficiency.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { createLadderRungs } from '../../src/rungs/ladder-rungs.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import { isLadderError } from '../../src/errors.js';

// The bundled warehouse fixture, snapshot `base`: orders has 1200 rows, sqlite_stat1 holds
// `orders idx_orders_order_date 1200 3` (ANALYZE at build time).
// Question: "How many orders were placed in March 2025?" Two correct answers:
const INDEXED = "SELECT count(*) FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
const SCANNING = "SELECT count(*) FROM orders WHERE substr(order_date, 1, 7) = '2025-03'";
const PASSED = { status: 'pass' } as const;

let engine: Engine;
let db: string;
let snapshots: { name: string; path: string; checksum?: string }[];

beforeAll(async () => {
  engine = createSqliteEngine();
  const fixture = await resolveFixture('warehouse');
  snapshots = fixture.snapshots;
  db = snapshots[0]!.path;
});
afterAll(async () => {
  await engine.close();
});

describe('checkEfficiency: options (misuse throws)', () => {
  it.each([
    [{ budgetFactor: 0.5 }, 'efficiency.budgetFactor must be a finite number ≥ 1 (allowed predicted/gold cost ratio); received a number (0.5)'],
    [{ budgetFactor: Number.NaN }, 'efficiency.budgetFactor must be a finite number ≥ 1 (allowed predicted/gold cost ratio); received a number (NaN)'],
    [{ failOnProxies: ['fullscans'] }, 'efficiency.failOnProxies must be a list of fullScans, scansWhereGoldUsesIndex, tempBTrees, automaticIndexes, correlatedSubqueries; received an array (["fullscans"])'],
    [{ timing: { runs: 0 } }, 'efficiency.timing.runs must be a positive integer; received a number (0)'],
  ])('%j', async (options, message) => {
    const run = checkEfficiency({ predictedSql: INDEXED, goldSql: INDEXED, snapshot: '/nonexistent.db', engine: {} as Engine, execution: PASSED, options: options as never });
    await expect(run).rejects.toSatisfy((error: unknown) => isLadderError(error, 'invalid_option'));
    await expect(run).rejects.toThrow(message);
  });
  it('readEfficiencyOptions rejects unknown options and bad kinds', () => {
    expect(() => readEfficiencyOptions({ budget: 2 })).toThrow('efficiency.budget is not an option (did you mean efficiency.budgetFactor?); known options: budgetFactor, failOnProxies, timing, doubleQuotes');
    expect(() => readEfficiencyOptions({ timing: 5 })).toThrow('efficiency.timing must be true, false or { runs, timeoutMs }; received a number (5)');
    expect(readEfficiencyOptions(true)).toEqual({});
  });
});

describe('checkEfficiency: only for correct queries', () => {
  it.each(['fail', 'skipped', 'unscored'] as const)('is skipped when L4 is %s (a wrong fast query must not look efficient)', async (status) => {
    const result = await checkEfficiency({ predictedSql: 'SELECT 0', goldSql: INDEXED, snapshot: db, engine, execution: { status } });
    expect(result).toMatchObject({ rung: 'efficiency', status: 'skipped', reason: `execution did not match (L4 ${status}); efficiency is scored only for correct queries` });
  });
  it('is unscored when a plan cannot be read', async () => {
    const failing: Engine = {
      ...engine,
      explain: async (): Promise<ExplainOutcome> => ({ ok: false, error: { code: 'unknown_table', message: 'no such table: x' } }),
      execute: engine.execute.bind(engine),
    };
    const result = await checkEfficiency({ predictedSql: INDEXED, goldSql: INDEXED, snapshot: db, engine: failing, execution: PASSED });
    expect(result).toMatchObject({ status: 'unscored', reason: 'gold plan unavailable: unknown_table: no such table: x' });
  });
});

describe('acceptance: warehouse, one question, a scanning and an indexed correct query', () => {
  it('both are correct (L4 passes for each against the other)', async () => {
    const l4 = await checkExecution({ predictedSql: SCANNING, golds: [INDEXED], snapshots, engine });
    expect(l4.status).toBe('pass');
  });

  it('get different proxies and cost estimates, and the scanning one fails the budget', async () => {
    const result = await checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine, execution: PASSED });
    expect(result.status).toBe('fail');
    // full scan of orders: 1200; indexed: 1200 / 4² = 75 rows + log2(1200) = 85.23 → 85
    expect(result.reason).toBe('estimated cost 1200 vs gold 85 row visits (×14.12 > budget ×2); 1 scan where gold uses an index (orders)');
    const details = result.details!;
    expect(details.statistics).toBe('sqlite_stat1');
    // substr() defeats the index's order: SQLite reads the whole (covering) index, all 1200 entries
    expect(details.predicted.plan.map((s) => s.detail)).toEqual(['SCAN orders USING COVERING INDEX idx_orders_order_date']);
    expect(details.gold.plan.map((s) => s.detail)).toEqual(['SEARCH orders USING COVERING INDEX idx_orders_order_date (order_date>? AND order_date<?)']);
    expect(details.comparison).toEqual({
      predicted: { fullScans: 1, scansWhereGoldUsesIndex: 1, tempBTrees: 0, automaticIndexes: 0, correlatedSubqueries: 0 },
      gold: { fullScans: 0, scansWhereGoldUsesIndex: 0, tempBTrees: 0, automaticIndexes: 0, correlatedSubqueries: 0 },
      scansWhereGoldUsesIndex: [{ table: 'orders', predictedStepId: details.predicted.plan[0]!.id, goldIndex: 'idx_orders_order_date', goldConstraint: 'order_date>? AND order_date<?' }],
      predictedCost: 1200,
      goldCost: 85,
      costRatio: 1200 / 85,
    });
    expect(details.budget).toEqual({ withinBudget: false, allowedCost: 170, proxyViolations: [], factor: 2, failOnProxies: [] });
    expect(result.issues.map((issue) => issue.kind)).toEqual(['scan_where_gold_uses_index', 'full_scan']);
    expect(details.timing).toBeNull();
  });

  it('the indexed query passes against the scanning gold', async () => {
    const result = await checkEfficiency({ predictedSql: INDEXED, goldSql: SCANNING, snapshot: db, engine, execution: PASSED });
    expect(result.status).toBe('pass');
    expect(result.reason).toBe('estimated cost 85 vs gold 1200 row visits (×0.07 ≤ budget ×2)');
  });

  it('gives the same proxies and estimates on every run', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine, execution: PASSED })));
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it('a generous budget passes on cost, failOnProxies still fails on the scan', async () => {
    const generous = await checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine, execution: PASSED, options: { budgetFactor: 20 } });
    expect(generous.status).toBe('pass');
    const strict = await checkEfficiency({ predictedSql: SCANNING, goldSql: INDEXED, snapshot: db, engine, execution: PASSED, options: { budgetFactor: 20, failOnProxies: ['scansWhereGoldUsesIndex'] } });
    expect(strict.status).toBe('fail');
    expect(strict.reason).toBe('estimated cost 1200 vs gold 85 row visits (×14.12 ≤ budget ×20); 1 scan where gold uses an index (orders); more scansWhereGoldUsesIndex than gold');
  });

  it('reports BIRD timing from an injected source without changing the verdict', async () => {
    const timings = { predicted: [4, 4, 4, 4], gold: [2, 2, 2, 4] }; // ratios 0.5, 0.5, 0.5, 1 → mean 0.625, σ 0.2165: all kept
    const result = await checkEfficiency({
      predictedSql: SCANNING,
      goldSql: INDEXED,
      snapshot: db,
      engine,
      execution: PASSED,
      options: { timing: { runs: 4, source: async (role, run) => timings[role][run]! } },
    });
    expect(result.status).toBe('fail');
    expect(result.details!.timing).toEqual({ ok: true, runs: 4, ratio: 0.625, removedOutliers: 0, vesTerm: Math.sqrt(0.625) * 100, rvesReward: 0.75 });
  });
});

describe('plans through views', () => {
  it('resolves the aliases written inside a view definition (no table falls back to default statistics)', async () => {
    const sql = "SELECT round(sum(net_revenue), 2) FROM v_order_revenue WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
    const result = await checkEfficiency({ predictedSql: sql, goldSql: sql, snapshot: db, engine, execution: PASSED });
    const analysis = result.details!.predicted.analysis;
    expect(analysis.cost.defaultedTables).toEqual([]);
    expect(analysis.proxies.searches.map((search) => [search.name, search.table, search.access])).toEqual([
      ['o', 'orders', 'rowid-search'],
      ['c', 'customers', 'rowid-search'],
    ]);
    expect(analysis.proxies.automaticIndexes.map((index) => [index.table, index.constraint])).toEqual([['rf', 'order_id=?']]);
    expect(result.status).toBe('pass');
  });
});

describe('a database never analyzed', () => {
  it("says which tables fell back to SQLite's default row count", async () => {
    const database = createTempSqlite('CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER); CREATE INDEX t_k ON t(k); INSERT INTO t VALUES (1, 1), (2, 2);', { prefix: 'l6-', name: 'plain.sqlite' });
    const file = database.file;
    try {
      const result = await checkEfficiency({ predictedSql: 'SELECT id FROM t WHERE k + 0 = 1', goldSql: 'SELECT id FROM t WHERE k = 1', snapshot: file, engine, execution: PASSED });
      // SCAN t: 1 048 576; SEARCH t USING COVERING INDEX t_k (k=?): 10 (no stats) + log2(1 048 576) = 30
      expect(result.reason).toBe(
        "estimated cost 1048576 vs gold 30 row visits (×34952.53 > budget ×2); 1 scan where gold uses an index (t); no sqlite_stat1 rows for t (SQLite's default of 1048576 rows assumed)",
      );
      expect(result.details?.statistics).toBe('none');
    } finally {
      database.remove();
    }
  });
});

describe('L6 on the ladder (only: execution, efficiency)', () => {
  const run = (sql: string, golds: string[]) =>
    runLadder({ sql, expectedBehavior: 'answer', golds, snapshots, dialect: 'sqlite', engine, only: ['execution', 'efficiency'] }, createLadderRungs({ efficiency: true }));

  it('compares with the gold L4 matched, on the first snapshot', async () => {
    const result = await run(SCANNING, ['SELECT 1', INDEXED]);
    expect([result.results.execution?.status, result.results.execution?.details?.goldIndex]).toEqual(['pass', 1]);
    expect(result.results.efficiency?.details?.comparison.goldCost).toBe(85);
  });

  it('is skipped after an L4 that did not pass, naming the status of L4', async () => {
    const failed = await run('SELECT 2', [INDEXED]);
    expect([failed.results.efficiency?.status, failed.results.efficiency?.reason]).toEqual(['skipped', 'L4_execution fail']);
    const unscored = await run(SCANNING, []);
    expect([unscored.results.efficiency?.status, unscored.results.efficiency?.reason]).toEqual(['skipped', 'L4_execution unscored']);
  });
});
