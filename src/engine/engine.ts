/**
 * The `Engine` interface: how the ladder runs SQL against a database. Implementations:
 * `engine/sqlite/` (a pool of child processes over read-only SQLite files) and `engine/postgres/`
 * (a PostgreSQL server: a private one started for the run, or the user's by URL). An engine is
 * its folder plus one entry in engine/engines.ts.
 *
 * Contract (the design note, Execution):
 * - Only queries run: a read-only, row-returning statement whose top level is SELECT,
 *   WITH … SELECT or VALUES. Anything else is refused with `not_a_query` before it steps.
 * - Databases are read only; a missing database is `db_not_found`, never a new empty one.
 * - No statement may change the connection later statements run on.
 * - Every failure of the statement itself comes back as `{ ok: false, error }` with an
 *   engine-neutral code and the engine's own message; so does a database that cannot be used
 *   (`db_unavailable`); only misuse (bad options, a closed engine) and an engine that cannot run
 *   at all (`engine_failure`) throw a LadderError.
 */
import { escapeControls } from '../format.js';
import type { Catalog } from '../sql/catalog-types.js';
import type { DoubleQuoteMode } from '../sql/parse.js';
import type { Cell } from './cells.js';

export type { Catalog, CatalogColumn, CatalogTable } from '../sql/catalog-types.js';
export type { DoubleQuoteMode } from '../sql/parse.js';
export { ArrayCell, DecimalCell, JsonCell, TemporalCell, isTypedCell, type Cell, type SqliteCell, type TemporalType, type TypedCell } from './cells.js';

/** The engines the ladder runs on; a fixture's `dialect` names one. */
export type EngineName = 'sqlite' | 'postgres';

/**
 * Names one database to an engine, in that engine's own form: for SQLite the path of a database
 * file (absolute or relative to the cwd); for PostgreSQL the name of a database on the engine's
 * server (the engine is bound to one server). A snapshot's `path` holds it.
 */
export type DatabaseRef = string;

/** A row, read by position. Column names are kept apart in {@link QueryResult.columns}. */
export type Row = readonly Cell[];


/** A successful query. */
export interface QueryResult {
  /** Column names by position; duplicates are kept (`SELECT a.id, b.id` gives two `id`). */
  readonly columns: readonly string[];
  /** Rows by position; each row has `columns.length` cells. */
  readonly rows: readonly Row[];
  /** True when the legacy double-quote fallback rewrote the SQL before it ran. */
  readonly doubleQuoteFallback: boolean;
  /** The SQL text that actually ran (differs from the input only after the fallback). */
  readonly executedSql: string;
  /**
   * Wall time spent inside the child on the statement, in milliseconds: its prepare and its steps,
   * or its steps alone when the connection had already prepared the same text (docs/engine.md).
   */
  readonly elapsedMs: number;
}

/**
 * Why a statement did not produce a result. The codes are the same on every engine; the engine's
 * own message (and, on PostgreSQL, its SQLSTATE) stays in {@link ExecutionError}.
 */
export type ExecutionErrorCode =
  /** The engine's parser rejected the text (SQLite `syntax error`, `incomplete input`, `unrecognized token`; SQLSTATE 42601). */
  | 'syntax_error'
  /** A table or view the statement names does not exist (SQLite `no such table`; SQLSTATE 42P01). */
  | 'unknown_table'
  /** A column the statement names does not exist (SQLite `no such column`; SQLSTATE 42703). */
  | 'unknown_column'
  /** A column name matches more than one column (SQLite `ambiguous column name`; SQLSTATE 42702). */
  | 'ambiguous_column'
  /** A function the statement calls does not exist for its arguments (SQLite `no such function`; SQLSTATE 42883). */
  | 'unknown_function'
  /** The engine refused the statement for lack of a privilege (SQLSTATE 42501; SQLite has no privileges). */
  | 'permission_denied'
  /**
   * Any other failure the engine reported for the statement: a type mismatch, a division by zero, a
   * misuse of an aggregate, a database file SQLite cannot open.
   */
  | 'query_error'
  /** The text holds no statement at all. */
  | 'empty_statement'
  /** The text holds more than one statement. */
  | 'multiple_statements'
  /** The statement is not a read-only, row-returning SELECT / WITH … SELECT / VALUES. */
  | 'not_a_query'
  /** The statement ran past its deadline (SQLite: its child process was killed; PostgreSQL: the server cancelled it). */
  | 'timeout'
  /** The statement went over its memory or temporary-space cap (SQLite: the child's RSS; PostgreSQL: out of memory, `temp_file_limit`). */
  | 'memory_limit'
  /** The result has more rows than the row cap, or more bytes than the byte cap. */
  | 'result_too_large'
  /** The database does not exist (it is never created). */
  | 'db_not_found'
  /**
   * The database exists but cannot be used: a file that is not a SQLite database, is corrupt or
   * cannot be read, a WAL-mode file the engine cannot read safely; a PostgreSQL server that refuses
   * the connection. The machine's fault, never the statement's: runLadder turns it into a thrown
   * LadderError('db_unavailable'), which no front end charges to the model.
   */
  | 'db_unavailable'
  /** A database whose checksum was verified in this run (a fixture snapshot) changed since. */
  | 'db_changed'
  /** The engine failed for a reason that is not the statement's (a child died, a connection broke); it replaced what failed. */
  | 'engine_failure';

/** A statement's failure, with a message fit for a person. */
export interface ExecutionError {
  readonly code: ExecutionErrorCode;
  /** One line; the engine's own message where it gave one (e.g. `no such column: "APG"`, `column "apg" does not exist`). */
  readonly message: string;
  /** The engine's own error code when it has one: PostgreSQL's SQLSTATE (`42703`). Absent on SQLite. */
  readonly engineCode?: string;
  /** PostgreSQL: 1-based character position in the statement that the error points at, when the server gave one. */
  readonly position?: number;
}

/** The outcome of one statement: a result or an error, never a throw. */
export type ExecutionOutcome =
  | { readonly ok: true; readonly result: QueryResult }
  | { readonly ok: false; readonly error: ExecutionError };

/**
 * An outcome as an engine hands it out: an error's message (which quotes the statement, SQLite's
 * or the server's words) with its control characters escaped (format.ts `escapeControls`, the one
 * rule for every message). A result, or an error without such characters, is returned as it is.
 */
export function escapedOutcome<T extends { readonly ok: boolean }>(outcome: T): T {
  const error = (outcome as { readonly error?: ExecutionError }).error;
  if (outcome.ok || error === undefined) return outcome;
  const message = escapeControls(error.message);
  return message === error.message ? outcome : { ...outcome, error: { ...error, message } };
}

/** What to run and under which limits. Defaults come from the engine's options. */
export interface ExecuteRequest {
  /** The database, in the engine's own form ({@link DatabaseRef}): a SQLite file path, a PostgreSQL database name. */
  readonly db: DatabaseRef;
  /** One SQL statement (a trailing semicolon is allowed). */
  readonly sql: string;
  /** Deadline for this statement in milliseconds (engine default: 10 000). */
  readonly timeoutMs?: number;
  /** Row cap for this statement (engine default: 100 000). */
  readonly maxRows?: number;
  /** SQLite's double-quote handling (engine default: `legacy`); other engines ignore it. */
  readonly doubleQuotes?: DoubleQuoteMode;
}

/**
 * One step of a plan, as a tree node: `parent` is the id of the step it belongs to (0 for the top).
 * SQLite: a row of `EXPLAIN QUERY PLAN`; PostgreSQL: a node of `EXPLAIN (FORMAT JSON)`.
 */
export interface PlanStep {
  readonly id: number;
  readonly parent: number;
  /**
   * The engine's text for the step: SQLite's (`SCAN orders`, `SEARCH orders USING INDEX
   * idx_orders_date (order_date>?)`), PostgreSQL's node type with its relation (`Seq Scan on orders`).
   */
  readonly detail: string;
  /** The base table the step reads, when the engine names it (PostgreSQL's `Relation Name`). */
  readonly relation?: string;
  /** The index the step reads, when the engine names it (PostgreSQL's `Index Name`). */
  readonly index?: string;
  /**
   * PostgreSQL: set on the top node of a subplan, as EXPLAIN names it: `SubPlan 1` (run again for
   * each outer row that needs it: a correlated subquery) or `InitPlan 1 (returns $0)` (run once).
   */
  readonly subplan?: string;
  /** The engine's estimates, when it gives them (PostgreSQL: rows, and total cost in its own units). */
  readonly estimate?: { readonly rows: number; readonly cost: number };
  /**
   * What the step did when the statement ran (PostgreSQL with {@link ExplainRequest.analyze}):
   * actual rows per loop, loops, and the shared buffers it (and its children) hit or read.
   */
  readonly actual?: { readonly rows: number; readonly loops: number; readonly sharedBlocks: number };
}

/** A statement's plan, plus the tables it reads (seen through views). */
export interface ExplainResult {
  readonly plan: readonly PlanStep[];
  /**
   * Names of the base tables it reads, sorted, lower-case (SQLite: the tables its bytecode opens;
   * PostgreSQL: the plan's relations).
   */
  readonly tablesRead: readonly string[];
  /** True when the legacy double-quote fallback rewrote the SQL. */
  readonly doubleQuoteFallback: boolean;
}

/** What {@link Engine.explain} reads: a statement, and whether to run it. */
export interface ExplainRequest extends ExecuteRequest {
  /**
   * PostgreSQL: run the statement (`EXPLAIN (ANALYZE, BUFFERS)`) inside the engine's read-only
   * transaction, which is rolled back, so that each plan step carries what it actually did
   * (`PlanStep.actual`). SQLite ignores it: its plans are never run.
   */
  readonly analyze?: boolean;
}

/** The outcome of {@link Engine.explain}. */
export type ExplainOutcome =
  | { readonly ok: true; readonly result: ExplainResult }
  | { readonly ok: false; readonly error: ExecutionError };

/**
 * Runs SQL against databases. Implementations: `createSqliteEngine` (engine/sqlite),
 * `createPostgresEngine` (engine/postgres). All methods but `close` throw
 * `LadderError('engine_closed')` after `close()`.
 */
export interface Engine {
  /** The SQL dialect this engine executes, `sqlite` or `postgres` (the parser dialect of the same name). */
  readonly dialect: EngineName;
  /** Prepares and runs one query; never throws for the statement's own faults. */
  execute(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /**
   * Prepares without running: the dialect authority for L1 (SQLite's `prepare`; PostgreSQL's
   * parse and describe). `ok: true` means the engine accepts it and it is a query; the result then
   * has no rows (`rows: []`) but has `columns`.
   */
  prepare(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /** The query plan and the tables the statement reads, without running it (PostgreSQL with `analyze`: run and rolled back). */
  explain(request: ExplainRequest): Promise<ExplainOutcome>;
  /** Tables, views and columns of a database. Throws LadderError('db_not_found') for a missing database. */
  catalog(db: DatabaseRef): Promise<Catalog>;
  /** Ends every child process and connection (and a private server it started); resolves when they are gone. Idempotent. */
  close(): Promise<void>;
}
