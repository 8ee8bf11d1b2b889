/**
 * `toBeValidSql({ dialect, db? })` — L1 syntax: the received text is exactly one query that parses
 * in the dialect. Calls the L1 rung (`checkSyntax`, src/rungs/syntax.ts), the same function the
 * promptfoo `syntax` assertion calls.
 */
import type { MatcherState } from 'vitest';
import { runGate } from '../src/rungs/gates.js';
import type { Dialect } from '../src/sql/parse.js';
import { argumentTypeError, isPlainObject, readDialect, readOptionalString, rejectUnknownOptions } from './arguments.js';
import { getMatcherEngine } from './matcher-engine.js';
import { toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';

/** Options of {@link toBeValidSql}. */
export interface ValidSqlOptions {
  /** The dialect the SQL must parse in. Required: the matcher never guesses one. */
  readonly dialect: Dialect;
  /**
   * SQLite only: a database file (path) to prepare the statement against. SQLite itself then
   * decides (a statement SQLite accepts passes even where the parser cannot read it); without it
   * the dialect parser decides. The database is opened read-only and never changed.
   */
  readonly db?: string;
}

const NAME = 'toBeValidSql';
const OPTION_NAMES = ['dialect', 'db'] as const;

/**
 * Asserts that the received SQL text is exactly one query that parses in `options.dialect`.
 * Asynchronous: `await` it.
 *
 * @param received - the SQL text (already extracted from the model output).
 * @param options - {@link ValidSqlOptions}.
 * @returns vitest's matcher result; the failure message gives L1's reason and each issue with its
 *   line, column and a caret under the SQL.
 * @throws TypeError when `received` is not a string, `options` is not an object, `options.dialect`
 *   is not a known dialect, or `options.db` is not a path (or is given for another dialect);
 *   LadderError `invalid_option` for an unknown option; LadderError `db_not_found` for a missing db.
 * @example
 * await expect('SELECT name FROM customers').toBeValidSql({ dialect: 'sqlite' });
 * await expect('SELEC name FROM customers').not.toBeValidSql({ dialect: 'postgres' });
 */
export async function toBeValidSql(this: MatcherState, received: unknown, options: ValidSqlOptions): Promise<MatcherOutcome> {
  // Validate arguments.
  if (typeof received !== 'string') throw argumentTypeError(toBeValidSql, NAME, 'received', 'a SQL string', received);
  if (!isPlainObject(options)) throw argumentTypeError(toBeValidSql, NAME, 'options', 'an options object { dialect, db? }', options);
  const given: Record<string, unknown> = options;
  rejectUnknownOptions(toBeValidSql, NAME, 'options', given, OPTION_NAMES);
  const dialect = readDialect(toBeValidSql, NAME, 'options.dialect', given['dialect']);
  const db = readOptionalString(toBeValidSql, NAME, 'options.db', given['db'], 'a database path (string)');
  if (db !== undefined && dialect !== 'sqlite') {
    throw argumentTypeError(toBeValidSql, NAME, 'options.db', `absent for dialect "${dialect}" (only SQLite prepares against a database)`, db);
  }

  const result = await runGate('syntax', db === undefined ? { sql: received, dialect } : { sql: received, dialect, engine: getMatcherEngine(), db });
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'sql',
    expectedLabel: 'options',
    expectation: `be valid ${dialect} SQL (exactly one query${db === undefined ? '' : `, prepared by SQLite on ${db}`})`,
    received,
    result,
    source: received,
  });
}
