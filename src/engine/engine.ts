/**
 * The `Engine` interface: how the ladder runs SQL against a database. The SQLite implementation
 * lives in `engine/sqlite/`; a Postgres one can implement the same interface later.
 *
 * Contract (the design note, Execution):
 * - Only queries run: a read-only, row-returning statement whose top level is SELECT,
 *   WITH … SELECT or VALUES. Anything else is refused with `not_a_query` before it steps.
 * - Databases are opened read-only; a missing path is `db_not_found`, never a new empty file.
 * - No statement may change the connection later statements run on.
 * - Every failure of the statement itself comes back as `{ ok: false, error }`; only misuse
 *   (bad options, a closed engine) throws a LadderError.
 */
import type { Catalog } from '../sql/catalog-types.js';
import type { DoubleQuoteMode } from '../sql/parse.js';

export type { Catalog, CatalogColumn, CatalogTable } from '../sql/catalog-types.js';
export type { DoubleQuoteMode } from '../sql/parse.js';

/**
 * One result cell. SQLite storage classes map to: NULL → `null`, INTEGER → `number` when it is a
 * safe integer (|n| ≤ 2^53 − 1) and `bigint` otherwise, REAL → `number`, TEXT → `string`,
 * BLOB → `Uint8Array`.
 */
export type Cell = null | number | bigint | string | Uint8Array;

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

/** Why a statement did not produce a result. */
export type ExecutionErrorCode =
  /** SQLite could not prepare the statement (syntax, unknown table or column, …). */
  | 'sqlite_error'
  /** The text holds no statement at all. */
  | 'empty_statement'
  /** The text holds more than one statement. */
  | 'multiple_statements'
  /** The statement is not a read-only, row-returning SELECT / WITH … SELECT / VALUES. */
  | 'not_a_query'
  /** The statement ran past its deadline and its child process was killed. */
  | 'timeout'
  /** The child process went over its memory cap and was killed. */
  | 'memory_limit'
  /** The result has more rows than the row cap. */
  | 'result_too_large'
  /** The database file does not exist (it is never created). */
  | 'db_not_found'
  /** A database whose checksum was verified in this run (a fixture snapshot) changed on disk since. */
  | 'db_changed'
  /** The child process died for another reason; the engine replaced it. */
  | 'engine_failure';

/** A statement's failure, with a message fit for a person. */
export interface ExecutionError {
  readonly code: ExecutionErrorCode;
  /** One line; names the cause (e.g. `no such column: "APG"`, `deadline of 10000 ms passed`). */
  readonly message: string;
}

/** The outcome of one statement: a result or an error, never a throw. */
export type ExecutionOutcome =
  | { readonly ok: true; readonly result: QueryResult }
  | { readonly ok: false; readonly error: ExecutionError };

/** What to run and under which limits. Defaults come from the engine's options. */
export interface ExecuteRequest {
  /** Absolute or cwd-relative path of the database file. */
  readonly db: string;
  /** One SQL statement (a trailing semicolon is allowed). */
  readonly sql: string;
  /** Deadline for this statement in milliseconds (engine default: 10 000). */
  readonly timeoutMs?: number;
  /** Row cap for this statement (engine default: 100 000). */
  readonly maxRows?: number;
  /** Double-quote handling (engine default: `legacy`). */
  readonly doubleQuotes?: DoubleQuoteMode;
}

/** One row of `EXPLAIN QUERY PLAN`. */
export interface PlanStep {
  readonly id: number;
  readonly parent: number;
  /** SQLite's text, e.g. `SCAN orders`, `SEARCH orders USING INDEX idx_orders_date (order_date>?)`. */
  readonly detail: string;
}

/** A statement's plan, plus the tables its bytecode opens for reading (sees through views). */
export interface ExplainResult {
  readonly plan: readonly PlanStep[];
  /** Names of the base tables the bytecode opens (OpenRead on a table root page), sorted, lower-case. */
  readonly tablesRead: readonly string[];
  /** True when the legacy double-quote fallback rewrote the SQL. */
  readonly doubleQuoteFallback: boolean;
}

/** The outcome of {@link Engine.explain}. */
export type ExplainOutcome =
  | { readonly ok: true; readonly result: ExplainResult }
  | { readonly ok: false; readonly error: ExecutionError };

/**
 * Runs SQL against databases. Implementations: `createSqliteEngine` (engine/sqlite).
 * All methods but `close` throw `LadderError('engine_closed')` after `close()`.
 */
export interface Engine {
  /** The SQL dialect this engine executes, e.g. `sqlite`. */
  readonly dialect: string;
  /** Prepares and runs one query; never throws for the statement's own faults. */
  execute(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /**
   * Prepares without running: the dialect authority for L1 on SQLite. `ok: true` means SQLite
   * accepts it and it is a query; the result then has no rows (`rows: []`) but has `columns`.
   */
  prepare(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /** The query plan and the tables the statement reads, without running it. */
  explain(request: ExecuteRequest): Promise<ExplainOutcome>;
  /** Tables, views and columns of a database. Throws LadderError('db_not_found') for a missing path. */
  catalog(db: string): Promise<Catalog>;
  /** Ends every child process; resolves when they are gone. Idempotent. */
  close(): Promise<void>;
}
