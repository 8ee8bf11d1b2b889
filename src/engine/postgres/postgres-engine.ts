/**
 * The PostgreSQL engine: an {@link Engine} whose boundary is the database's own (reference 000
 * §3.4: "a read-only, role-scoped identity with timeouts and cost limits").
 *
 * Each statement (gold or prediction):
 * - passes the text check (pg-query-gate.ts: one statement, SELECT / WITH / VALUES / TABLE, no NUL);
 * - runs on a connection of the reader role (pg-server.ts: owns nothing, only `SELECT`,
 *   NOINHERIT, no superuser, no BYPASSRLS, `temp_file_limit` on the role), in its own transaction
 *   begun `READ ONLY` with `SET LOCAL` `statement_timeout`, `lock_timeout`, `work_mem` and the
 *   settings that fix how results print (`TimeZone` UTC, `DateStyle` ISO, `IntervalStyle`
 *   postgres, `extra_float_digits` 3, `bytea_output` hex);
 * - is sent with the extended protocol's Parse / Describe, and Bind / Execute only when the server
 *   describes rows (pg-statement.ts), with row and byte caps read batch by batch;
 * - runs as the item's role when its database reference names one (`<database>#role=<role>`,
 *   role-ref.ts): `SET LOCAL ROLE` in the same transaction;
 * - is always rolled back, its session advisory locks released; a statement that changed a pinned
 *   setting (`set_config`) is `not_a_query`, since its rows may print under other settings.
 * A client-side cancel at the deadline backs the server's timer; a connection that does not answer
 * the cancel within {@link CANCEL_GRACE_MS} is terminated (its socket closed, its backend ended)
 * and replaced.
 */
import pg from 'pg';
import { LadderError } from '../../errors.js';
import { decoderFor, needsTypeInfo, type TypeInfo } from './pg-cells.js';
import { postgresError } from './pg-errors.js';
import { ConnectionPool, type PooledConnection } from './pg-pool.js';
import { checkPostgresQueryText } from './pg-query-gate.js';
import { connect, openServer, type PgServer } from './pg-server.js';
import { ExtendedStatement, type StatementOutcome } from './pg-statement.js';
import { resolvePostgresEngineOptions, resolvePostgresRequest, type PostgresEngineOptions, type ResolvedPostgresEngineOptions, type ResolvedPostgresRequest } from './postgres-engine-options.js';
import { escapedOutcome, type Catalog, type CatalogTable, type Cell, type Engine, type ExecutionError, type ExecutionOutcome, type ExplainOutcome, type PlanStep } from '../engine.js';

/** How long a statement may go on after its cancel before its connection is terminated, ms. */
export const CANCEL_GRACE_MS = 2_000;

/** The settings pinned in every statement's transaction, as `SET LOCAL name = value`. */
export const PINNED_SETTINGS: readonly (readonly [string, string])[] = [
  ['TimeZone', "'UTC'"],
  ['DateStyle', "'ISO, YMD'"],
  ['IntervalStyle', "'postgres'"],
  ['extra_float_digits', '3'],
  ['bytea_output', "'hex'"],
  ['jit', 'off'],
  ['row_security', 'on'],
  ['client_connection_check_interval', "'1s'"],
];

/** The {@link Engine} for PostgreSQL, with its server and options. */
export interface PostgresEngine extends Engine {
  readonly dialect: 'postgres';
  readonly options: ResolvedPostgresEngineOptions;
  /**
   * The server, started (private) or reached (URL) on first use; fixture builds use it.
   * @throws LadderError `engine_failure` when it cannot be started or reached.
   */
  server(): Promise<PgServer>;
}

/**
 * Creates a PostgreSQL engine. Nothing starts until the first call.
 * @param options - see {@link PostgresEngineOptions}.
 * @throws LadderError `invalid_option` for unknown names, wrong kinds or out-of-range values.
 * @example
 * const engine = createPostgresEngine({ timeoutMs: 5000 });
 * await engine.execute({ db: 'ladder_shop_1a2b3c4d5e6f_base', sql: 'SELECT 1::numeric / 3' });
 * // { ok: true, result: { columns: ['?column?'], rows: [[DecimalCell { text: '0.33333333333333333333' }]], … } }
 * await engine.close();
 */
export function createPostgresEngine(options?: PostgresEngineOptions): PostgresEngine {
  return buildEngine(options, true);
}

/**
 * A PostgreSQL engine without the text check (step 1 of the boundary): every text goes to the
 * server as it is, so the red-team slice can show what the database alone stops — the extended
 * protocol, the read-only transaction, the role and the server's limits. Not part of the package's
 * API; nothing in the ladder creates one.
 * @param options - see {@link PostgresEngineOptions}.
 * @throws LadderError `invalid_option` as {@link createPostgresEngine}.
 */
export function createPostgresEngineWithoutTextCheck(options?: PostgresEngineOptions): PostgresEngine {
  return buildEngine(options, false);
}

function buildEngine(options: PostgresEngineOptions | undefined, textCheck: boolean): PostgresEngine {
  const resolved = resolvePostgresEngineOptions(options);
  const check = textCheck ? checkPostgresQueryText : (): undefined => undefined;
  let closed = false;
  let serving: Promise<{ server: PgServer; pool: ConnectionPool }> | undefined;
  const typeInfo = new Map<number, TypeInfo>();

  function ensureOpen(): void {
    if (closed) throw new LadderError('engine_closed', 'the engine is closed; create a new one with createPostgresEngine()');
  }

  function ready(): Promise<{ server: PgServer; pool: ConnectionPool }> {
    serving ??= openServer(resolved).then((server) => ({ server, pool: new ConnectionPool(server, resolved.poolSize) }));
    serving.catch(() => {
      serving = undefined;
    });
    return serving;
  }

  /**
   * Runs one statement of the given kind under the boundary; the raw outcome. `timing.ms` is set to
   * the statement's own wall time (from its Parse to its last row), without the server's start,
   * the connection or the transaction's set-up.
   */
  async function runStatement(job: ResolvedPostgresRequest, text: string, mode: 'prepare' | 'execute', timing: { ms: number } = { ms: 0 }): Promise<StatementOutcome> {
    const { server, pool } = await ready();
    const opened = await begun(server, pool, job);
    if ('error' in opened) return { ok: false, error: opened.error };
    const { connection, begin } = opened;
    let healthy = false;
    try {
      const pinned = settingsOf(begin);
      const statement = new ExtendedStatement(text, { mode, maxRows: job.maxRows, maxResultBytes: resolved.maxResultBytes });
      const started = performance.now();
      const outcome = await withDeadline(server, connection, statement, job.timeoutMs);
      timing.ms = performance.now() - started;
      if (outcome.ok === false && outcome.connectionBroken === true) return outcome;
      if (outcome.ok && mode === 'execute') await learnTypes(connection.client, outcome, typeInfo);
      const after = await connection.client.query(outcome.ok ? `${SETTINGS_QUERY}; ROLLBACK; SELECT pg_advisory_unlock_all()` : 'ROLLBACK; SELECT pg_advisory_unlock_all()');
      healthy = true;
      if (outcome.ok) {
        const changed = changedSetting(pinned, settingsOf(after));
        if (changed !== undefined) {
          return { ok: false, error: { code: 'not_a_query', message: `not a query: the statement changed the session setting ${changed} (set_config), which fixes how results print or how long a statement may run` } };
        }
      }
      return outcome;
    } catch (error) {
      if (error instanceof pg.DatabaseError) return { ok: false, error: postgresError(error) };
      return { ok: false, error: { code: 'engine_failure', message: `engine failure: the connection to the server broke (${(error as Error).message}); replaced` } };
    } finally {
      pool.release(connection, healthy);
    }
  }

  /**
   * A connection with the statement's transaction begun. An idle connection that broke before its
   * BEGIN (its backend ended, the server restarted) is closed and a fresh one taken, once: nothing
   * of the statement was sent yet.
   */
  async function begun(server: PgServer, pool: ConnectionPool, job: ResolvedPostgresRequest): Promise<{ connection: PooledConnection; begin: pg.QueryResult | pg.QueryResult[] } | { error: ExecutionError }> {
    for (let attempt = 1; ; attempt += 1) {
      let connection: PooledConnection;
      try {
        connection = await acquire(server, pool, job.db);
      } catch (error) {
        if (error instanceof pg.DatabaseError && error.code === '3D000') {
          return { error: { code: 'db_not_found', message: `database not found: ${job.db} does not exist on the server (it is never created)`, engineCode: '3D000' } };
        }
        // The server itself gone for good is the engine's fault; one database refusing is that database's.
        const code = error instanceof LadderError && error.code === 'engine_failure' ? 'engine_failure' : 'db_unavailable';
        return { error: { code, message: `cannot connect to database ${job.db}: ${(error as Error).message}` } };
      }
      try {
        return { connection, begin: (await connection.client.query(beginText(job.timeoutMs, resolved.workMemBytes, job.role))) as pg.QueryResult | pg.QueryResult[] };
      } catch (error) {
        pool.release(connection, false);
        if (error instanceof pg.DatabaseError) return { error: postgresError(error) };
        if (attempt === 2) return { error: { code: 'engine_failure', message: `engine failure: the connection to the server broke (${(error as Error).message}); replaced` } };
      }
    }
  }

  function toQueryOutcome(outcome: StatementOutcome, sql: string, elapsedMs: number): ExecutionOutcome {
    if (!outcome.ok) return { ok: false, error: outcome.error };
    const decoders = outcome.fields.map((field) => decoderFor(field.dataTypeID, typeInfo));
    const rows = outcome.rows.map((row) => row.map((value, index): Cell => (value === null ? null : decoders[index]!(value))));
    return { ok: true, result: { columns: outcome.fields.map((field) => field.name), rows, doubleQuoteFallback: false, executedSql: sql, elapsedMs } };
  }

  async function execute(request: unknown, mode: 'prepare' | 'execute'): Promise<ExecutionOutcome> {
    ensureOpen();
    const job = resolvePostgresRequest(request, resolved);
    const refused = check(job.sql);
    if (refused !== undefined) return { ok: false, error: refused };
    const timing = { ms: 0 };
    const outcome = await runStatement(job, job.sql, mode, timing);
    return toQueryOutcome(outcome, job.sql, timing.ms);
  }

  return {
    dialect: 'postgres',
    options: resolved,
    async server() {
      ensureOpen();
      return (await ready()).server;
    },
    execute: async (request) => escapedOutcome(await execute(request, 'execute')),
    prepare: async (request) => escapedOutcome(await execute(request, 'prepare')),
    async explain(given): Promise<ExplainOutcome> {
      ensureOpen();
      // `analyze` is explain's own field, not a statement option.
      const { analyze, ...request } = given;
      const job = resolvePostgresRequest(request, resolved);
      const refused = check(job.sql);
      if (refused !== undefined) return escapedOutcome({ ok: false, error: refused });
      // The text check above let one query through; EXPLAIN without ANALYZE does not run it.
      // With ANALYZE the query runs, inside the same read-only transaction, rolled back, under the caps.
      const prefix = analyze === true ? EXPLAIN_ANALYZE_PREFIX : EXPLAIN_PREFIX;
      const outcome = await runStatement({ ...job, maxRows: 1 }, `${prefix}${job.sql}`, 'execute');
      if (!outcome.ok) {
        // The server's position counts the prefix; the caller's text does not have it.
        const { position, ...error } = outcome.error;
        return escapedOutcome({ ok: false, error: position !== undefined && position > prefix.length ? { ...error, position: position - prefix.length } : error });
      }
      return { ok: true, result: planOf(outcome.rows[0]?.[0] ?? '[]') };
    },
    async catalog(db: string): Promise<Catalog> {
      ensureOpen();
      const job = resolvePostgresRequest({ db, sql: CATALOG_QUERY }, resolved);
      const outcome = await runStatement({ ...job, maxRows: 1_000_000 }, CATALOG_QUERY, 'execute');
      if (!outcome.ok) {
        if (outcome.error.code === 'db_not_found') throw new LadderError('db_not_found', outcome.error.message);
        throw new LadderError(outcome.error.code === 'db_unavailable' ? 'db_unavailable' : 'engine_failure', `cannot read the catalog of ${db}: ${outcome.error.message}`);
      }
      const path = await runStatement({ ...job, maxRows: 1 }, SEARCH_PATH_QUERY, 'execute');
      if (!path.ok) throw new LadderError('engine_failure', `cannot read the search_path of ${db}: ${path.error.message}`);
      return catalogOf(outcome.rows, JSON.parse(path.rows[0]?.[0] ?? '[]') as string[]);
    },
    async close() {
      if (closed) return;
      closed = true;
      const current = serving;
      serving = undefined;
      if (current === undefined) return;
      try {
        const { server, pool } = await current;
        await pool.close();
        await server.release();
      } catch {
        // The server never started: nothing to stop.
      }
    },
  };
}

/**
 * A connection to `db`; when none can be made and the private server's postmaster is gone (killed
 * mid-run), the server is started again once and the connection tried again.
 * @throws the connection's error, or LadderError `engine_failure` naming why the server could not
 *   be started again.
 */
async function acquire(server: PgServer, pool: ConnectionPool, db: string): Promise<PooledConnection> {
  try {
    return await pool.acquire(db);
  } catch (error) {
    if (server.revive === undefined || error instanceof pg.DatabaseError) throw error;
    let revived: boolean;
    try {
      revived = await server.revive();
    } catch (failure) {
      throw new LadderError('engine_failure', `${(error as Error).message}; the private server is gone and could not be started again: ${(failure as Error).message}`, { cause: failure });
    }
    if (!revived) throw error;
    return pool.acquire(db);
  }
}

/** What `explain` puts before the statement. */
const EXPLAIN_PREFIX = 'EXPLAIN (FORMAT JSON) ';

/** What `explain` with `analyze` puts before the statement (it runs; the transaction is rolled back). */
const EXPLAIN_ANALYZE_PREFIX = 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ';

/**
 * The transaction every statement runs in (`BEGIN … READ ONLY` and the `SET LOCAL` limits and
 * pinned settings), then a query of the watched settings' values as the server prints them.
 * Exported for the red-team slice, which runs statements in the same transaction without the
 * engine's other lines.
 * @param timeoutMs - the deadline: `statement_timeout` and `lock_timeout`, ms.
 * @param workMemBytes - `work_mem`, bytes (at least 64 kB).
 * @param role - a server role to run as (`SET LOCAL ROLE`): the reader is NOINHERIT, so only this
 *   switch gives it the role's grants and row-level security, and only until the rollback.
 */
export function beginText(timeoutMs: number, workMemBytes: number, role?: string): string {
  const limits: readonly (readonly [string, string])[] = [
    ['statement_timeout', `'${timeoutMs}ms'`],
    ['lock_timeout', `'${timeoutMs}ms'`],
    ['work_mem', `'${Math.max(64, Math.floor(workMemBytes / 1024))}kB'`],
  ];
  const sets = [...limits, ...PINNED_SETTINGS].map(([name, value]) => `SET LOCAL ${name} = ${value}`).join('; ');
  const asRole = role === undefined ? '' : ` SET LOCAL ROLE ${pg.escapeIdentifier(role)};`;
  return `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; ${sets};${asRole} ${SETTINGS_QUERY}`;
}

const WATCHED = ['statement_timeout', 'lock_timeout', 'work_mem', ...PINNED_SETTINGS.map(([name]) => name), 'transaction_read_only', 'role', 'session_authorization'];
const SETTINGS_QUERY = `SELECT ${WATCHED.map((name, index) => `current_setting('${name}') AS s${index}`).join(', ')}`;

/** The watched settings from the last result of a multi-statement query. */
function settingsOf(results: pg.QueryResult | pg.QueryResult[]): readonly string[] {
  const list = Array.isArray(results) ? results : [results];
  const row = list.find((result) => result.command === 'SELECT' && result.fields.length === WATCHED.length)?.rows[0] as Record<string, string> | undefined;
  return WATCHED.map((_, index) => row?.[`s${index}`] ?? '');
}

function changedSetting(before: readonly string[], after: readonly string[]): string | undefined {
  const index = before.findIndex((value, i) => value !== after[i]);
  return index < 0 ? undefined : WATCHED[index];
}

/**
 * Runs the statement with a client-side deadline: at `timeoutMs` a cancel request (the server's
 * `statement_timeout` normally fires at the same moment); {@link CANCEL_GRACE_MS} later the
 * connection is terminated. Either way the outcome is `timeout`.
 *
 * Once a cancel request is sent, the connection is never used again (`connectionBroken`): the
 * request travels on a connection of its own and the server acts on it whenever it arrives, so a
 * late one would cancel whatever that backend runs next — the rollback, or the next item's
 * statement. Closing the connection rolls the transaction back and releases its locks.
 */
async function withDeadline(server: PgServer, connection: PooledConnection, statement: ExtendedStatement, timeoutMs: number): Promise<StatementOutcome> {
  const client = connection.client as pg.Client & { processID?: number; secretKey?: number; connection: { stream: { destroy(): void } } };
  const timeout = (how: string): ExecutionError => ({ code: 'timeout', message: `timeout: deadline of ${timeoutMs} ms passed; ${how}`, engineCode: '57014' });
  let cancelTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let terminated = false;
  let cancelSent = false;
  const killed = new Promise<StatementOutcome>((resolve) => {
    cancelTimer = setTimeout(() => {
      cancelSent = true;
      void cancelBackend(server, client);
      killTimer = setTimeout(() => {
        terminated = true;
        client.connection.stream.destroy();
        void terminateBackend(server, client.processID);
        resolve({ ok: false, error: timeout('the connection did not answer the cancel and was terminated'), connectionBroken: true });
      }, CANCEL_GRACE_MS);
    }, timeoutMs);
  });
  try {
    void client.query(statement as unknown as pg.QueryConfig);
    const outcome = await Promise.race([statement.outcome, killed]);
    if (terminated) return { ok: false, error: timeout('the connection did not answer the cancel and was terminated'), connectionBroken: true };
    if (!outcome.ok && outcome.error.code === 'timeout') return { ok: false, error: timeout('the server cancelled the statement'), ...(cancelSent ? { connectionBroken: true } : {}) };
    if (!cancelSent) return outcome;
    // The deadline passed before the statement ended: its result came too late, its own error stands.
    return outcome.ok ? { ok: false, error: timeout('the statement ended after it'), connectionBroken: true } : { ...outcome, connectionBroken: true };
  } finally {
    clearTimeout(cancelTimer);
    clearTimeout(killTimer);
  }
}

/** Sends PostgreSQL's cancel request for the client's backend (a connection of its own). */
function cancelBackend(server: PgServer, client: { processID?: number; secretKey?: number }): Promise<void> {
  return new Promise((resolve) => {
    const config = server.config('reader', server.adminDatabase);
    const Connection = (pg as unknown as { Connection: new () => { connect(port: number | string, host?: string): void; cancel(pid: number, key: number): void; end(): void; on(event: string, listener: () => void): void } }).Connection;
    const cancel = new Connection();
    const done = (): void => {
      try {
        cancel.end();
      } catch {
        // Closed already.
      }
      resolve();
    };
    cancel.on('connect', () => {
      cancel.cancel(client.processID ?? 0, client.secretKey ?? 0);
      setTimeout(done, 50);
    });
    cancel.on('error', done);
    const host = String(config.host ?? 'localhost');
    if (host.startsWith('/')) cancel.connect(`${host}/.s.PGSQL.${config.port ?? 5432}`);
    else cancel.connect(Number(config.port ?? 5432), host);
  });
}

/** Ends a backend that ignored its cancel (as the admin when the ladder has one, else as itself). */
async function terminateBackend(server: PgServer, pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  try {
    const client = await connect(server, server.scratch ? 'admin' : 'reader', server.adminDatabase);
    try {
      await client.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await client.end();
    }
  } catch {
    // The backend ends on its own when it next checks its client (client_connection_check_interval).
  }
}

/** Looks up `pg_type` for result types that are not built in (arrays of enums or domains), once per engine. */
async function learnTypes(client: pg.Client, outcome: Extract<StatementOutcome, { ok: true }>, known: Map<number, TypeInfo>): Promise<void> {
  const missing = [...new Set(outcome.fields.map((field) => field.dataTypeID))].filter((oid) => needsTypeInfo(oid, known));
  if (missing.length === 0) return;
  const rows = (await client.query<{ oid: number; typelem: number; typdelim: string }>('SELECT oid::int AS oid, typelem::int AS typelem, typdelim::text AS typdelim FROM pg_type WHERE oid = ANY($1::oid[])', [missing])).rows;
  for (const oid of missing) known.set(oid, { element: 0, delimiter: ',' });
  for (const row of rows) known.set(row.oid, { element: row.typelem, delimiter: row.typdelim });
  const elements = rows.map((row) => row.typelem).filter((oid) => oid !== 0 && needsTypeInfo(oid, known));
  if (elements.length > 0) {
    const inner = (await client.query<{ oid: number; typdelim: string }>('SELECT oid::int AS oid, typdelim::text AS typdelim FROM pg_type WHERE oid = ANY($1::oid[])', [elements])).rows;
    for (const row of inner) known.set(row.oid, { element: 0, delimiter: row.typdelim });
  }
}

interface JsonPlanNode {
  readonly 'Node Type'?: string;
  readonly Strategy?: string;
  readonly 'Join Type'?: string;
  readonly 'Parent Relationship'?: string;
  readonly 'Subplan Name'?: string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'CTE Name'?: string;
  readonly 'Function Name'?: string;
  readonly Alias?: string;
  readonly 'Plan Rows'?: number;
  readonly 'Total Cost'?: number;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Shared Hit Blocks'?: number;
  readonly 'Shared Read Blocks'?: number;
  readonly Plans?: readonly JsonPlanNode[];
}

/**
 * A node's first line as PostgreSQL's text EXPLAIN prints it: `Seq Scan on orders o`, `Index Scan
 * using idx_orders_date on orders o`, `Hash Left Join`, `HashAggregate`, `CTE Scan on counts`.
 */
function nodeDetail(node: JsonPlanNode): string {
  let type = node['Node Type'] ?? 'Unknown';
  if (type === 'Aggregate' && node.Strategy === 'Hashed') type = 'HashAggregate';
  else if (type === 'Aggregate' && node.Strategy === 'Sorted') type = 'GroupAggregate';
  else if (type === 'Aggregate' && node.Strategy === 'Mixed') type = 'MixedAggregate';
  const join = node['Join Type'];
  if (join !== undefined && join !== 'Inner' && /Join|Nested Loop/.test(type)) type = type === 'Nested Loop' ? `Nested Loop ${join} Join` : type.replace(/ Join$/, ` ${join} Join`);
  const index = node['Index Name'];
  const relation = node['Relation Name'] ?? node['CTE Name'] ?? node['Function Name'];
  const alias = node.Alias !== undefined && node.Alias !== relation ? ` ${node.Alias}` : '';
  if (type === 'Bitmap Index Scan') return `${type} on ${index ?? '?'}`;
  const using = index !== undefined ? ` using ${index}` : '';
  if (relation !== undefined) return `${type}${using} on ${relation}${alias}`;
  if (type === 'Subquery Scan' && node.Alias !== undefined) return `${type} on ${node.Alias}`;
  return `${type}${using}`;
}

/** `EXPLAIN (FORMAT JSON)` as plan steps (a tree by `parent`) and the relations it reads. */
function planOf(json: string): { plan: PlanStep[]; tablesRead: string[]; doubleQuoteFallback: false } {
  const plan: PlanStep[] = [];
  const tables = new Set<string>();
  const walk = (node: JsonPlanNode, parent: number): void => {
    const id = plan.length + 1;
    const relation = node['Relation Name'];
    const relationship = node['Parent Relationship'];
    plan.push({
      id,
      parent,
      detail: nodeDetail(node),
      ...(relation !== undefined ? { relation } : {}),
      ...(node['Index Name'] !== undefined ? { index: node['Index Name'] } : {}),
      ...((relationship === 'SubPlan' || relationship === 'InitPlan') && node['Subplan Name'] !== undefined ? { subplan: node['Subplan Name'] } : {}),
      ...(node['Plan Rows'] !== undefined && node['Total Cost'] !== undefined ? { estimate: { rows: node['Plan Rows'], cost: node['Total Cost'] } } : {}),
      ...(node['Actual Rows'] !== undefined && node['Actual Loops'] !== undefined
        ? { actual: { rows: node['Actual Rows'], loops: node['Actual Loops'], sharedBlocks: (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0) } }
        : {}),
    });
    if (relation !== undefined) tables.add(relation.toLowerCase());
    for (const child of node.Plans ?? []) walk(child, id);
  };
  const parsed = JSON.parse(json) as readonly { Plan?: JsonPlanNode }[];
  for (const entry of parsed) if (entry.Plan !== undefined) walk(entry.Plan, 0);
  return { plan, tablesRead: [...tables].sort(), doubleQuoteFallback: false };
}

/**
 * Tables, views and materialized views the reader may read, outside the system schemas: those in a
 * schema it has USAGE on, with the columns it may SELECT (column privileges included), in order.
 */
const CATALOG_QUERY = `SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
  EXISTS (SELECT FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS pk
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND has_schema_privilege(n.oid, 'USAGE') AND has_column_privilege(c.oid, a.attnum, 'SELECT')
ORDER BY n.nspname, c.oid, a.attnum`;

/** The schemas an unqualified name is looked up in, in order, as the reader's session resolves them. */
const SEARCH_PATH_QUERY = 'SELECT to_json(current_schemas(false))::text';

/** The catalog rows as a {@link Catalog}, with the session's search path. */
function catalogOf(rows: readonly (readonly (string | null)[])[], searchPath: readonly string[]): Catalog {
  const tables = new Map<string, { name: string; kind: 'table' | 'view'; schema: string; columns: { name: string; type: string; primaryKey: boolean }[] }>();
  for (const [schema, name, kind, column, type, pk] of rows) {
    const key = `${schema}\u0000${name}`;
    let table = tables.get(key);
    if (table === undefined) {
      table = { name: name!, kind: kind === 'v' || kind === 'm' ? 'view' : 'table', schema: schema!, columns: [] };
      tables.set(key, table);
    }
    table.columns.push({ name: column!, type: type ?? '', primaryKey: pk === 't' });
  }
  return { tables: [...tables.values()] as CatalogTable[], searchPath };
}
