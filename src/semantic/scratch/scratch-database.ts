/**
 * The scratch-database interface: the writing side of an engine, for the databases L5 makes and
 * reads itself (generated test-suite databases, witnesses, their edits, the snapshots' schemas and
 * values). The Engine interface (src/engine/engine.ts) stays query-only and refuses anything else;
 * what L5 must create, load and save goes through this interface instead, one implementation per
 * engine (SQLite's: sqlite-scratch.ts, the only module of src/semantic/ that uses the driver).
 *
 * What it offers: create a database (empty, or a writable copy of a file), load rows and edit them
 * (prepared statements with bound parameters), read its schema and its values (queries), save it
 * to a file, close it. Statements are the engine's SQL; values are the engine's cells, with
 * integers as `bigint` unless the database was opened with `integers: 'number'`.
 */

/** How integers come back from a scratch database: `bigint` (exact, the default) or `number`. */
export type ScratchIntegers = 'bigint' | 'number';

/** What a writing statement did. */
export interface ScratchRunInfo {
  /** Rows inserted, updated or deleted. */
  readonly changes: number;
  /** The row id of the last row inserted (0 when none was). */
  readonly lastInsertRowid: bigint;
}

/**
 * One compiled statement of a scratch database, run any number of times with positional
 * parameters (`?`). Every method throws the engine's error for a statement that fails (a
 * constraint, a type error, a missing table).
 */
export interface ScratchStatement {
  /** Runs a statement that returns no rows (INSERT, UPDATE, DELETE, DDL). */
  run(...params: readonly unknown[]): ScratchRunInfo;
  /** Every row, each an array of cells in column order. */
  rows(...params: readonly unknown[]): unknown[][];
  /** The first row (cells in column order), or `undefined` when there is none. */
  row(...params: readonly unknown[]): unknown[] | undefined;
  /** The first cell of every row. */
  column(...params: readonly unknown[]): unknown[];
  /** The first cell of the first row, or `undefined` when there is no row. */
  value(...params: readonly unknown[]): unknown;
  /** Every row as an object keyed by column name (for catalog queries); `T` is the row shape the caller's query gives. */
  records<T = Record<string, unknown>>(...params: readonly unknown[]): T[];
}

/** One open scratch database. Not shared between threads; close it when done. */
export interface ScratchDatabase {
  /**
   * Compiles a statement. On a database created with `reuseStatements`, the same text returns the
   * same statement (compiled once for the database's life).
   */
  prepare(sql: string): ScratchStatement;
  /** Runs a script of statements that return no rows (the schema's CREATE statements). */
  exec(sql: string): void;
  /**
   * Defines a non-deterministic SQL function of any number of arguments that returns `value()`
   * (the generator's seeded stand-in for `random()`); integers reach it as `bigint`.
   */
  defineFunction(name: string, value: () => unknown): void;
  /**
   * Writes the database to a new file `file` (which must not exist), compacted; without an fsync,
   * since scratch files are checked by checksum and rebuilt when lost.
   */
  saveTo(file: string): void;
  /** Closes the database; later calls are no-ops. */
  close(): void;
}

/** Options of {@link ScratchDatabases.create}. */
export interface CreateScratchOptions {
  /** How integers come back (default `bigint`). */
  readonly integers?: ScratchIntegers;
  /** Compile each statement text once for the database's life (a database drawn into many times). */
  readonly reuseStatements?: boolean;
}

/** Creating and opening scratch databases: one implementation per engine. */
export interface ScratchDatabases {
  /** A new, empty, writable database in memory, foreign keys not enforced (the generator orders its writes itself). */
  create(options?: CreateScratchOptions): ScratchDatabase;
  /**
   * A database file opened read-only (and query-only): its schema and values are read, never changed.
   * @throws the engine's error when the file does not exist or cannot be opened.
   */
  open(file: string, options?: { readonly integers?: ScratchIntegers }): ScratchDatabase;
  /**
   * A writable in-memory copy of a database file (the file is read once and never changed).
   * @param options.foreignKeys - whether the copy enforces foreign keys (default false).
   * @throws the engine's error when the file does not exist or is not a database.
   */
  copyOf(file: string, options?: { readonly integers?: ScratchIntegers; readonly foreignKeys?: boolean }): ScratchDatabase;
}
