/**
 * Name lookup over a {@link Catalog} under a dialect's case rules (see identifiers.ts).
 *
 * Schema-qualified names are compared whole: `hr.orders` only finds a table whose schema is `hr`;
 * `main.orders` (SQLite) or `public.orders` (PostgreSQL) finds `orders` in that schema. An
 * unqualified name finds a table in the default schema; on PostgreSQL, in the first schema of the
 * catalog's `searchPath` that has it (as the server resolves it); where the dialect has no default
 * schema, a table of any schema when that name is unique.
 */
import type { Catalog, CatalogColumn, CatalogTable } from './catalog-types.js';
import type { Dialect } from './parse.js';
import { catalogKey, defaultSchemaKey } from './identifiers.js';

/** A name as written: its parts (schema?, name) as comparison keys. */
export interface NameKeyParts {
  /** Comparison key of the schema part, when written. */
  readonly schema?: string;
  /** Comparison key of the table (or column) name. */
  readonly name: string;
}

/** Lookups over one catalog; build with {@link createCatalogIndex}. */
export interface CatalogIndex {
  readonly dialect: Dialect;
  readonly catalog: Catalog;
  /** The table or view a (possibly schema-qualified) name denotes, or `undefined`. */
  findTable(name: NameKeyParts): CatalogTable | undefined;
  /** The column of `table` with the given comparison key, or `undefined`. */
  findColumn(table: CatalogTable, columnKey: string): CatalogColumn | undefined;
  /** Every table name as a person would write it (`orders`, `hr.orders` outside the default schema). */
  tableNames(): readonly string[];
}

/**
 * Builds the lookup structure for `catalog` under `dialect`'s case rules.
 * @example
 * const index = createCatalogIndex({ tables: [{ name: 'orders', kind: 'table', schema: 'main', columns: [] }] }, 'sqlite');
 * index.findTable({ schema: 'main', name: 'orders' }) // the orders table
 * index.findTable({ schema: 'hr', name: 'orders' })   // undefined
 */
export function createCatalogIndex(catalog: Catalog, dialect: Dialect): CatalogIndex {
  const defaultSchema = defaultSchemaKey(dialect);
  // PostgreSQL: the schemas an unqualified name is looked up in, in order.
  const searchPath = dialect === 'postgres' && catalog.searchPath !== undefined ? catalog.searchPath.map((schema) => catalogKey(schema, dialect)) : undefined;
  const byQualified = new Map<string, CatalogTable>();
  const byName = new Map<string, CatalogTable[]>();
  const columns = new Map<CatalogTable, Map<string, CatalogColumn>>();
  for (const table of catalog.tables) {
    const schema = catalogKey(table.schema, dialect);
    const name = catalogKey(table.name, dialect);
    if (!byQualified.has(`${schema}\u0000${name}`)) byQualified.set(`${schema}\u0000${name}`, table);
    const list = byName.get(name) ?? [];
    list.push(table);
    byName.set(name, list);
    const columnMap = new Map<string, CatalogColumn>();
    for (const column of table.columns) {
      const key = catalogKey(column.name, dialect);
      if (!columnMap.has(key)) columnMap.set(key, column);
    }
    columns.set(table, columnMap);
  }

  function findTable(name: NameKeyParts): CatalogTable | undefined {
    if (name.schema !== undefined) return byQualified.get(`${name.schema}\u0000${name.name}`);
    if (searchPath !== undefined) {
      for (const schema of searchPath) {
        const found = byQualified.get(`${schema}\u0000${name.name}`);
        if (found) return found;
      }
      return undefined;
    }
    if (defaultSchema !== undefined) {
      const inDefault = byQualified.get(`${defaultSchema}\u0000${name.name}`);
      if (inDefault) return inDefault;
      // SQLite also searches `temp` and attached schemas for an unqualified name.
      if (dialect !== 'sqlite') return undefined;
    }
    const candidates = byName.get(name.name) ?? [];
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  return {
    dialect,
    catalog,
    findTable,
    findColumn: (table, columnKey) => columns.get(table)?.get(columnKey),
    // A table is offered unqualified when that name finds it, else with its schema.
    tableNames: () =>
      catalog.tables.map((table) =>
        (searchPath !== undefined ? findTable({ name: catalogKey(table.name, dialect) }) === table : defaultSchema !== undefined && catalogKey(table.schema, dialect) === defaultSchema)
          ? table.name
          : `${table.schema}.${table.name}`,
      ),
  };
}
