/**
 * SQLite's own grammar, without a database: L1's authority for SQLite when no engine is given.
 * The text is compiled (never run) by the SQLite library in this process on an empty in-memory
 * database, read-only. Compiling is not inert for every statement (`PRAGMA` acts while it
 * compiles), so only a text the query gate admits (query-gate.ts: one statement starting with
 * SELECT, WITH or VALUES) is compiled; its parse errors are the grammar's verdict, and the name
 * errors that follow (there are no tables) are left to L2.
 */
import Database from 'better-sqlite3';
import type { ExecutionError } from '../engine.js';
import { errorText } from '../../format.js';
import { checkQueryText } from './query-gate.js';
import { sqliteError } from './sqlite-errors.js';

let connection: Database.Database | undefined;

/** Parse-time errors that are not worded as syntax errors. */
const GRAMMAR_LIMITS = /^(parser stack overflow|Expression tree is too large)/;

/**
 * The error SQLite's parser gives `sql`, or `undefined` when it parses (a name error on the empty
 * database is a parse that succeeded). `undefined` too for a text the query gate refuses (the
 * caller's parser judges those).
 * @example sqliteGrammarError('SELECT customer_id, FROM customers') // { code: 'syntax_error', message: 'near "FROM": syntax error' }
 */
export function sqliteGrammarError(sql: string): ExecutionError | undefined {
  if (checkQueryText(sql) !== undefined) return undefined;
  if (connection === undefined) {
    connection = new Database(':memory:', { readonly: false });
    connection.unsafeMode(false);
    connection.exec('PRAGMA query_only = 1');
  }
  try {
    connection.prepare(sql);
    return undefined;
  } catch (error) {
    const found = sqliteError(errorText(error));
    const raw = error instanceof Error ? error.message : String(error);
    if (found.code === 'syntax_error' || GRAMMAR_LIMITS.test(raw)) return found;
    return undefined;
  }
}
