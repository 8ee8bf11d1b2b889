/**
 * The PostgreSQL twin of the bundled warehouse: fixture warehouse_pg holds the SQLite fixture's
 * rows in PostgreSQL types, and datasets/warehouse_pg.yaml with its recorded runs grades as the
 * SQLite main job does, item by item, but for the differences the twin is made to show.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell, Engine } from '../src/engine/engine.js';
import { isTypedCell } from '../src/engine/cells.js';
import { loadDataset } from '../src/dataset/load.js';
import { EfficiencyCache } from '../src/efficiency/efficiency-cache.js';
import type { ResolvedFixture } from '../src/fixtures/registry.js';
import { runLadder, type LadderResult } from '../src/rungs/ladder.js';
import { createLadderRungs } from '../src/rungs/ladder-rungs.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { serverDir, testDir } from './helpers.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const runtime = createLadderRuntime({ postgres: { cacheDir: serverDir, poolSize: 2 }, fixtures: { fixturesDir: path.join(ROOT, 'fixtures'), cacheDir: path.join(testDir, 'fixtures') } });
let twin: ResolvedFixture;
let warehouse: ResolvedFixture;
beforeAll(async () => {
  [twin, warehouse] = await Promise.all([runtime.resolveFixture('warehouse_pg'), runtime.resolveFixture('warehouse')]);
});
afterAll(() => runtime.close());

/** A cell as the SQLite fixture stores it: booleans as 0 / 1, money as a number, instants as UTC text. */
function asSqlite(cell: Cell): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'boolean') return cell ? '1' : '0';
  if (isTypedCell(cell)) {
    if (cell.kind === 'decimal') return String(Number(cell.text));
    if (cell.kind === 'temporal') return cell.text.replace(/\+00$/, '');
  }
  return String(cell);
}

const TABLES: Readonly<Record<string, string>> = { regions: 'region_id', customers: 'customer_id', users: 'user_id', products: 'product_id', orders: 'order_id', order_items: 'order_item_id', refunds: 'refund_id' };

describe('the twin fixture', () => {
  it('holds the rows of the SQLite warehouse, table by table, on every snapshot', async () => {
    const [pg, sqlite] = await Promise.all([runtime.postgresEngine(), Promise.resolve(runtime.engine())]);
    const rows = async (engine: Engine, db: string, table: string): Promise<string[]> => {
      const outcome = await engine.execute({ db, sql: `SELECT * FROM ${table} ORDER BY ${TABLES[table]}` });
      if (!outcome.ok) throw new Error(outcome.error.message);
      return outcome.result.rows.map((row) => row.map((cell) => (typeof cell === 'number' ? String(cell) : asSqlite(cell))).join('|'));
    };
    const counts: string[] = [];
    for (const [index, snapshot] of twin.snapshots.entries()) {
      for (const table of Object.keys(TABLES)) {
        const [a, b] = await Promise.all([rows(pg, snapshot.path, table), rows(sqlite, warehouse.snapshots[index]!.path, table)]);
        expect(a, `${snapshot.name}.${table}`).toEqual(b);
        counts.push(`${snapshot.name}.${table} ${a.length}`);
      }
    }
    expect(counts).toEqual([
      'base.regions 5', 'base.customers 30', 'base.users 40', 'base.products 12', 'base.orders 1200', 'base.order_items 2400', 'base.refunds 31',
      'later.regions 5', 'later.customers 33', 'later.users 43', 'later.products 12', 'later.orders 1600', 'later.order_items 3200', 'later.refunds 45',
      'edge.regions 5', 'edge.customers 34', 'edge.users 44', 'edge.products 12', 'edge.orders 1217', 'edge.order_items 2419', 'edge.refunds 63',
    ]);
  });

  it('declares its columns in PostgreSQL types and its views as security_invoker', async () => {
    const pg = await runtime.postgresEngine();
    const catalog = await pg.catalog(twin.snapshots[0]!.path);
    const types = (table: string): string => catalog.tables.find((t) => t.name === table)!.columns.map((c) => `${c.name} ${c.type}`).join(', ');
    expect(types('orders')).toBe('order_id integer, customer_id integer, user_id integer, order_date date, ordered_at timestamp with time zone, status text, channel text, order_total numeric(12,2), deleted_at timestamp with time zone');
    expect(types('customers')).toBe('customer_id integer, name text, segment text, region_id integer, signup_date date, is_test boolean, deleted_at timestamp with time zone');
    const options = await pg.execute({ db: twin.snapshots[0]!.path, sql: "SELECT relname, array_to_string(reloptions, ',') FROM pg_class WHERE relkind = 'v' AND relnamespace = 'public'::regnamespace ORDER BY relname" });
    expect(options).toMatchObject({ ok: true, result: { rows: [['v_customer_contacts', 'security_invoker=true'], ['v_order_revenue', 'security_invoker=true'], ['v_real_customers', 'security_invoker=true']] } });
  });
});

/** The ladder of the main job (L6 and L7 on) over one dataset and one recording: item id → result. */
async function grade(dataset: string, recording: string, fixture: ResolvedFixture, engine: Engine): Promise<Map<string, LadderResult>> {
  const { items } = await loadDataset(path.join(ROOT, 'datasets', dataset));
  const outputs = new Map(readFileSync(path.join(ROOT, 'providers', 'recordings', recording), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; output: string }).map((row) => [row.id, row.output]));
  const efficiencyCache = new EfficiencyCache();
  const results = new Map<string, LadderResult>();
  for (const item of items) {
    const snapshots = item.role === undefined ? fixture.snapshots : (await runtime.resolveFixture(item.db, item.role)).snapshots;
    results.set(
      item.id,
      await runLadder(
        { output: outputs.get(item.id), expectedBehavior: item.expected_behavior, golds: item.gold_sql, snapshots, dialect: engine.dialect, engine, question: item.question, executionCache: runtime.goldCache, efficiencyCache, efficiencyOptions: {}, ...(item.as_of_date === undefined ? {} : { asOfDate: item.as_of_date }) },
        createLadderRungs({ efficiency: true, answer: true }),
      ),
    );
  }
  return results;
}

/** `verdict end_to_end rung:status…`, the shape compared between the twins. */
function shape(result: LadderResult): string {
  return `${result.verdict} ${String(result.endToEnd)} ${result.rungs.map((rung) => `${rung.rung}:${rung.status}`).join(' ')}`;
}

describe('the twin dataset and its recorded runs', () => {
  it.each([
    ['strong', 64, { 'wh-027': 'pass 1 syntax:pass schema:pass safety:pass execution:pass efficiency:pass' }],
    [
      'weak',
      // 22: the recorded trajectory's scratch-table write fails wh-010's L3 on both engines.
      22,
      {
        'wh-012': 'fail 0 syntax:fail schema:skipped safety:pass execution:skipped efficiency:skipped',
        'wh-038': 'fail 0 syntax:fail schema:skipped safety:pass execution:skipped efficiency:skipped answer:skipped',
        'wh-043': 'fail 0 syntax:fail schema:skipped safety:fail execution:skipped efficiency:skipped',
      },
    ],
  ] as const)('%s: grades as on SQLite item by item, but for the items the twin changes', async (model, endToEnd, differences) => {
    const [pgResults, sqliteResults] = await Promise.all([
      runtime.postgresEngine().then((engine) => grade('warehouse_pg.yaml', `warehouse_pg-${model}.jsonl`, twin, engine)),
      grade('warehouse.yaml', `warehouse-${model}.jsonl`, warehouse, runtime.engine()),
    ]);
    const changed: Record<string, string> = {};
    for (const [id, result] of pgResults) if (shape(result) !== shape(sqliteResults.get(id)!)) changed[id] = shape(result);
    expect(changed).toEqual(differences);
    expect([...pgResults.values()].filter((result) => result.endToEnd === 1).length).toBe(endToEnd);
    // The wrong-dialect items say so.
    if (model === 'weak') {
      expect(pgResults.get('wh-043')!.reason).toContain("wrong dialect? strftime(…) is SQLite's");
      expect(pgResults.get('wh-012')!.reason).toContain('PostgreSQL booleans compare with true / false');
    }
  });
});
