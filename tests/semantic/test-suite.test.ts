import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { fixtureStrength } from '../../src/semantic/suite/fixture-strength.js';
import { buildTestSuite, evaluateOnSuite, suiteDatabasesFor, type TestSuite } from '../../src/semantic/suite/test-suite.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_GOLDS, SHOP_SCHEMA } from './shop-fixture.js';

let temp: TempSqlite;
let engine: SqliteEngine;
let suite: TestSuite;
const WRONG = 'SELECT COUNT(*) FROM orders';
const RIGHT = "SELECT COUNT(order_id) FROM orders WHERE status IN ('paid')";

beforeAll(async () => {
  temp = createTempSqlite(SHOP_SCHEMA, { prefix: 'ladder-suite-', name: 'base.sqlite' });
  engine = createSqliteEngine({ poolSize: 1 });
  suite = await build();
});
afterAll(async () => {
  await engine.close();
  temp.remove();
});

function build(golds: readonly string[] = [...SHOP_GOLDS, WRONG]): Promise<TestSuite> {
  return buildTestSuite({ engine, schemaDb: temp.file, golds, seed: 1, cacheDir: path.join(temp.dir, 'cache'), budget: { maxDatabases: 40, patience: 20 } });
}

describe('buildTestSuite (shop fixture: every order of the base snapshot is paid)', () => {
  it('validates its options', async () => {
    await expect(buildTestSuite({ engine, schemaDb: temp.file, golds: [] })).rejects.toThrow('golds must be a non-empty array of SQL strings');
    await expect(buildTestSuite({ engine, schemaDb: path.join(temp.dir, 'none.sqlite'), golds: ['SELECT 1'] })).rejects.toThrow(`schemaDb ${path.join(temp.dir, 'none.sqlite')} does not exist`);
    await expect(buildTestSuite({ engine, schemaDb: temp.file, golds: ['SELECT 1'], budget: { patience: 0 } })).rejects.toThrow('budget.patience must be an integer ≥ 1; received 0');
    await expect(buildTestSuite({ engine, schemaDb: temp.file, golds: ['SELECT 1'], seeds: 3 } as never)).rejects.toThrow('unknown buildTestSuite option "seeds"');
  });

  it('keeps a generated database only for neighbours the snapshot cannot tell apart, losslessly', () => {
    const [paid, join] = suite.golds;
    expect({ kept: paid!.keptIndices, neighbours: paid!.neighbours.length, bySnapshots: paid!.bySnapshots, byGenerated: paid!.byGenerated, never: paid!.undistinguished, stop: paid!.stopReason }).toEqual({
      kept: [1], neighbours: 25, bySnapshots: 21, byGenerated: 4, never: 0, stop: 'covered',
    });
    // The neighbour that drops the status filter is distinguished only by the generated database.
    expect(paid!.neighbours.find((n) => n.sql === 'SELECT COUNT(*) FROM orders')?.coverage).toEqual({ database: 'gen-1', index: 1, how: 'result', detail: 'gold [4] vs neighbour [9]' });
    expect(join!.neighbours.filter((n) => n.coverage === null).map((n) => n.sql)).toEqual([
      'SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id WHERE o.amount > 10',
    ]);
    for (const gold of suite.golds) {
      for (const n of gold.neighbours) if (n.coverage?.index != null) expect(gold.keptIndices).toContain(n.coverage.index);
    }
    expect(suite.databases.map((d) => ({ name: d.name, index: d.index, rowCounts: d.rowCounts }))).toEqual([{ name: 'gen-1', index: 1, rowCounts: { customers: 7, orders: 9 } }]);
    expect(suiteDatabasesFor(suite, [SHOP_GOLDS[0]]).map((d) => d.name)).toEqual(['base', 'gen-1']);
  });

  it('is cached by content and regenerates a lost database byte for byte', async () => {
    const again = await build();
    expect({ fromCache: again.fromCache, key: again.key }).toEqual({ fromCache: true, key: suite.key });
    const file = suite.databases[0]!.path;
    rmSync(file);
    const restored = await build();
    expect(restored.fromCache).toBe(true);
    expect(existsSync(file)).toBe(true);
    expect(restored.databases[0]!.checksum).toBe(suite.databases[0]!.checksum);
    const other = await build([SHOP_GOLDS[0]]);
    expect(other.key).not.toBe(suite.key);
  });
});

describe('evaluateOnSuite', () => {
  it('rejects a prediction that execution accuracy on the snapshot accepts, naming the database', async () => {
    const ex = await checkExecution({ predictedSql: WRONG, golds: [SHOP_GOLDS[0]], snapshots: suite.snapshots, engine });
    expect(ex.status).toBe('pass');
    const result = await evaluateOnSuite({ engine, suite, golds: [SHOP_GOLDS[0]], predictedSql: WRONG });
    expect({ status: result.status, reason: result.reason, databases: result.databases, failing: result.failing?.database, generated: result.failing?.generated }).toEqual({
      status: 'fail',
      reason: 'generated database gen-1 (customers 7, orders 9): gold [4] vs predicted [9]',
      databases: 2,
      failing: 'gen-1',
      generated: true,
    });
  });

  it('accepts an equivalent prediction', async () => {
    const result = await evaluateOnSuite({ engine, suite, golds: [SHOP_GOLDS[0]], predictedSql: RIGHT });
    expect({ status: result.status, reason: result.reason }).toEqual({ status: 'pass', reason: 'matches on all 2 databases of the test suite (1 snapshot, 1 generated)' });
  });

  it('reports golds of one item that disagree on the suite (gold ambiguity), without resolving it', async () => {
    const result = await evaluateOnSuite({ engine, suite, golds: [SHOP_GOLDS[0], WRONG], predictedSql: WRONG });
    expect(result.status).toBe('pass');
    expect(result.goldAmbiguity).toEqual([{ goldA: 0, goldB: 1, database: 'gen-1', reason: 'gold 0 [4] vs gold 1 [9]' }]);
  });

  it('refuses a gold the suite was not built with', async () => {
    await expect(evaluateOnSuite({ engine, suite, golds: ['SELECT 2'], predictedSql: 'SELECT 2' })).rejects.toThrow('gold is not in the test suite (build it with this gold): SELECT 2');
  });
});

describe('fixtureStrength', () => {
  it('is the share of neighbours distinguished, before and after the suite, with survivors', () => {
    const golds = SHOP_GOLDS.map((sql, i) => ({ sql, id: `shop-${i + 1}` }));
    const before = fixtureStrength(suite, golds, 'snapshots');
    const after = fixtureStrength(suite, golds, 'suite');
    expect(before.golds.map((g) => [g.id, g.neighbours, g.distinguished, g.survivors.length])).toEqual([['shop-1', 25, 21, 4], ['shop-2', 34, 29, 5]]);
    expect({ neighbours: before.neighbours, distinguished: before.distinguished, strength: before.strength }).toEqual({ neighbours: 59, distinguished: 50, strength: 50 / 59 });
    expect({ distinguished: after.distinguished, strength: after.strength, mean: after.meanStrength }).toEqual({ distinguished: 58, strength: 58 / 59, mean: (1 + 33 / 34) / 2 });
    expect(after.golds[1]!.survivors).toEqual([
      { kind: 'swap_join', description: '`JOIN` → `LEFT JOIN`', sql: 'SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id WHERE o.amount > 10' },
    ]);
  });
});
