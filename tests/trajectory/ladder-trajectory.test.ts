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

  it('smoke', async () => {
    const result = await run({
      sql: 'SELECT COUNT(*) FROM orders',
      steps: [
        { kind: 'schema', call: 'list_tables' },
        { kind: 'sql', sql: 'SELECT * FROM orders', rowCount: 200 },
        { kind: 'sql', sql: 'SELECT COUNT(*) FROM order', error: 'no such table' },
        { kind: 'sql', sql: 'SELECT id FROM orders WHERE customer_id = 3' },
        { kind: 'sql', sql: 'DROP TABLE orders' },
        { kind: 'answer' },
      ],
    });
    console.log(JSON.stringify(result.trajectory, null, 1), result.reason);
  });
});
