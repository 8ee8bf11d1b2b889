import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { diagnoseItem, runDiagnostics, summarizeDiagnostics } from '../../src/diagnostics/diagnose.js';

const GOLD_4_2 =
  "SELECT region, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' AND status = 'paid' GROUP BY region ORDER BY total DESC LIMIT 5";
const PRED_4_2 = "SELECT region, SUM(amount) FROM orders WHERE status = 'paid' GROUP BY region ORDER BY SUM(amount) DESC LIMIT 5";

describe('diagnoseItem without an engine', () => {
  it('fills component, exact-match, AST and schema keys, leaves result keys null', async () => {
    const row = await diagnoseItem({ predictedSql: PRED_4_2, goldSqls: [GOLD_4_2], dialect: 'sqlite' });
    expect(row['components_where']).toBeCloseTo(2 / 3, 12);
    expect(row).toMatchObject({
      components_skipped: false,
      components_order_by: 1,
      components_where_n_gold: 2,
      components_where_n_pred: 1,
      components_where_n_matched: 1,
      spider_where: 0,
      spider_group: 1,
      spider_iuen: null,
      exact_match_raw: 0,
      exact_match_normalized: 0,
      ast_skipped: false,
      schema_table_recall: null,
      schema_generation_table_recall: 1,
      schema_generation_all_tables_hit: true,
      schema_miss_generation: false,
      result_skipped: true,
      result_table_similarity: null,
      query_affinity: null,
    });
  });

  it('scores retrieval against the provider\'s ranked tables at k (Text-to-SQL Evals §8)', async () => {
    const run = await runDiagnostics({
      predictedSql: 'SELECT * FROM orders',
      goldSqls: ['SELECT * FROM orders o JOIN customers c USING (customer_id)'],
      dialect: 'sqlite',
      retrieved: ['orders', 'order_items', 'products', 'regions', 'customers'],
      k: 3,
    });
    expect(run.results.map((r) => r.rung)).toEqual(['components', 'exactMatch', 'astDistance', 'schemaLinking', 'resultSimilarity']);
    expect(run.row).toMatchObject({ schema_table_recall: 0.5, schema_all_tables_hit: false, schema_miss_retrieval: true, schema_miss_generation: false });
    expect(run.row['schema_precision']).toBeCloseTo(1 / 3, 12);
  });

  it('marks every family skipped for an unparseable prediction and gives the reasons', async () => {
    const run = await runDiagnostics({ predictedSql: 'SELEC x', goldSqls: ['SELECT a FROM t'], dialect: 'sqlite' });
    expect(run.row).toMatchObject({ components_skipped: true, exact_match_skipped: true, ast_skipped: true, components_where: null, ast_similarity: null });
    expect(run.results.find((r) => r.rung === 'components')?.reason).toMatch(/^predicted SQL: parse error: /);
    // schema linking still reports the retrieval side when a list is given; here there is none
    expect(run.row['schema_generation_table_recall']).toBeNull();
  });
});

describe('diagnoseItem with the SQLite engine', () => {
  let database: TempSqlite;
  let db: string;
  let engine: Engine;

  beforeAll(() => {
    database = createTempSqlite(`
      CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT, amount INTEGER, status TEXT, created_at TEXT);
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
      INSERT INTO orders VALUES (1, 'north', 10, 'paid', '2024-02-01'), (2, 'south', 5, 'paid', '2023-05-01'),
        (3, 'north', 7, 'open', '2024-03-01'), (4, 'east', 1, 'paid', '2024-04-01');
      CREATE VIEW paid_orders AS SELECT * FROM orders WHERE status = 'paid';
    `, { prefix: 'diagnose-', name: 'shop.sqlite' });
    db = database.file;
    engine = createSqliteEngine();
  });

  afterAll(async () => {
    await engine.close();
    database.remove();
  });

  it('executes both queries for result similarity and query affinity', async () => {
    const row = await diagnoseItem({ predictedSql: PRED_4_2, goldSqls: [GOLD_4_2], dialect: 'sqlite', engine, db });
    // gold: north 10, east 1; predicted: north 10, south 5, east 1 (ordered by total desc)
    expect(row['result_row_precision']).toBeCloseTo(2 / 3, 12);
    expect(row['result_row_recall']).toBe(1);
    expect(row['result_row_f1']).toBeCloseTo(0.8, 12);
    // gold ordered: columns [north, east] vs [north, south, east]: lev 1 of 3 → 2/3 each
    expect(row['result_table_similarity']).toBeCloseTo(2 / 3, 12);
    expect(row['query_affinity']).toBeCloseTo(0.5 * (row['ast_similarity'] as number) + 0.5 * (2 / 3), 12);
  });

  it('counts the base tables a view reads as a valid gold table set', async () => {
    const run = await runDiagnostics({
      predictedSql: 'SELECT count(*) FROM orders WHERE status = \'paid\'',
      goldSqls: ['SELECT count(*) FROM paid_orders'],
      dialect: 'sqlite',
      engine,
      db,
      retrieved: ['orders', 'customers'],
    });
    expect(run.row).toMatchObject({ schema_table_recall: 1, schema_precision: 0.5, schema_generation_table_recall: 1, schema_generation_precision: 1 });
    expect(run.row['result_table_similarity']).toBe(1);
  });

  it('weights the structural part of the query affinity as asked', async () => {
    const row = await diagnoseItem({ predictedSql: PRED_4_2, goldSqls: [GOLD_4_2], dialect: 'sqlite', engine, db, weight: 1 });
    expect(row['query_affinity']).toBeCloseTo(row['ast_similarity'] as number, 12);
  });

  it('scores a prediction that fails to execute with table similarity 0', async () => {
    const row = await diagnoseItem({ predictedSql: 'SELECT nope FROM orders', goldSqls: ['SELECT id FROM orders'], dialect: 'sqlite', engine, db });
    expect(row['result_table_similarity']).toBe(0);
    expect(row['result_row_f1']).toBeNull();
  });
});

describe('summarizeDiagnostics', () => {
  it('gives macro means over non-null values and micro (pooled) component F1', () => {
    const rows = [
      { components_where: 1, components_where_n_gold: 1, components_where_n_pred: 1, components_where_n_matched: 1, exact_match_normalized: 1, schema_all_tables_hit: true, query_affinity: null },
      { components_where: 0.5, components_where_n_gold: 3, components_where_n_pred: 1, components_where_n_matched: 1, exact_match_normalized: 0, schema_all_tables_hit: false, query_affinity: 0.4 },
    ];
    const summary = summarizeDiagnostics(rows);
    expect(summary.items).toBe(2);
    expect(summary.macro).toEqual({ components_where: 0.75, exact_match_normalized: 0.5, schema_all_tables_hit: 0.5, query_affinity: 0.4 });
    expect(summary.counts).toEqual({ components_where: 2, exact_match_normalized: 2, schema_all_tables_hit: 2, query_affinity: 1 });
    // pooled: 2·(1 + 1) / ((1 + 3) + (1 + 1)) = 4/6
    expect(summary.micro['components_where']).toBeCloseTo(2 / 3, 12);
    expect(summarizeDiagnostics([])).toEqual({ items: 0, macro: {}, counts: {}, micro: {} });
  });
});
