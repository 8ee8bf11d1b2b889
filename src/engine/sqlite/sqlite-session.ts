/**
 * What one child process does: keeps read-only connections per database path and answers
 * {@link ChildRequest}s synchronously with better-sqlite3. It also runs in-process in tests (no
 * deadline or memory cap there: those belong to the parent, see sqlite-pool.ts).
 *
 * Each connection is opened `readonly` with `fileMustExist` (a missing path is `db_not_found`,
 * never a new file), then `PRAGMA query_only = 1`, unsafe mode off and safe integers on. Every
 * statement passes the query gate (query-gate.ts) before SQLite compiles it. After each job the
 * connection is checked (no open transaction, `query_only` still 1); a connection that fails the
 * check is closed and opened afresh, so no statement can change what the next one runs under.
 * Each job also `stat`s the file: a database rebuilt at the same path (fixture cache refreshed)
 * gets a new connection instead of the old file's.
 */
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { Catalog, CatalogTable, Cell, DoubleQuoteMode, ExecutionError, ExecutionOutcome, ExplainOutcome, PlanStep } from '../engine.js';
import { checkPreparedStatement, checkQueryText } from './query-gate.js';
import { missingColumnName, restoreResolvingIdentifiers, rewriteDoubleQuoted } from './double-quote-fallback.js';
import type { CatalogOutcome, ChildRequest } from './sqlite-protocol.js';

type Connection = Database.Database;
type Statement = Database.Statement<unknown[], unknown>;

/** A statement that passed prepare and the gate, with the text that compiled. */
interface PreparedQuery {
  readonly statement: Statement;
  readonly executedSql: string;
  readonly doubleQuoteFallback: boolean;
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
 * @returns the session; connections open lazily, one per absolute database path.
 */
export function createSqliteSession(): SqliteSession {
  const connections = new Map<string, CachedConnection>();

  function connect(file: string): Connection | ExecutionError {
    const found = fileIdentity(file);
    if (typeof found !== 'string') return found;
    const cached = connections.get(file);
    if (cached && cached.identity === found) return cached.connection;
    // A file rebuilt at the same path (new inode, size or mtime) gets a fresh connection.
    if (cached) {
      connections.delete(file);
      cached.connection.close();
    }
    const opened = openReadOnly(file);
    if (opened instanceof Database) connections.set(file, { connection: opened, identity: found });
    return opened;
  }

  function release(file: string, connection: Connection): void {
    if (connectionIsPristine(connection)) return;
    connections.delete(file);
    connection.close();
  }

  return {
    handle(request) {
      const connection = connect(request.db);
      if (!(connection instanceof Database)) return { ok: false, error: connection };
      try {
        switch (request.op) {
          case 'execute':
            return runQuery(connection, request.sql, request.doubleQuotes, request.maxRows, true);
          case 'prepare':
            return runQuery(connection, request.sql, request.doubleQuotes, 0, false);
          case 'explain':
            return explainQuery(connection, request.sql, request.doubleQuotes);
          case 'catalog':
            return { ok: true, catalog: readCatalog(connection) };
        }
      } finally {
        release(request.db, connection);
      }
    },
    close() {
      for (const cached of connections.values()) cached.connection.close();
      connections.clear();
    },
  };
}

/** A cached connection and the identity of the file it opened. */
interface CachedConnection {
  readonly connection: Connection;
  readonly identity: string;
}

/**
 * `dev:ino:size:mtime` of a database file (one `stat` per job, a few microseconds), or
 * `db_not_found` when the path is missing or not a regular file.
 */
function fileIdentity(file: string): string | ExecutionError {
  let stats;
  try {
    stats = statSync(file, { bigint: true });
  } catch {
    return { code: 'db_not_found', message: `database not found: ${file} does not exist (it is never created)` };
  }
  if (!stats.isFile()) return { code: 'db_not_found', message: `database not found: ${file} is not a file` };
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}

/** Opens an existing file read-only; the caller has checked that it exists. */
function openReadOnly(file: string): Connection | ExecutionError {
  try {
    const connection = new Database(file, { readonly: true, fileMustExist: true });
    connection.unsafeMode(false);
    connection.defaultSafeIntegers(true);
    connection.exec('PRAGMA query_only = 1');
    try {
      // Reads page 1: a file that is not a database fails here, not on every later statement.
      connection.prepare('SELECT count(*) FROM sqlite_schema').pluck().get();
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  } catch (error) {
    return { code: 'sqlite_error', message: `cannot open ${file}: ${oneLine(error)}` };
  }
}

/** A prepared `SELECT query_only FROM pragma_query_only` per connection (compiled once). */
const queryOnlyChecks = new WeakMap<Connection, Statement>();

/** True when no transaction is open and `query_only` is still on. */
function connectionIsPristine(connection: Connection): boolean {
  if (!connection.open || connection.inTransaction) return false;
  try {
    let check = queryOnlyChecks.get(connection);
    if (!check) {
      check = connection.prepare('SELECT query_only FROM pragma_query_only').pluck().safeIntegers(false);
      queryOnlyChecks.set(connection, check);
    }
    return check.get() === 1;
  } catch {
    return false;
  }
}

/** Gate, prepare (with the legacy fallback), gate again. */
function prepareQuery(connection: Connection, sql: string, mode: DoubleQuoteMode): PreparedQuery | ExecutionError {
  const textError = checkQueryText(sql);
  if (textError) return textError;
  let text = sql;
  let fallback = false;
  for (let round = 0; ; round += 1) {
    let statement: Statement;
    try {
      statement = connection.prepare(text);
    } catch (error) {
      const message = oneLine(error);
      const name = mode === 'legacy' && round < MAX_FALLBACK_ROUNDS ? missingColumnName(message) : undefined;
      const rewritten = name === undefined ? undefined : rewriteDoubleQuoted(text, name);
      if (rewritten === undefined) return { code: 'sqlite_error', message };
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
    return { statement, executedSql: text, doubleQuoteFallback: fallback };
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

function runQuery(connection: Connection, sql: string, mode: DoubleQuoteMode, maxRows: number, step: boolean): ExecutionOutcome {
  const started = performance.now();
  const prepared = prepareQuery(connection, sql, mode);
  if (!('statement' in prepared)) return { ok: false, error: prepared };
  const { statement } = prepared;
  const columns = statement.columns().map((column) => column.name);
  const rows: Cell[][] = [];
  if (step) {
    statement.raw(true).safeIntegers(true);
    try {
      for (const raw of statement.iterate() as IterableIterator<unknown[]>) {
        if (rows.length === maxRows) {
          return {
            ok: false,
            error: { code: 'result_too_large', message: `result too large: more than ${maxRows} ${maxRows === 1 ? 'row' : 'rows'} (maxRows); stopped reading at row ${maxRows + 1}` },
          };
        }
        rows.push(raw.map(toCell));
      }
    } catch (error) {
      return { ok: false, error: { code: 'sqlite_error', message: oneLine(error) } };
    }
  }
  return {
    ok: true,
    result: {
      columns,
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

function explainQuery(connection: Connection, sql: string, mode: DoubleQuoteMode): ExplainOutcome {
  const prepared = prepareQuery(connection, sql, mode);
  if (!('statement' in prepared)) return { ok: false, error: prepared };
  try {
    const planRows = connection.prepare(`EXPLAIN QUERY PLAN ${prepared.executedSql}`).raw(true).safeIntegers(false).all() as [number, number, number, string][];
    const plan: PlanStep[] = planRows.map(([id, parent, , detail]) => ({ id, parent, detail }));
    const program = connection.prepare(`EXPLAIN ${prepared.executedSql}`).raw(true).safeIntegers(false).all() as [number, string, number, number, number][];
    const owners = new Map<number, string>([[1, 'sqlite_schema']]);
    const schema = connection.prepare('SELECT tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0').raw(true).safeIntegers(false).all() as [string, number][];
    for (const [table, rootPage] of schema) owners.set(rootPage, table);
    const tablesRead = new Set<string>();
    for (const [, opcode, , rootPage, schemaNumber] of program) {
      if (!OPEN_READ_OPCODES.has(opcode) || schemaNumber !== 0) continue;
      const owner = owners.get(rootPage);
      if (owner !== undefined) tablesRead.add(owner.toLowerCase());
    }
    return { ok: true, result: { plan, tablesRead: [...tablesRead].sort(), doubleQuoteFallback: prepared.doubleQuoteFallback } };
  } catch (error) {
    return { ok: false, error: { code: 'sqlite_error', message: oneLine(error) } };
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** better-sqlite3 value (safe integers on) → {@link Cell}. */
function toCell(value: unknown): Cell {
  if (typeof value === 'bigint') return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  return value as Cell;
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
