/**
 * Dialect case rules for identifiers: how a name written in SQL is compared with a catalog name.
 *
 * Each rule turns a name into a comparison key; two names denote the same object when their keys
 * are equal. Sources:
 * - SQLite: identifiers are case-insensitive for ASCII letters, quoted or not
 *   (https://www.sqlite.org/lang_keywords.html, "SQLite … is case insensitive" for names).
 *   Quoting forms: `"x"`, `[x]`, `` `x` ``.
 * - PostgreSQL: unquoted names fold to lower case, quoted names are exact
 *   (https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS).
 * - Snowflake: unquoted names fold to upper case, quoted names are exact
 *   (https://docs.snowflake.com/en/sql-reference/identifiers-syntax).
 * - MySQL: column names are case-insensitive; table names follow `lower_case_table_names`
 *   (case-sensitive on Linux by default). We compare case-insensitively, which can accept a name
 *   the server would reject on a case-sensitive file system, never the reverse.
 * - BigQuery: column names are case-insensitive; dataset and table names are case-sensitive
 *   (https://cloud.google.com/bigquery/docs/reference/standard-sql/lexical#case_sensitivity).
 *   We compare case-insensitively, with the same caveat as MySQL.
 */
import type { Dialect } from './parse.js';

/** What the name denotes; only table names differ from column names in some dialects. */
export type IdentifierRole = 'table' | 'column' | 'schema';

/**
 * True when the token text is quoted (`"x"`, `[x]`, `` `x` ``).
 * @param text - the token as written (sql-parser-cst `Identifier.text`).
 */
export function isQuotedIdentifier(text: string): boolean {
  const first = text[0];
  return first === '"' || first === '`' || first === '[';
}

/**
 * The comparison key of a name written in SQL.
 *
 * @param name - the unquoted name (sql-parser-cst `Identifier.name`).
 * @param quoted - whether it was written quoted.
 * @param dialect - the SQL dialect.
 * @example
 * identifierKey('Orders', false, 'postgres') // 'orders'
 * identifierKey('Orders', true, 'postgres')  // 'Orders'
 * identifierKey('Orders', true, 'sqlite')    // 'orders'
 */
export function identifierKey(name: string, quoted: boolean, dialect: Dialect): string {
  switch (dialect) {
    case 'postgres':
      return quoted ? name : name.toLowerCase();
    case 'snowflake':
      return quoted ? name : name.toUpperCase();
    case 'sqlite':
    case 'mysql':
    case 'bigquery':
      return name.toLowerCase();
  }
}

/**
 * The comparison key of a name stored in a catalog. Catalog names are stored exactly as the
 * database reports them, so they compare like quoted names.
 */
export function catalogKey(name: string, dialect: Dialect): string {
  return identifierKey(name, true, dialect);
}

/**
 * The schema a dialect uses for unqualified names, as a comparison key: `main` (SQLite),
 * `public` (PostgreSQL), `PUBLIC` (Snowflake); `undefined` where there is none (MySQL, BigQuery),
 * in which case a qualified name only matches a catalog table carrying that schema.
 */
export function defaultSchemaKey(dialect: Dialect): string | undefined {
  switch (dialect) {
    case 'sqlite':
      return 'main';
    case 'postgres':
      return 'public';
    case 'snowflake':
      return 'PUBLIC';
    case 'mysql':
    case 'bigquery':
      return undefined;
  }
}

/**
 * A name as a double-quoted SQL identifier (`a"b` → `"a""b"`), the standard form that SQLite,
 * PostgreSQL and Snowflake read as a name whatever its spelling or keyword status.
 * @param name - the name as stored in the catalog (unquoted).
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A catalog name as it must be written to denote it: on PostgreSQL a name that unquoted would fold
 * to something else (`Region Name`, `Staff`) is double-quoted, part by part for a qualified name
 * (`hr."Staff"`); other dialects compare case-insensitively and get the name as it is.
 * @example writtenName('Region Name', 'postgres') // '"Region Name"'
 * @example writtenName('hr.staff', 'postgres')    // 'hr.staff'
 */
export function writtenName(name: string, dialect: Dialect): string {
  if (dialect !== 'postgres') return name;
  return name
    .split('.')
    .map((part) => (/^[a-z_][a-z0-9_$]*$/.test(part) ? part : quoteIdentifier(part)))
    .join('.');
}
