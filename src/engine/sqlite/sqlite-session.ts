/**
 * What one child process does: keeps read-only connections per database path and answers
 * {@link ChildRequest}s synchronously with better-sqlite3. It also runs in-process in tests (no
 * deadline or memory cap there: those belong to the child's watchdog thread, see
 * child-watchdog.ts).
 *
 * Each connection is opened `readonly` with `fileMustExist` (a missing path is `db_not_found`,
 * never a new file), then `PRAGMA query_only = 1`, `PRAGMA temp_store = MEMORY`, unsafe mode off
 * and safe integers on. Every statement passes the query gate (query-gate.ts) before SQLite
 * compiles it. After each job the connection is checked (session-connections.ts: no open
 * transaction, and `query_only` still 1 and `temp_store` still MEMORY unless the job ran only a
 * statement that provably could not change them); a connection that fails the check is closed
 * and opened afresh, so no statement can change what the next one runs under.
 *
 * No file is ever created, beside the database or anywhere else:
 * - temp storage (DISTINCT, GROUP BY and ORDER BY spills, transient indexes) stays in memory,
 *   where the memory cap counts it (this build defaults to temp files: `SQLITE_TEMP_STORE=1`;
 *   measured: a DISTINCT over 300 000 rows opened `/var/tmp/etilqs_*` without the pragma, nothing
 *   with it);
 * - a WAL-mode database (header bytes 18–19 = 2) is never opened in place, since even a read-only
 *   connection creates `-wal` / `-shm` beside it and writes into a live writer's `-shm`
 *   (measured); it is read from a private in-memory copy with the header switched to rollback
 *   mode, after checking that no un-checkpointed `-wal` content exists (else `db_unavailable`
 *   saying so). A copy larger than half the memory cap is refused with a message that says how to
 *   convert the file. (URI `immutable=1` does not open in this better-sqlite3 build: measured.)
 *
 * Each job also `stat`s the file: a database rebuilt at the same path gets a new connection
 * instead of the old file's (session-connections.ts). Opening (and the WAL copy) is in
 * sqlite-open.ts.
 */
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { Catalog, CatalogTable, Cell, DoubleQuoteMode, ExecutionError, ExecutionOutcome, ExplainOutcome, PlanStep } from '../engine.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';
import { checkPreparedStatement, checkQueryText, firstTokenStart } from './query-gate.js';
import { missingColumnName, restoreResolvingIdentifiers, rewriteDoubleQuoted } from './double-quote-fallback.js';
import type { CatalogOutcome, ChildRequest } from './sqlite-protocol.js';
import { errorText } from '../../format.js';
import { cachedQuery, createSessionConnections, keepQuery, queryKey, type PreparedQuery, type SessionConnection } from './session-connections.js';
import { sqliteError } from './sqlite-errors.js';
import { cellBytes, ROW_BYTES } from './result-bytes.js';

type Connection = Database.Database;

/** Options of {@link createSqliteSession}. */
export interface SqliteSessionOptions {
  /**
   * The child's memory cap in bytes (the pool's `maxMemoryBytes`): a WAL-mode database is copied
   * into memory only when it is at most half of it. Default: 512 MiB.
   */
  readonly maxMemoryBytes?: number;
}

/** Per-child state: the connection cache. */
export interface SqliteSession {
  /** Answers one job; never throws for the statement's own faults. */
  handle(request: ChildRequest): ExecutionOutcome | ExplainOutcome | CatalogOutcome;
  /** Closes every cached connection. */
  close(): void;
}

/** Most rewrites the legacy double-quote fallback tries for one statement. */
const MAX_FALLBACK_ROUNDS = 256;

/**
 * Creates a session with an empty connection cache.
 *
 * @param options - see {@link SqliteSessionOptions}.
 * @returns the session; connections open lazily, one per absolute database path.
 */
export function createSqliteSession(options: SqliteSessionOptions = {}): SqliteSession {
  const connections = createSessionConnections(Math.floor((options.maxMemoryBytes ?? 512 * 2 ** 20) / 2));

  function run(open: SessionConnection, request: ChildRequest): ExecutionOutcome | ExplainOutcome | CatalogOutcome {
    switch (request.op) {
      case 'execute':
        return runQuery(open, request.sql, request.doubleQuotes, { maxRows: request.maxRows, maxBytes: request.maxResultBytes });
      case 'prepare':
        return runQuery(open, request.sql, request.doubleQuotes, undefined);
      case 'explain':
        return explainQuery(open, request.sql, request.doubleQuotes);
      case 'catalog':
        open.catalog ??= readCatalog(open.connection);
        return { ok: true, catalog: open.catalog };
    }
  }

  return {
    handle(request) {
      const open = connections.acquire(request.db);
      if (!('connection' in open)) return { ok: false, error: open };
      let outcome: ExecutionOutcome | ExplainOutcome | CatalogOutcome | undefined;
      try {
        outcome = run(open, request);
        return outcome;
      } finally {
        connections.release(request.db, open, outcome !== undefined && isProvenJob(outcome));
      }
    },
    close() {
      connections.close();
    },
  };
}

/**
 * Whether a job's outcome proves that it could not change its connection's settings
 * (session-connections.ts): an `execute`, `prepare` or `explain` that succeeded ran a statement
 * that passed the text gate and SQLite's read-only and row-returning check; without the
 * double-quote rewrite, that statement compiled from the very text the gate read, and nothing
 * else was compiled. A catalog read, an error, and a rewritten text are not proven.
 * @param outcome - what the job answered.
 */
export function isProvenJob(outcome: ExecutionOutcome | ExplainOutcome | CatalogOutcome): boolean {
  return outcome.ok && 'result' in outcome && !outcome.result.doubleQuoteFallback;
}

/**
 * Gate, prepare (with the legacy fallback), gate again; a query that passes is kept on its
 * connection and found there when the same text comes again under the same mode.
 */
function prepareQuery(open: SessionConnection, sql: string, mode: DoubleQuoteMode): PreparedQuery | ExecutionError {
  const key = queryKey(mode, sql);
  const cached = cachedQuery(open, key);
  if (cached !== undefined && !cached.statement.busy) return cached;
  const prepared = compileQuery(open.connection, sql, mode);
  if ('statement' in prepared) keepQuery(open, key, prepared);
  return prepared;
}

function compileQuery(connection: Connection, sql: string, mode: DoubleQuoteMode): PreparedQuery | ExecutionError {
  const textError = checkQueryText(sql);
  if (textError) return textError;
  let text = sql;
  let fallback = false;
  for (let round = 0; ; round += 1) {
    let statement: Database.Statement<unknown[], unknown>;
    try {
      statement = connection.prepare(text);
    } catch (error) {
      // The name is read from SQLite's own words; the message handed out is escaped (errorText).
      const raw = error instanceof Error ? error.message : String(error);
      const name = mode === 'legacy' && round < MAX_FALLBACK_ROUNDS ? missingColumnName(raw) : undefined;
      const rewritten = name === undefined ? undefined : rewriteDoubleQuoted(text, name);
      if (rewritten === undefined) return sqliteError(errorText(error));
      text = rewritten;
      fallback = true;
      continue;
    }
    if (fallback) {
      // Stock SQLite reads each token on its own: keep as identifiers the rewritten tokens that resolve.
      const exact = restoreResolvingIdentifiers(sql, text, (candidate) => canPrepare(connection, candidate));
      if (exact !== text) {
        text = exact;
        statement = connection.prepare(text);
      }
    }
    const statementError = checkPreparedStatement(statement);
    if (statementError) return statementError;
    return { statement, columns: statement.columns().map((column) => column.name), executedSql: text, doubleQuoteFallback: fallback };
  }
}

function canPrepare(connection: Connection, sql: string): boolean {
  try {
    connection.prepare(sql);
    return true;
  } catch {
    return false;
  }
}

/** Caps of an `execute` job; `undefined` for `prepare` (nothing is stepped). */
interface StepLimits {
  readonly maxRows: number;
  readonly maxBytes: number;
}

function runQuery(open: SessionConnection, sql: string, mode: DoubleQuoteMode, limits: StepLimits | undefined): ExecutionOutcome {
  const started = performance.now();
  const prepared = prepareQuery(open, sql, mode);
  if (!('statement' in prepared)) return { ok: false, error: prepared };
  const { statement } = prepared;
  const rows: Cell[][] = [];
  if (limits) {
    const { maxRows, maxBytes } = limits;
    let bytes = 0;
    statement.raw(true).safeIntegers(true);
    try {
      // Each row array is better-sqlite3's own fresh array: its values become cells in place.
      for (const row of statement.iterate() as IterableIterator<Cell[]>) {
        if (rows.length === maxRows) {
          return {
            ok: false,
            error: { code: 'result_too_large', message: `result too large: more than ${maxRows} ${maxRows === 1 ? 'row' : 'rows'} (maxRows); stopped reading at row ${maxRows + 1}` },
          };
        }
        bytes += ROW_BYTES;
        for (let i = 0; i < row.length; i += 1) {
          const cell = toCell(row[i]);
          row[i] = cell;
          bytes += cellBytes(cell);
        }
        if (bytes > maxBytes) {
          return {
            ok: false,
            error: { code: 'result_too_large', message: `result too large: more than ${maxBytes} bytes (maxResultBytes); stopped reading at row ${rows.length + 1}` },
          };
        }
        rows.push(row);
      }
    } catch (error) {
      return { ok: false, error: sqliteError(errorText(error)) };
    }
  }
  return {
    ok: true,
    result: {
      columns: [...prepared.columns],
      rows,
      doubleQuoteFallback: prepared.doubleQuoteFallback,
      executedSql: prepared.executedSql,
      elapsedMs: performance.now() - started,
    },
  };
}

/** Tables and views in creation order (`sqlite_schema` rowid), without SQLite's internal tables. */
function readCatalog(connection: Connection): Catalog {
  const objects = connection
    .prepare("SELECT type, name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
    .safeIntegers(false)
    .all() as { type: 'table' | 'view'; name: string }[];
  const columnsOf = connection.prepare('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid').safeIntegers(false);
  const tables: CatalogTable[] = objects.map((object) => ({
    name: object.name,
    kind: object.type,
    schema: 'main',
    columns: (columnsOf.all(object.name) as { name: string; type: string; pk: number }[]).map((column) => ({
      name: column.name,
      type: column.type,
      primaryKey: column.pk > 0,
    })),
  }));
  return { tables };
}

/** Opcodes that open a b-tree for reading; p2 is its root page, p3 the schema number (0 = main). */
const OPEN_READ_OPCODES: ReadonlySet<string> = new Set(['OpenRead', 'ReopenIdx']);

function explainQuery(open: SessionConnection, sql: string, mode: DoubleQuoteMode): ExplainOutcome {
  const { connection } = open;
  const prepared = prepareQuery(open, sql, mode);
  if (!('statement' in prepared)) return { ok: false, error: prepared };
  // The gate lets empty statements before the query through (`;SELECT 1`); EXPLAIN must start
  // at the query itself, or SQLite reads `EXPLAIN QUERY PLAN ;` as a syntax error.
  const statementText = withoutLeadingSemicolons(prepared.executedSql);
  try {
    const planRows = connection.prepare(`EXPLAIN QUERY PLAN ${statementText}`).raw(true).safeIntegers(false).all() as [number, number, number, string][];
    const plan: PlanStep[] = planRows.map(([id, parent, , detail]) => ({ id, parent, detail }));
    const program = connection.prepare(`EXPLAIN ${statementText}`).raw(true).safeIntegers(false).all() as [number, string, number, number, number][];
    open.rootPageOwners ??= readRootPageOwners(connection);
    const owners = open.rootPageOwners;
    const tablesRead = new Set<string>();
    for (const [, opcode, , rootPage, schemaNumber] of program) {
      if (!OPEN_READ_OPCODES.has(opcode) || schemaNumber !== 0) continue;
      const owner = owners.get(rootPage);
      if (owner !== undefined) tablesRead.add(owner.toLowerCase());
    }
    return { ok: true, result: { plan, tablesRead: [...tablesRead].sort(), doubleQuoteFallback: prepared.doubleQuoteFallback } };
  } catch (error) {
    return { ok: false, error: sqliteError(errorText(error)) };
  }
}

/** The table (or index's table) of each b-tree root page, with page 1 as `sqlite_schema`. */
function readRootPageOwners(connection: Connection): ReadonlyMap<number, string> {
  const owners = new Map<number, string>([[1, 'sqlite_schema']]);
  const schema = connection.prepare('SELECT tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0').raw(true).safeIntegers(false).all() as [string, number][];
  for (const [table, rootPage] of schema) owners.set(rootPage, table);
  return owners;
}

/** The text from its first token that is not `;` (comments and whitespace before it dropped too). */
function withoutLeadingSemicolons(sql: string): string {
  // The first token is not a `;` unless its first character is one: then only comments and whitespace go.
  const start = firstTokenStart(sql);
  if (start < sql.length && sql[start] !== ';') return sql.slice(start);
  const first = tokenizeSqlite(sql).find((token) => token.kind !== 'semicolon');
  return first === undefined ? sql : sql.slice(first.start);
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** better-sqlite3 value (safe integers on) → {@link Cell}. */
function toCell(value: unknown): Cell {
  if (typeof value === 'bigint') return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  return value as Cell;
}

