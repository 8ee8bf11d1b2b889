import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { schemaLinking } from '../../assertions/schema-linking.js';

let database: TempSqlite;
let dbPath: string;

beforeAll(() => {
  database = createTempSqlite(`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total INTEGER);
           CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT);
           CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 100;`, { prefix: 'schema-linking-', name: 'shop.sqlite' });
  dbPath = database.file;
});

afterAll(async () => {
  await closeSharedEngine();
  database.remove();
});

const GOLD = 'SELECT * FROM orders o JOIN customers c USING (customer_id)';
const OUTPUT = JSON.stringify({ sql: 'SELECT * FROM orders', tables: ['orders', 'order_items', 'products', 'regions', 'customers'] });

describe('schemaLinking assertion', () => {
  it('reproduces Text-to-SQL Evals §8 at k=5 and k=3 from the provider output', async () => {
    const k5 = await schemaLinking(OUTPUT, { vars: { gold_sql: GOLD }, config: { k: 5 } });
    expect(k5.namedScores).toMatchObject({ schemaLinking: 1, schema_table_recall: 1, schema_all_tables_hit: 1, schema_precision: 0.4 });
    expect(k5.pass).toBe(true);
    const k3 = await schemaLinking(OUTPUT, { vars: { gold_sql: GOLD }, config: { k: 3 } });
    expect(k3.namedScores).toMatchObject({ schemaLinking: 0.5, schema_table_recall: 0.5, schema_all_tables_hit: 0 });
    expect(k3.reason).toBe('retrieval@3: recall 0.50, precision 0.33; generation: recall 0.50, precision 1.00; missed customers (retrieval)');
  });

  it('with a database, counts the base tables behind a view', async () => {
    const result = await schemaLinking(JSON.stringify({ sql: 'SELECT id FROM orders WHERE total > 100', tables: ['orders'] }), {
      vars: { gold_sql: 'SELECT id FROM big_orders', db_path: dbPath },
    });
    expect(result.namedScores).toMatchObject({ schema_table_recall: 1, schema_generation_table_recall: 1 });
  });

  it('rejects a k that is not a positive integer', async () => {
    await expect(schemaLinking(OUTPUT, { vars: { gold_sql: GOLD }, config: { k: 0 } })).rejects.toThrow(/config\.k/);
  });
});
