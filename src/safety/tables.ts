/**
 * The table rules of L3 (static safety): the allowed-tables policy (`table_not_allowed`), SQLite's
 * internal tables (`system_table`) and the table-functions setting (`table_function`).
 */
import { catalogKey, defaultSchemaKey, identifierKey, isQuotedIdentifier } from '../sql/identifiers.js';
import type { Dialect } from '../sql/parse.js';

/** The last dotted part of a name (`main.fn` → `fn`). */
export function lastPart(name: string): string {
  const parts = name.split('.');
  return parts[parts.length - 1] ?? name;
}

/** Whether a table-valued function is allowed by the `allowTableFunctions` setting (true, false, or a list of names). */
export function tableFunctionAllowed(name: string, setting: boolean | readonly string[]): boolean {
  if (setting === true) return true;
  if (setting === false) return false;
  const lowered = name.toLowerCase();
  return setting.some((allowed) => allowed.toLowerCase() === lowered || allowed.toLowerCase() === lastPart(lowered));
}

/**
 * What a system table or view exposes, or `undefined` for a table of the database's own:
 * SQLite's internal tables and eponymous virtual tables (`sqlite_*`, `dbstat`); PostgreSQL's
 * catalogs and statistics views (a `pg_*` name, which resolves in `pg_catalog` first, or any name in
 * `pg_catalog` / `information_schema`: `pg_stat_activity` shows other sessions' queries).
 * @param name - the table name as written (unquoted).
 * @param schemaKey - the schema part's comparison key, when written.
 */
export function systemTableKind(name: string, schemaKey: string | undefined, dialect: Dialect): string | undefined {
  const lowered = name.toLowerCase();
  if (lowered.startsWith('sqlite_') || lowered === 'dbstat') return 'SQLite internal table';
  if (dialect !== 'postgres') return undefined;
  if (schemaKey === 'pg_catalog' || lowered.startsWith('pg_')) return 'PostgreSQL system catalog (server and session internals)';
  if (schemaKey === 'information_schema') return 'PostgreSQL information schema (server metadata)';
  return undefined;
}

/** One allowed-tables entry as keys: the name and, when written, the schema. */
export interface AllowedEntry {
  readonly schema?: string;
  readonly name: string;
}

/** Policy entries are written like unquoted SQL names (`orders`, `hr.orders`); a quoted part is kept exact. */
export function allowedEntryKey(entry: string, dialect: Dialect): AllowedEntry {
  const parts = entry.trim().split('.');
  const key = (part: string): string => {
    const quoted = isQuotedIdentifier(part);
    const bare = quoted ? part.slice(1, -1) : part;
    return identifierKey(bare, quoted, dialect);
  };
  const name = key(parts[parts.length - 1]!);
  return parts.length > 1 ? { schema: key(parts[parts.length - 2]!), name } : { name };
}

/** Whether a table reference (name and schema keys) is the table an allowed entry names, with the dialect's default schema. */
export function tableMatches(entry: AllowedEntry, nameKey: string, schemaKey: string | undefined, dialect: Dialect): boolean {
  if (entry.name !== nameKey) return false;
  const defaultSchema = defaultSchemaKey(dialect);
  const referenceSchema = schemaKey ?? defaultSchema;
  const entrySchema = entry.schema ?? defaultSchema;
  if (referenceSchema === undefined || entrySchema === undefined) return referenceSchema === entrySchema;
  return catalogKey(referenceSchema, dialect) === catalogKey(entrySchema, dialect);
}
