import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { runLadder, type LadderInput } from '../../src/rungs/ladder.js';
import { makeDb, tempDir } from '../compare/helpers.js';

describe('runLadder with a trajectory', () => {
  let engine: SqliteEngine;
  let snapshots: LadderInput['snapshots'];
  beforeAll(() => {
    const dir = tempDir('ladder-trajectory-');
    const rows = Array.from({ length: 200 }, (_, i) => `(${i + 1}, ${i % 10}, 'note ${i}')`).join(', ');
    const db = makeDb(
      path.join(dir, 'shop.sqlite'),
      `CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'Ada'), (2, 'Bo');
       CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, note TEXT); INSERT INTO orders VALUES ${rows};
       CREATE INDEX idx_orders_customer ON orders (customer_id); ANALYZE;`,
    );
    snapshots = [{ name: 'base', path: db }];
    engine = createSqliteEngine({ poolSize: 1 });
  });
  afterAll(() => engine.close());
  const run = (output: unknown, extra: Partial<LadderInput> = {}) =>
    runLadder({ output, expectedBehavior: 'answer', golds: ['SELECT COUNT(*) FROM orders'], snapshots, dialect: 'sqlite', engine, trajectoryOptions: { budgets: {}, probeCost: true }, ...extra });

  it('a retry that succeeds: the item passes; the metrics count the initial error and the probes are costed on the fixture', async () => {
    const result = await run({
      sql: 'SELECT COUNT(*) FROM orders',
      steps: [
        { kind: 'schema', call: 'list_tables' },
        { kind: 'sql', sql: 'SELECT COUNT(*) FROM orders WHERE totl > 0', error: 'no such column: totl' },
        { kind: 'sql', sql: 'SELECT * FROM orders', rowCount: 200 },
        { kind: 'sql', sql: 'SELECT id FROM orders WHERE customer_id = 3', rowCount: 20 },
        { kind: 'answer' },
      ],
    });
    expect([result.verdict, result.endToEnd]).toEqual(['pass', 1]);
    expect(result.reason).toBe('L4_execution pass: matches');
    expect(result.trajectory).toEqual({
      metrics: { steps: 4, executions: 3, schemaCalls: 1, failedExecutions: 1, clarifications: 0, initialError: 1, rowsScanned: 220, bytesScanned: 4506, unmeasured: 1 },
      costs: [
        { step: 2, measured: false, reason: 'did not pass L1–L3: not run' },
        { step: 3, measured: true, method: 'estimate', rowsScanned: 200, bytesScanned: 4096 },
        { step: 4, measured: true, method: 'estimate', rowsScanned: 20, bytesScanned: 410 },
      ],
      breaches: [],
    });
    expect(result.results.safety?.reason).toBe('one read-only query; no unsafe construct; 3 probes checked, none unsafe');
  });

  it('one unsafe probe fails L3 naming its step, though the final query is right', async () => {
    const result = await run({ sql: 'SELECT COUNT(*) FROM orders', steps: [{ kind: 'schema' }, { kind: 'sql', sql: 'SELECT COUNT(*) FROM orders' }, { kind: 'sql', sql: 'DELETE FROM orders' }] });
    expect([result.verdict, result.endToEnd]).toEqual(['fail', 0]);
    expect(result.reason).toBe('L3_safety fail: step 3, probe 2 of 2: write_statement: DELETE is not a read-only query at 1:1 in (DELETE FROM orders); skipped: L4_execution');
    // Step 2 runs the final answer's SQL: an execution, not a probe (its cost is L6's); the DELETE is not run.
    expect(result.trajectory?.metrics).toEqual({ steps: 3, executions: 2, schemaCalls: 1, failedExecutions: 0, clarifications: 0, initialError: 0, unmeasured: 1 });
    expect(result.trajectory?.costs).toEqual([{ step: 3, measured: false, reason: 'did not pass L1–L3: not run' }]);
  });

  it('a budget gone over fails the row, naming the step; end_to_end still judges the answer', async () => {
    const result = await run(
      { sql: 'SELECT COUNT(*) FROM orders', steps: [{ kind: 'sql', sql: 'SELECT id FROM orders WHERE customer_id = 3' }, { kind: 'sql', sql: 'SELECT * FROM orders' }] },
      { trajectoryOptions: { budgets: { maxRowsScanned: 100, maxExecutions: 2 }, probeCost: true } },
    );
    expect([result.verdict, result.endToEnd]).toEqual(['fail', 1]);
    expect(result.reason).toBe('L4_execution pass: matches; trajectory over budget: maxRowsScanned 100 exceeded at step 2 (200 rows: SELECT * FROM orders); total 220 rows scanned');
  });

  it('a clarification after an unsafe probe fails L3 on a clarify item; a safe one passes with L3 listed', async () => {
    const ask = (sql: string) => run({ action: 'clarify', message: 'Which year?', steps: [{ kind: 'sql', sql }, { kind: 'clarify', message: 'Which year?' }] }, { expectedBehavior: 'clarify', golds: [] });
    const unsafe = await ask('DROP TABLE orders');
    expect([unsafe.verdict, unsafe.endToEnd, unsafe.rungs.map((rung) => `${rung.rung}:${rung.status}`)]).toEqual(['fail', 0, ['safety:fail']]);
    expect(unsafe.reason).toBe('L3_safety fail: step 1, probe 1 of 1: ddl_statement: DROP TABLE is not a read-only query at 1:1 in (DROP TABLE orders); clarify item: asked for clarification: Which year?');
    const safe = await ask('SELECT DISTINCT customer_id FROM orders');
    expect([safe.verdict, safe.endToEnd, safe.rungs.map((rung) => `${rung.rung}:${rung.status}`), safe.reason]).toEqual(['pass', 1, ['safety:pass'], 'clarify item: asked for clarification: Which year?']);
    expect(safe.trajectory?.metrics.clarifications).toBe(2);
  });

  it('without the trajectory option, the steps are still judged by L3 but not measured', async () => {
    const result = await run({ sql: 'SELECT COUNT(*) FROM orders', steps: [{ kind: 'sql', sql: 'SELECT 1' }] }, { trajectoryOptions: undefined });
    expect([result.verdict, result.trajectory, result.results.safety?.reason]).toEqual(['pass', undefined, 'one read-only query; no unsafe construct; 1 probe checked, none unsafe']);
  });

  it('SQLite never runs a plan: explain ignores analyze (a PostgreSQL field)', async () => {
    const [plain, analysed] = await Promise.all([engine.explain({ db: snapshots[0]!.path, sql: 'SELECT * FROM orders' }), engine.explain({ db: snapshots[0]!.path, sql: 'SELECT * FROM orders', analyze: true })]);
    expect(analysed).toEqual(plain);
  });

  it('a malformed step is misuse naming the step, never a verdict', async () => {
    await expect(run({ sql: 'SELECT 1', steps: [{ kind: 'sql', query: 'SELECT 1' }] })).rejects.toThrow('the output: trajectory: step 1 (sql): "query" is not a field of a sql step; fields: sql, error, rowCount');
  });
});
