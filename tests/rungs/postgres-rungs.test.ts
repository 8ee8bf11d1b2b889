/**
 * The rungs' PostgreSQL paths without a server: L1 with a PostgreSQL engine as its authority (a
 * stub that answers as the server does), L3's token reading of text the grammar lacks, L6's
 * reading of EXPLAIN (FORMAT JSON) plan steps, the gold checks on PostgreSQL golds, L5 out of
 * end_to_end when it is not run, and the runtime's choice of server (nothing connects: the
 * PostgreSQL engine starts or reaches its server on first use only).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Engine, ExecuteRequest, ExecutionOutcome, PlanStep } from '../../src/engine/engine.js';
import { checkSyntax } from '../../src/rungs/syntax.js';
import { checkSafety } from '../../src/rungs/safety.js';
import { analyzePostgresPlan } from '../../src/efficiency/postgres-plan.js';
import { runGoldChecks } from '../../src/compare/gold-checks.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { LADDER_RUNGS, type LadderRungTable } from '../../src/rungs/ladder-rungs.js';
import { createRungResult, createSkippedResult } from '../../src/rungs/rung-result.js';
import { createLadderRuntime, describeServer, POSTGRES_URL_ENV } from '../../src/runtime/ladder-runtime.js';
import { isLadderError } from '../../src/errors.js';

/** An engine that answers `prepare` as PostgreSQL would, from a table of texts. */
function stubPostgres(answers: Record<string, ExecutionOutcome>): Engine {
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    dialect: 'postgres',
    prepare: async (request: ExecuteRequest) => answers[request.sql] ?? { ok: true, result: { columns: ['x'], rows: [], doubleQuoteFallback: false, executedSql: request.sql, elapsedMs: 0 } },
    execute: unused,
    explain: unused,
    catalog: unused,
    close: async () => undefined,
  };
}

describe('L1 with PostgreSQL as the authority', () => {
  const engine = stubPostgres({
    'SELECT nme FROM t': { ok: false, error: { code: 'unknown_column', message: 'column "nme" does not exist', engineCode: '42703', position: 8 } },
    'SELECT a FROM t\nWHERE b = 1': { ok: false, error: { code: 'unknown_function', message: 'operator does not exist: boolean = integer', engineCode: '42883', position: 25 } },
    'SELECT a FROM t FOR UPDATE': { ok: false, error: { code: 'not_a_query', message: 'not a query: PostgreSQL describes the statement as returning no rows; only SELECT, WITH … SELECT, VALUES and TABLE run' } },
  });

  it('passes what the server parses and describes', async () => {
    const result = await checkSyntax({ sql: 'SELECT mode() WITHIN GROUP (ORDER BY a) FROM t', dialect: 'postgres', engine, db: 'shop' });
    expect([result.status, result.reason, result.details]).toEqual(['pass', 'one query; PostgreSQL parses and describes it', { authority: 'engine', ast: true, engineAccepted: true, statements: 1, statementType: 'select_stmt' }]);
  });

  it('leaves a name error to L2', async () => {
    const result = await checkSyntax({ sql: 'SELECT nme FROM t', dialect: 'postgres', engine, db: 'shop' });
    expect([result.status, result.reason, result.details.engineAccepted]).toEqual(['pass', 'one query; PostgreSQL parses it and fails on a name (column "nme" does not exist), which L2 reports', false]);
  });

  it('fails with the server message at its position, and names the SQLite habit', async () => {
    const result = await checkSyntax({ sql: 'SELECT a FROM t\nWHERE b = 1', dialect: 'postgres', engine, db: 'shop' });
    expect([result.status, result.reason, result.issues]).toEqual([
      'fail',
      'PostgreSQL: operator does not exist: boolean = integer; wrong dialect? PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores',
      [{ kind: 'unknown_function', message: 'operator does not exist: boolean = integer; wrong dialect? PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores', line: 2, column: 9 }],
    ]);
  });

  it('refuses an engine of another dialect', async () => {
    await expect(checkSyntax({ sql: 'SELECT 1', dialect: 'sqlite', engine, db: 'shop' })).rejects.toThrow('engine runs postgres; it cannot decide L1 for dialect sqlite');
  });
});

describe('L3 on PostgreSQL text the AST layer cannot read', () => {
  it('passes as not analysed when the server accepted it and its tokens show nothing; fails closed under a policy', () => {
    // `overlay(… placing … from …)`: valid PostgreSQL the grammar does not read.
    const sql = "SELECT overlay(a placing 'x' from 2) FROM t";
    const result = checkSafety({ sql, dialect: 'postgres', engineAccepted: true });
    expect([result.status, result.details.analysed]).toEqual(['pass', false]);
    expect(result.reason).toMatch(/^passed by engine, not analysed: PostgreSQL described it as one statement returning rows/);
    expect(checkSafety({ sql, dialect: 'postgres', engineAccepted: true, policy: { maxLimit: 10 } }).status).toBe('fail');
  });

  it('fails a blocked function found in the tokens, and fails closed without the server', () => {
    expect(checkSafety({ sql: 'SELECT pg_read_file(x) FROM t WHERE [', dialect: 'postgres', engineAccepted: true }).reason).toBe('blocked_function: pg_read_file(): reads a file from the server at 1:8');
    expect(checkSafety({ sql: 'SELECT a FROM t WHERE [', dialect: 'postgres' }).issues.map((issue) => issue.kind)).toEqual(['not_analysed']);
  });
});

describe('L6 reads PostgreSQL plans', () => {
  const plan: PlanStep[] = [
    { id: 1, parent: 0, detail: 'Sort', estimate: { rows: 30, cost: 120.5 } },
    { id: 2, parent: 1, detail: 'Hash Join', estimate: { rows: 30, cost: 110.25 } },
    { id: 3, parent: 2, detail: 'Seq Scan on orders o', relation: 'orders', estimate: { rows: 1200, cost: 80 } },
    { id: 4, parent: 2, detail: 'Bitmap Heap Scan on customers c', relation: 'customers', estimate: { rows: 30, cost: 12 } },
    { id: 5, parent: 4, detail: 'Bitmap Index Scan on idx_customers_region', index: 'idx_customers_region', estimate: { rows: 30, cost: 4 } },
    { id: 6, parent: 2, detail: 'Aggregate', subplan: 'SubPlan 1', estimate: { rows: 1, cost: 3 } },
    { id: 7, parent: 6, detail: 'Index Only Scan using refunds_pkey on refunds r', relation: 'refunds', index: 'refunds_pkey', estimate: { rows: 1, cost: 2 } },
  ];

  it('takes the planner cost and rows of the top node, and counts scans, searches, sorts and correlated subplans', () => {
    const analysis = analyzePostgresPlan(plan);
    expect(analysis.cost).toMatchObject({ total: 120.5, rows: 30, unit: 'PostgreSQL cost units', defaultedTables: [] });
    expect(analysis.proxies.fullScans).toEqual([{ stepId: 3, name: 'o', table: 'orders', access: 'table-scan', index: null }]);
    expect(analysis.proxies.searches.map((search) => `${search.table} ${search.index}`)).toEqual(['customers idx_customers_region', 'refunds refunds_pkey']);
    expect(analysis.proxies.tempBTrees).toEqual([{ stepId: 1, purpose: 'ORDER BY' }]);
    expect(analysis.proxies.correlatedSubqueries).toEqual([{ stepId: 6, form: 'scalar' }]);
    expect(analysis.proxies.automaticIndexes).toEqual([]);
  });
});

describe('gold checks on PostgreSQL golds', () => {
  it.each([
    ['SELECT count(*) FROM orders WHERE order_date > now() - interval \'30 days\'', ['clock_dependent_gold now()']],
    ["SELECT count(*) FROM orders WHERE order_date >= 'today'::date - 7", ["clock_dependent_gold 'today'"]],
    ['SELECT count(*) FROM orders WHERE order_date = CURRENT_DATE', ['clock_dependent_gold CURRENT_DATE']],
    ["SELECT count(*) FROM orders WHERE order_date >= date '2025-06-15' - 30", []],
    ["SELECT (ordered_at AT TIME ZONE 'Asia/Singapore')::date FROM orders", []],
    ['SELECT random() FROM t', ['random_dependent_gold random()']],
  ])('%s', (sql, expected) => {
    expect(runGoldChecks({ golds: [sql], dialect: 'postgres' }).map((finding) => `${finding.kind} ${finding.construct}`)).toEqual(expected);
  });
});

describe('a skipped L5 does not count in end_to_end', () => {
  it('an item whose L5 was not run is end-to-end correct when the gates and L4 pass', async () => {
    const engine = stubPostgres({});
    const table: LadderRungTable = {
      ...LADDER_RUNGS,
      syntax: async () => createRungResult({ rung: 'syntax', status: 'pass', reason: 'ok', details: { authority: 'parser', ast: true, engineAccepted: false } }),
      schema: async () => createRungResult({ rung: 'schema', status: 'pass', reason: 'ok', details: { analysed: true, tables: [], unresolved: [], columnsChecked: 0, findings: [] } }),
      safety: async () => checkSafety({ sql: 'SELECT 1', dialect: 'postgres' }),
      execution: { ...LADDER_RUNGS.execution, run: async () => createRungResult({ rung: 'execution', status: 'pass', reason: 'matches', details: null }) },
      semantic: { listed: () => true, endToEnd: true, run: async () => createSkippedResult('semantic', 'not run: PostgreSQL') },
    };
    const result = await runLadder({ output: 'SELECT 1', expectedBehavior: 'answer', golds: ['SELECT 1'], snapshots: [{ name: 'base', path: 'shop', engine: 'postgres' }], dialect: 'postgres', engine }, table);
    expect([result.verdict, result.endToEnd, result.results.semantic?.status]).toEqual(['pass', 1, 'skipped']);
  });
});

describe('the runtime picks one PostgreSQL server', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('a configured URL wins over the environment, which wins over the private server', async () => {
    vi.stubEnv(POSTGRES_URL_ENV, ' postgres://env@db.example:5433/ladder ');
    vi.stubEnv('DATABASE_URL', 'postgres://app:secret@prod.example/app');
    const fromEnv = createLadderRuntime();
    expect((await fromEnv.postgresEngine()).options.url).toBe('postgres://env@db.example:5433/ladder');
    const configured = createLadderRuntime({ postgres: { url: 'postgres://cfg@db.example/ladder' } });
    expect((await configured.postgresEngine()).options.url).toBe('postgres://cfg@db.example/ladder');
    vi.stubEnv(POSTGRES_URL_ENV, '');
    const privateServer = createLadderRuntime();
    expect((await privateServer.postgresEngine()).options.url).toBeUndefined();
    await Promise.all([fromEnv.close(), configured.close(), privateServer.close()]);
  });

  it('usePostgres sets the server before first use; the same again is a no-op; another one after is refused without passwords', async () => {
    vi.stubEnv(POSTGRES_URL_ENV, '');
    const runtime = createLadderRuntime();
    runtime.usePostgres({ url: 'postgres://ladder:s3cret@db.example/shop', databases: 'existing' });
    const engine = await runtime.postgresEngine();
    expect([engine.options.url, engine.options.databases]).toEqual(['postgres://ladder:s3cret@db.example/shop', 'existing']);
    runtime.usePostgres({ url: 'postgres://ladder:s3cret@db.example/shop', databases: 'existing' });
    expect(await runtime.engineFor('postgres')).toBe(engine);
    expect(await runtime.engineForSnapshot({ engine: 'postgres' })).toBe(engine);
    let refused: unknown;
    try {
      runtime.usePostgres({ url: 'postgres://other:hunter2@db2.example/shop' });
    } catch (error) {
      refused = error;
    }
    expect(isLadderError(refused, 'invalid_option')).toBe(true);
    expect((refused as Error).message).toBe(
      'one PostgreSQL server per run: the engine already uses postgres://ladder@db.example/shop (existing databases), and postgres://other@db2.example/shop was asked for; give every item the same postgres.url',
    );
    await runtime.close();
  });

  it('describes a server without its password', () => {
    expect([describeServer(undefined), describeServer('postgresql://u:p@h:5432/d?sslmode=require', 'existing')]).toEqual(['the private server', 'postgresql://u@h:5432/d (existing databases)']);
  });
});
