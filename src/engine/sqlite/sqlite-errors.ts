/**
 * SQLite's error messages read into the engine-neutral codes of `ExecutionErrorCode`: SQLite gives
 * every prepare failure the one result code `SQLITE_ERROR`, so its message says which kind it is.
 * The message itself is kept as SQLite wrote it.
 */
import type { ExecutionError, ExecutionErrorCode } from '../engine.js';

/** Message prefixes of SQLite's name errors (sqlite3 src/resolve.c, src/build.c, src/expr.c). */
const NAME_PREFIXES: readonly (readonly [string, ExecutionErrorCode])[] = [
  ['no such table: ', 'unknown_table'],
  ['no such column: ', 'unknown_column'],
  ['ambiguous column name: ', 'ambiguous_column'],
  ['no such function: ', 'unknown_function'],
];

/**
 * Messages of a database SQLite cannot read (SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_CANTOPEN,
 * SQLITE_IOERR, sqlite3 src/main.c `sqlite3ErrStr`): the file's fault, whatever the statement.
 */
const UNAVAILABLE_MESSAGES: readonly string[] = ['file is not a database', 'database disk image is malformed', 'unable to open database file', 'disk I/O error'];

/**
 * The neutral code of one SQLite error message.
 * @example sqliteErrorCode('no such column: nope')        // 'unknown_column'
 * @example sqliteErrorCode('near "FROM": syntax error')   // 'syntax_error'
 * @example sqliteErrorCode('misuse of aggregate: count()') // 'query_error'
 * @example sqliteErrorCode('file is not a database')      // 'db_unavailable'
 */
export function sqliteErrorCode(message: string): ExecutionErrorCode {
  if (UNAVAILABLE_MESSAGES.some((text) => message.startsWith(text))) return 'db_unavailable';
  for (const [prefix, code] of NAME_PREFIXES) if (message.startsWith(prefix)) return code;
  if (message.includes('syntax error') || message.startsWith('incomplete input') || message.startsWith('unrecognized token')) return 'syntax_error';
  return 'query_error';
}

/** A SQLite error message as an {@link ExecutionError} with its neutral code. */
export function sqliteError(message: string): ExecutionError {
  return { code: sqliteErrorCode(message), message };
}
