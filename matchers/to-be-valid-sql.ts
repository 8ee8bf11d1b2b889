/**
 * `toBeValidSql({ dialect, db? })` — L1 syntax: the received text is exactly one query that parses
 * in the dialect. Calls the L1 rung (`checkSyntax`, src/rungs/syntax.ts), the same function the
 * promptfoo `syntax` assertion calls. With `db` (a SQLite file, a PostgreSQL URL or a fixture:
 * database-ref.ts) the database decides: SQLite's prepare, PostgreSQL's parse and describe.
 */
import type { MatcherState } from 'vitest';
import { runGate } from '../src/rungs/gates.js';
import type { Dialect } from '../src/sql/parse.js';
import { argumentTypeError, isPlainObject, matcherTypeError, readDialect, rejectUnknownOptions } from './arguments.js';
import { DATABASE_NAMES } from '../src/sql/parse.js';
import { resolveMatcherDatabase, type MatcherDatabase } from './database-ref.js';
import { matcherRuntime } from './matcher-engine.js';
import { toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';

/** Options of {@link toBeValidSql}. */
export interface ValidSqlOptions {
  /** The dialect the SQL must parse in. Required: the matcher never guesses one. */
  readonly dialect: Dialect;
  /**
   * A database of the dialect to prepare the statement against: a SQLite file (path), a
   * `postgres://` URL, or `{ fixture, fixturesDir?, snapshots? }` (its first snapshot). The database
   * itself then decides (a statement it accepts passes even where the parser cannot read it);
   * without it the dialect parser decides. Nothing is ever written.
   */
  readonly db?: MatcherDatabase;
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
  const database = given['db'] === undefined ? undefined : await resolveMatcherDatabase(toBeValidSql, NAME, 'options.db', given['db'], matcherRuntime());
  if (database !== undefined && database.dialect !== dialect) {
    throw matcherTypeError(toBeValidSql, `${NAME}: options.db is a ${DATABASE_NAMES[database.dialect]} database (${database.description}), but options.dialect is "${dialect}": give a database of that dialect, or no db`);
  }

  const db = database?.snapshots[0]?.path;
  const result = await runGate('syntax', database === undefined ? { sql: received, dialect } : { sql: received, dialect, engine: database.engine, db: db! });
  const decidedBy = database === undefined ? '' : database.dialect === 'postgres' ? `, parsed and described by PostgreSQL on ${database.description}` : `, prepared by SQLite on ${database.description}`;
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'sql',
    expectedLabel: 'options',
    expectation: `be valid ${dialect} SQL (exactly one query${decidedBy})`,
    received,
    result,
    source: received,
  });
}
