/**
 * The gates and the non-executing rungs on PostgreSQL, with the server as their authority: L1 on
 * its parse and describe (positions, name errors left to L2, SQLite habits named), L2 on its
 * catalog (search_path, quoting and case folding, views), L3's PostgreSQL rules beside an accepted
 * statement, L6 on EXPLAIN (FORMAT JSON), and L5 reported as not run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/engine.js';
import type { ResolvedFixture } from '../src/fixtures/registry.js';
import { runGates } from '../src/rungs/gates.js';
import { runLadder } from '../src/rungs/ladder.js';
import { createLadderRungs } from '../src/rungs/ladder-rungs.js';
import { checkEfficiency } from '../src/rungs/efficiency.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { createSemanticRung } from '../src/semantic/semantic-rung.js';
import { readSemanticOptions } from '../src/semantic/semantic-options.js';
import { fixturesDir, serverDir } from './helpers.js';

const bundledFixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const runtime = createLadderRuntime({ postgres: { cacheDir: serverDir, poolSize: 2 }, fixtures: { fixturesDir } });
let shop: ResolvedFixture;
let warehouse: ResolvedFixture;
let engine: Engine;
beforeAll(async () => {
  shop = await runtime.resolveFixture('pgshop');
  warehouse = await runtime.resolveFixture('warehouse_pg', undefined, { fixturesDir: bundledFixtures });
  engine = await runtime.postgresEngine();
});
afterAll(() => runtime.close());

/** `rung status | reason | issues as kind@line:column(suggestion)` for each gate. */
async function gates(sql: string): Promise<string[]> {
  const run = await runGates({ sql, dialect: 'postgres', engine, db: shop.snapshots[0]!.path });
  return [run.syntax, run.schema, run.safety].map((result) => `${result.rung} ${result.status} | ${result.reason} | ${result.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}${issue.suggestion ? `(${issue.suggestion})` : ''}`).join(' ')}`);
}

describe('L1 on PostgreSQL: the server parses and describes', () => {
  it('accepts what the server accepts, also where the AST layer needs its rewrite (WITHIN GROUP, timestamptz literals)', async () => {
    for (const sql of ['SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders', "SELECT count(*) FROM orders WHERE placed_at >= timestamptz '2024-01-01 00:00+00'"]) {
      const run = await runGates({ sql, dialect: 'postgres', engine, db: shop.snapshots[0]!.path });
      expect([run.syntax.reason, run.syntax.details, run.open]).toEqual(['one query; PostgreSQL parses and describes it', { authority: 'engine', ast: true, engineAccepted: true, statements: 1, statementType: 'select_stmt' }, true]);
    }
  });

  it.each([
    ['LIMIT offset, count', 'SELECT * FROM orders LIMIT 1, 2', 'syntax fail | PostgreSQL: LIMIT #,# syntax is not supported; wrong dialect? LIMIT offset, count is SQLite\'s (PostgreSQL: LIMIT count OFFSET offset) | syntax_error@1:22'],
    ['an integer for a boolean', 'SELECT name FROM customers WHERE vip = 1', 'syntax fail | PostgreSQL: operator does not exist: boolean = integer; wrong dialect? PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores | unknown_function@1:38'],
    ['strftime', "SELECT strftime('%Y', ordered_on) FROM orders", "syntax fail | PostgreSQL: function strftime(unknown, date) does not exist; wrong dialect? strftime(…) is SQLite's (PostgreSQL: to_char(x, 'YYYY-MM-DD'), date_trunc('month', x) or extract(year FROM x)) | unknown_function@1:8"],
    ['bracket quoting', 'SELECT [name] FROM customers', 'syntax fail | PostgreSQL: syntax error at or near "["; wrong dialect? [name] is SQLite\'s (PostgreSQL: double quotes ("name")) | syntax_error@1:8'],
    ['COLLATE NOCASE', "SELECT name FROM customers WHERE name = 'ada' COLLATE NOCASE", 'syntax fail | PostgreSQL: collation "nocase" for encoding "UTF8" does not exist; wrong dialect? COLLATE NOCASE is SQLite\'s (PostgreSQL: lower(a) = lower(b) or ILIKE for a case-blind comparison, COLLATE "C" for a binary one) | query_error@1:47'],
    ['days subtracted from a timestamptz', 'SELECT placed_at - 30 FROM orders', "syntax fail | PostgreSQL: operator does not exist: timestamp with time zone - integer; wrong dialect? PostgreSQL adds and subtracts intervals on timestamps (ts - interval '30 days'), not numbers of days | unknown_function@1:18"],
  ])('a SQLite habit is an L1 reason that says so: %s', async (_name, sql, expected) => {
    expect((await gates(sql))[0]).toBe(expected);
  });
});

describe('L2 on PostgreSQL: the catalog the reader sees, as the server resolves names', () => {
  it.each([
    ['unquoted names fold to lower case; a quoted one is exact', 'SELECT NAME, "Region Name" FROM Customers', 'schema pass | every name resolves (1 table, 2 column references) | '],
    ['the search_path (shop, public) finds shop.customers unqualified', 'SELECT c.name FROM customers c JOIN shop.orders o ON o.customer_id = c.id', 'schema pass | every name resolves (2 tables, 3 column references) | '],
    ["a view's output columns", "SELECT revenue, orders FROM v_revenue WHERE name = 'Ada'", 'schema pass | every name resolves (1 table, 3 column references) | '],
    ['a quoted name is exact, and the did-you-mean is written as it must be', 'SELECT "Name" FROM customers', 'schema fail | no such column: Name; did you mean name? at 1:8 | unknown_column@1:8(name)'],
    ['a name that needs quotes is suggested quoted', 'SELECT name, region_name FROM customers', 'schema fail | no such column: region_name; did you mean "Region Name"? at 1:14 | unknown_column@1:14("Region Name")'],
    ['a schema outside the search path must hold the table', 'SELECT name FROM public.customers', 'schema fail | no such table: public.customers; did you mean customers? at 1:18 | unknown_table@1:18(customers)'],
  ])('%s', async (_name, sql, expected) => {
    expect((await gates(sql))[1]).toBe(expected);
  });

  it('reads the search path and the tables and views with their columns from the server', async () => {
    const catalog = await engine.catalog(shop.snapshots[0]!.path);
    expect(catalog.searchPath).toEqual(['shop', 'public']);
    expect(catalog.tables.map((table) => `${table.schema}.${table.name} ${table.kind} (${table.columns.map((column) => `${column.name}${column.primaryKey ? '*' : ''} ${column.type}`).join(', ')})`)).toEqual([
      'shop.customers table (id* bigint, name text, Region Name text, vip boolean, tags text[], profile jsonb)',
      'shop.orders table (id* bigint, customer_id bigint, status order_status, ordered_on date, placed_at timestamp with time zone, total numeric(12,2), weight_kg double precision)',
      'shop.v_revenue view (name text, revenue numeric, orders bigint)',
    ]);
  });
});

describe('L3 on PostgreSQL beside a statement the server accepted', () => {
  it.each([
    ['a blocked function the server would run', 'SELECT pg_sleep(1)', 'safety fail | blocked_function: pg_sleep(): holds a connection for a chosen time at 1:8 | blocked_function@1:8'],
    ["a user's function is not on the allow-list", 'SELECT shop.net(total) FROM orders', 'safety fail | unknown_function: shop.net(): not on the postgres allow-list of pure functions at 1:8 | unknown_function@1:8'],
    ['a row lock', 'SELECT id FROM orders FOR UPDATE', 'safety fail | row_lock: FOR UPDATE locks rows; a read-only query takes no row locks at 1:23 | row_lock@1:23'],
    ['a system view', 'SELECT query FROM pg_stat_activity', 'safety fail | system_table: pg_stat_activity: PostgreSQL system catalog (server and session internals) at 1:19 | system_table@1:19'],
  ])('%s', async (_name, sql, expected) => {
    expect((await gates(sql))[2]).toBe(expected);
  });
});

describe('L6 on PostgreSQL: the planner cost and rows of EXPLAIN (FORMAT JSON) against the gold', () => {
  const passed = { status: 'pass' as const };
  const l6 = (predictedSql: string, goldSql: string): ReturnType<typeof checkEfficiency> => checkEfficiency({ predictedSql, goldSql, snapshot: warehouse.snapshots[0]!.path, engine, execution: passed });

  it('passes a prediction within the budget, naming both estimates in PostgreSQL units', async () => {
    const result = await l6("SELECT COUNT(*) FROM orders WHERE order_date >= '2025-06-01' AND order_date < '2025-07-01'", "SELECT COUNT(*) AS orders FROM orders WHERE order_date BETWEEN '2025-06-01' AND '2025-06-30'");
    expect(result.status).toBe('pass');
    expect(result.reason).toMatch(/^estimated cost [\d.]+ vs gold [\d.]+ PostgreSQL cost units \(×[\d.]+ ≤ budget ×2\); estimated rows 1 vs gold 1$/);
    expect(result.details?.statistics).toBe('pg_statistic');
  });

  it('fails a prediction that scans the table where the gold searches its index', async () => {
    const result = await l6("SELECT COUNT(*) FROM orders WHERE to_char(order_date, 'YYYY-MM') = '2025-06'", "SELECT COUNT(*) AS orders FROM orders WHERE order_date BETWEEN '2025-06-01' AND '2025-06-30'");
    expect(result.status).toBe('fail');
    expect(result.reason).toMatch(/^estimated cost [\d.]+ vs gold [\d.]+ PostgreSQL cost units \(×[\d.]+ > budget ×2\); 1 scan where gold uses an index \(orders\); estimated rows 1 vs gold 1$/);
    expect(result.issues[0]).toEqual({ kind: 'scan_where_gold_uses_index', message: expect.stringMatching(/^predicted reads orders in full \(plan step \d+\); gold searches it with idx_orders_order_date \(\)$/) });
    expect(result.details?.predicted.plan.map((step) => step.detail)).toContain('Seq Scan on orders');
  });

  it('counts a correlated subquery (a SubPlan) where the gold has none', async () => {
    const result = await l6(
      'SELECT c.customer_id, (SELECT count(*) FROM orders o WHERE o.customer_id = c.customer_id) FROM customers c',
      'SELECT c.customer_id, count(o.order_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id',
    );
    expect([result.details?.comparison.predicted.correlatedSubqueries, result.details?.comparison.gold.correlatedSubqueries]).toEqual([1, 0]);
  });
});

describe('L5 on a PostgreSQL item', () => {
  it('says it was not run and why, and end_to_end follows L4', async () => {
    const result = await runLadder(
      { output: 'SELECT COUNT(*) FROM products', expectedBehavior: 'answer', golds: ['SELECT COUNT(*) AS product_count FROM products'], snapshots: warehouse.snapshots, dialect: 'postgres', engine },
      createLadderRungs({ semantic: createSemanticRung(readSemanticOptions(true), runtime.semantic()) }),
    );
    expect(result.results.semantic).toMatchObject({
      status: 'skipped',
      reason: 'not run: L5 builds its test-suite and counterexample databases as SQLite files, so it runs on SQLite items only; this item is PostgreSQL (L4 alone decides end_to_end)',
    });
    expect([result.verdict, result.endToEnd]).toEqual(['pass', 1]);
  });
});
