/**
 * `toReferenceExistingSchema(catalogOrDb, { dialect? })` — L2 schema validity: every table and
 * column the received SQL names exists in the catalog, resolved scope by scope. Calls the L2 rung
 * (`checkSchema`, src/rungs/schema.ts) with a catalog from src/sql/catalog.ts, as the promptfoo
 * `schema` assertion does.
 */
import { catalogAsRole } from '../src/engine/role-scope.js';
import type { MatcherState } from 'vitest';
import type { Catalog } from '../src/engine/engine.js';
import type { RungResult } from '../src/rungs/rung-result.js';
import { catalogFromDdl, catalogFromObject } from '../src/sql/catalog.js';
import type { CatalogObject } from '../src/sql/catalog.js';
import type { Dialect } from '../src/sql/parse.js';
import { runGate } from '../src/rungs/gates.js';
import { argumentTypeError, isPlainObject, readDialect, readOptionsObject, rejectUnknownOptions } from './arguments.js';
import { resolveMatcherDatabase, type MatcherFixture } from './database-ref.js';
import { matcherRuntime } from './matcher-engine.js';
import { toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';
import { isLadderError } from '../src/errors.js';

/**
 * Where the catalog comes from:
 * - a string, or `{ db }`: a database read (read-only) through its engine — a SQLite file path, a
 *   `postgres://` URL (the tables the URL's role may read, its search_path), or a fixture
 *   `{ fixture, fixturesDir?, snapshots? }` (its first snapshot); the database's own prepare
 *   (SQLite's, PostgreSQL's parse and describe) also vouches for statements the AST layer cannot read;
 * - `{ ddl: text }`: `CREATE TABLE` / `CREATE VIEW` statements;
 * - a plain object `{ orders: ['id', 'total'], 'hr.staff': { id: 'INTEGER' } }`;
 * - a `Catalog` (`{ tables: [...] }`), as `Engine.catalog` returns.
 */
export type CatalogSource = string | { readonly db: string } | MatcherFixture | { readonly ddl: string } | CatalogObject | Catalog;

/** Options of {@link toReferenceExistingSchema}. */
export interface ExistingSchemaOptions {
  /**
   * The dialect whose scope and case rules apply. Default: the database's (`postgres` for a URL or
   * a PostgreSQL fixture), else `sqlite` (printed in every message).
   */
  readonly dialect?: Dialect;
}

const NAME = 'toReferenceExistingSchema';
const CATALOG_EXPECTED = 'a database path or postgres:// URL, { db }, { fixture }, { ddl }, a { table: columns } object or a Catalog';
/** Most tables and columns per table listed in a message. */
const MAX_LISTED_TABLES = 12;
const MAX_LISTED_COLUMNS = 12;

/**
 * Asserts that every table and column the received SQL names exists in the catalog.
 * Asynchronous: `await` it.
 *
 * @param received - the SQL text.
 * @param catalogOrDb - see {@link CatalogSource}.
 * @param options - {@link ExistingSchemaOptions}.
 * @returns vitest's matcher result; the failure message lists each unknown identifier with its
 *   line, column, a caret under the SQL and a did-you-mean, then the catalog's tables.
 * @throws TypeError when `received` is not a string or `catalogOrDb` is none of the sources above;
 *   LadderError `db_not_found` for a missing database, `input_invalid` for DDL that does not
 *   parse, `invalid_option` for an unknown option.
 * @example
 * await expect('SELECT name FROM customers').toReferenceExistingSchema('db/shop.sqlite');
 * await expect('SELECT nme FROM customers').not.toReferenceExistingSchema({ customers: ['id', 'name'] });
 */
export async function toReferenceExistingSchema(
  this: MatcherState,
  received: unknown,
  catalogOrDb: CatalogSource,
  options?: ExistingSchemaOptions,
): Promise<MatcherOutcome> {
  // Validate arguments.
  if (typeof received !== 'string') throw argumentTypeError(toReferenceExistingSchema, NAME, 'received', 'a SQL string', received);
  const given = readOptionsObject(toReferenceExistingSchema, NAME, 'options', options, 'an options object { dialect? }');
  rejectUnknownOptions(toReferenceExistingSchema, NAME, 'options', given, ['dialect']);
  const givenDialect = given['dialect'] === undefined ? undefined : readDialect(toReferenceExistingSchema, NAME, 'options.dialect', given['dialect']);
  const source = readSource(catalogOrDb, givenDialect ?? 'sqlite');
  let dialect: Dialect = givenDialect ?? 'sqlite';

  // Interpret: build the catalog; for a database, the gate runner lets the database's own prepare
  // vouch for what the AST layer cannot read (engineAccepted from L1).
  let catalog: Catalog;
  let result: RungResult;
  if (source.kind === 'db') {
    const database = await resolveMatcherDatabase(toReferenceExistingSchema, NAME, 'catalogOrDb', source.db, matcherRuntime());
    if (givenDialect !== undefined && givenDialect !== database.dialect) {
      throw argumentTypeError(toReferenceExistingSchema, NAME, 'options.dialect', `"${database.dialect}" (or absent) for a ${database.dialect === 'sqlite' ? 'SQLite database file' : 'PostgreSQL database'}`, givenDialect);
    }
    dialect = database.dialect;
    const db = database.snapshots[0]!.path;
    catalog = await catalogAsRole(database.engine, db);
    source.description = `the database ${database.description}`;
    result = await runGate('schema', { sql: received, dialect, engine: database.engine, db, catalog });
  } else {
    catalog = source.catalog;
    result = await runGate('schema', { sql: received, dialect, catalog });
  }
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'sql',
    expectedLabel: 'catalogOrDb',
    expectation: `name only tables and columns that exist in ${source.description} (${dialect} name rules)`,
    received,
    result,
    source: received,
    sections: [formatCatalog(catalog)],
  });
}

type ReadSource =
  | { readonly kind: 'db'; readonly db: unknown; description: string }
  | { readonly kind: 'catalog'; readonly catalog: Catalog; readonly description: string };

function readSource(value: unknown, dialect: Dialect): ReadSource {
  if (typeof value === 'string' && value !== '') return databaseSource(value);
  if (!isPlainObject(value)) throw argumentTypeError(toReferenceExistingSchema, NAME, 'catalogOrDb', CATALOG_EXPECTED, value);
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value['db'] === 'string') return databaseSource(value['db']);
  if (typeof value['fixture'] === 'string') return { kind: 'db', db: value, description: `fixture ${value['fixture']}` };
  if (keys.length === 1 && typeof value['ddl'] === 'string') {
    const catalog = catalogFromDdl(value['ddl'], dialect);
    return { kind: 'catalog', catalog, description: `the DDL (${countTables(catalog)})` };
  }
  try {
    const catalog = catalogFromObject(value as CatalogObject | Catalog, dialect);
    return { kind: 'catalog', catalog, description: `the catalog (${countTables(catalog)})` };
  } catch (error) {
    if (!isLadderError(error, 'invalid_option')) throw error;
    const wrapped = new TypeError(`${NAME}: catalogOrDb must be ${CATALOG_EXPECTED}; ${error.message}`);
    Error.captureStackTrace(wrapped, toReferenceExistingSchema);
    throw wrapped;
  }
}

function databaseSource(db: string): ReadSource {
  return { kind: 'db', db, description: `the database ${db}` };
}

function countTables(catalog: Catalog): string {
  return `${catalog.tables.length} ${catalog.tables.length === 1 ? 'table' : 'tables'}`;
}

/** `Catalog: customers(id, name, city), orders(id, customer_id, total)`, capped. */
function formatCatalog(catalog: Catalog): string {
  if (catalog.tables.length === 0) return 'Catalog: no tables';
  const shown = catalog.tables.slice(0, MAX_LISTED_TABLES).map((table) => {
    const qualified = ['', 'main', 'public', 'PUBLIC'].includes(table.schema) ? table.name : `${table.schema}.${table.name}`;
    const columns = table.columns.slice(0, MAX_LISTED_COLUMNS).map((column) => column.name);
    const more = table.columns.length > MAX_LISTED_COLUMNS ? `, … +${table.columns.length - MAX_LISTED_COLUMNS}` : '';
    return `  ${qualified}${table.kind === 'view' ? ' (view)' : ''}(${columns.join(', ')}${more})`;
  });
  const moreTables = catalog.tables.length > MAX_LISTED_TABLES ? [`  … +${catalog.tables.length - MAX_LISTED_TABLES} more tables`] : [];
  return `Catalog:\n${[...shown, ...moreTables].join('\n')}`;
}
