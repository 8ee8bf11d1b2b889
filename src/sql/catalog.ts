/**
 * Building the role-visible {@link Catalog} that L2 checks names against, from one of three
 * sources:
 * - a SQLite database (the role-scoped fixture snapshot): {@link loadCatalog}, through
 *   `Engine.catalog` (tables, views and their columns as SQLite reports them);
 * - DDL text (`CREATE TABLE` / `CREATE VIEW` statements): {@link catalogFromDdl};
 * - a plain object (`{ orders: ['id', 'amount'] }`): {@link catalogFromObject}.
 *
 * Catalog names are kept exactly as declared; the dialect's case rules apply at lookup time
 * (catalog-index.ts).
 */
import { LadderError } from '../errors.js';
import { isObject } from '../objects.js';
import { invalidValue } from '../options.js';
import { defaultSchemaKey } from './identifiers.js';
import { DIALECTS, parseSql, type Dialect } from './parse.js';
import { collectReferences } from './references.js';
import type { Catalog, CatalogColumn, CatalogTable } from './catalog-types.js';

export type { Catalog, CatalogColumn, CatalogTable } from './catalog-types.js';

/**
 * The slice of an engine that {@link loadCatalog} uses (`Engine.catalog` satisfies it), so that the
 * SQL layer does not depend on the engine layer.
 */
export interface CatalogSource {
  /** Tables, views and columns of a database; throws LadderError('db_not_found') for a missing path. */
  catalog(db: string): Promise<Catalog>;
}

/**
 * The catalog of a database file as the engine sees it (for SQLite: schema `main`).
 * @param engine - any Engine (or other {@link CatalogSource}); for SQLite `createSqliteEngine()`.
 * @param db - path of the (role-scoped) database.
 * @throws LadderError `db_not_found` when the file does not exist.
 */
export async function loadCatalog(engine: CatalogSource, db: string): Promise<Catalog> {
  return engine.catalog(db);
}

/** The schema name unqualified DDL and object keys land in: `main`, `public`, `PUBLIC`, or `''`. */
function defaultSchemaName(dialect: Dialect): string {
  return defaultSchemaKey(dialect) ?? '';
}

type AnyNode = { readonly type: string; readonly range?: [number, number]; readonly [key: string]: unknown };

/**
 * Reads `CREATE TABLE` (column list or `AS SELECT`) and `CREATE VIEW` statements from DDL text;
 * other statements (INSERT, CREATE INDEX, …) are skipped. A view's columns are its explicit
 * column list, else the output columns of its query resolved against the tables declared before
 * it; a view whose columns cannot be derived (e.g. `SELECT *` over a table function) gets none.
 *
 * @param ddl - the DDL text.
 * @param dialect - how to parse it (default `sqlite`).
 * @throws LadderError `input_invalid` with `line:column` when the text does not parse;
 *   `invalid_option` when `ddl` is not a string or `dialect` is not one of {@link DIALECTS}.
 * @example
 * catalogFromDdl('CREATE TABLE hr.staff (id INTEGER PRIMARY KEY, name TEXT)')
 * // { tables: [{ name: 'staff', schema: 'hr', kind: 'table', columns: [{ name: 'id', type: 'INTEGER', primaryKey: true }, { name: 'name', type: 'TEXT', primaryKey: false }] }] }
 */
export function catalogFromDdl(ddl: string, dialect: Dialect = 'sqlite'): Catalog {
  // Validate arguments.
  if (typeof ddl !== 'string') throw invalidValue('ddl', 'a string', ddl);
  if (!DIALECTS.includes(dialect)) throw invalidValue('dialect', `one of ${DIALECTS.join(', ')}`, dialect);
  const parsed = parseSql(ddl, dialect);
  if (!parsed.ok) {
    const where = parsed.error.line !== undefined ? `${parsed.error.line}:${parsed.error.column ?? 1}: ` : '';
    throw new LadderError('input_invalid', `DDL does not parse: ${where}${parsed.error.message}`);
  }
  if (parsed.kind !== 'cst') throw new LadderError('input_invalid', `DDL in ${dialect} cannot be read (no sql-parser-cst dialect)`);

  const tables: CatalogTable[] = [];
  for (const statement of parsed.program.statements as unknown as AnyNode[]) {
    if (statement.type !== 'create_table_stmt' && statement.type !== 'create_view_stmt') continue;
    const { schema, name } = entityName(statement.name as AnyNode, dialect);
    if (statement.type === 'create_table_stmt') {
      const definitions = ((statement.columns as AnyNode | undefined)?.expr as AnyNode | undefined)?.items as AnyNode[] | undefined;
      let columns: CatalogColumn[];
      if (definitions) {
        columns = definitions.filter((item) => item.type === 'column_definition').map((item) => columnOf(ddl, item));
      } else {
        const query = findAsQuery(statement);
        columns = query ? derivedColumns(ddl, query, dialect, tables) : [];
      }
      tables.push({ name, schema, kind: 'table', columns });
    } else {
      const declared = ((statement.columns as AnyNode | undefined)?.expr as AnyNode | undefined)?.items as AnyNode[] | undefined;
      const query = findAsQuery(statement);
      const columns = declared
        ? declared.map((item) => ({ name: String((item.type === 'column_definition' ? (item.name as AnyNode).name : item.name) ?? ''), type: '', primaryKey: false }))
        : query
          ? derivedColumns(ddl, query, dialect, tables)
          : [];
      tables.push({ name, schema, kind: 'view', columns });
    }
  }
  return { tables };
}

function entityName(node: AnyNode, dialect: Dialect): { schema: string; name: string } {
  if (node.type === 'member_expr') {
    const object = node.object as AnyNode;
    const property = node.property as AnyNode;
    return { schema: String(object.name ?? ''), name: String(property.name ?? '') };
  }
  return { schema: defaultSchemaName(dialect), name: String(node.name ?? '') };
}

function columnOf(ddl: string, definition: AnyNode): CatalogColumn {
  const nameNode = definition.name as AnyNode;
  const dataType = definition.dataType as AnyNode | undefined;
  const constraints = (definition.constraints as AnyNode[] | undefined) ?? [];
  return {
    name: String(nameNode.name),
    type: dataType?.range ? ddl.slice(dataType.range[0], dataType.range[1]) : '',
    primaryKey: constraints.some((constraint) => constraint.type === 'constraint_primary_key'),
  };
}

function findAsQuery(statement: AnyNode): AnyNode | undefined {
  const direct = statement.as as AnyNode | undefined;
  const clauses = [...((statement.clauses as AnyNode[] | undefined) ?? []), ...(direct ? [direct] : [])];
  for (const clause of clauses) {
    if (clause.type === 'as_clause') return clause.expr as AnyNode;
  }
  return undefined;
}

function derivedColumns(ddl: string, query: AnyNode, dialect: Dialect, tables: readonly CatalogTable[]): CatalogColumn[] {
  const [start, end] = query.range ?? [0, 0];
  const sql = ddl.slice(start, end);
  const references = collectReferences({ sql, dialect, catalog: { tables } });
  if (!references.ok || !references.outputColumns) return [];
  return references.outputColumns.map((name) => ({ name, type: '', primaryKey: false }));
}

/** A plain-object catalog: table name (`orders` or `hr.orders`) → column names or `{ column: type }`. */
export type CatalogObject = Readonly<Record<string, readonly string[] | Readonly<Record<string, string>>>>;

/**
 * Builds a catalog from a plain object. A `Catalog` (`{ tables: [...] }`) is validated and
 * returned as is.
 *
 * @param object - `{ orders: ['order_id', 'amount'], 'hr.staff': { id: 'INTEGER', name: 'TEXT' } }`.
 * @param dialect - decides the schema of unqualified names (`main`, `public`, `PUBLIC`, or `''`).
 * @throws LadderError `invalid_option` naming the offending key (`catalog.orders`) when a value is
 *   neither a list of names nor a name → type object, or the table of a `Catalog` that lacks a field.
 */
export function catalogFromObject(object: CatalogObject | Catalog, dialect: Dialect = 'sqlite'): Catalog {
  if (!isObject(object as unknown)) throw invalidValue('catalog', 'an object of table → columns', object);
  if (Array.isArray((object as Catalog).tables)) return validateCatalog(object as Catalog);
  const tables: CatalogTable[] = [];
  for (const [key, value] of Object.entries(object as CatalogObject)) {
    const dot = key.lastIndexOf('.');
    const schema = dot >= 0 ? key.slice(0, dot) : defaultSchemaName(dialect);
    const name = dot >= 0 ? key.slice(dot + 1) : key;
    let columns: CatalogColumn[];
    if (Array.isArray(value) && value.every((column) => typeof column === 'string')) {
      columns = (value as string[]).map((column) => ({ name: column, type: '', primaryKey: false }));
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((type) => typeof type === 'string')) {
      columns = Object.entries(value as Record<string, string>).map(([column, type]) => ({ name: column, type, primaryKey: false }));
    } else {
      throw invalidValue(`catalog.${key}`, 'a list of column names or a { column: type } object', value);
    }
    tables.push({ name, schema, kind: 'table', columns });
  }
  return { tables };
}

function validateCatalog(catalog: Catalog): Catalog {
  for (const [index, table] of catalog.tables.entries()) {
    if (typeof table?.name !== 'string' || typeof table.schema !== 'string' || !Array.isArray(table.columns)) {
      throw invalidValue(`catalog.tables[${index}]`, '{ name, schema, kind, columns[] }', table);
    }
  }
  return catalog;
}

/**
 * A role's catalog annotated with what it hides: the tables and views of `full` the role's
 * catalog lacks, and the columns of `full`'s tables the role's catalog lacks (see
 * {@link Catalog.role}).
 * @param visible - the catalog as the role reads it.
 * @param full - the catalog of the whole database.
 * @param role - the role's name in the fixture manifest.
 */
export function withHiddenNames(visible: Catalog, full: Catalog, role: string): Catalog {
  const key = (table: { schema: string; name: string }): string => `${table.schema.toLowerCase()}.${table.name.toLowerCase()}`;
  const seen = new Map(visible.tables.map((table) => [key(table), table]));
  const hiddenTables = new Set<string>();
  const hiddenColumns = new Set<string>();
  for (const table of full.tables) {
    const mine = seen.get(key(table));
    if (mine === undefined) {
      hiddenTables.add(table.name.toLowerCase());
      continue;
    }
    const readable = new Set(mine.columns.map((column) => column.name.toLowerCase()));
    for (const column of table.columns) if (!readable.has(column.name.toLowerCase())) hiddenColumns.add(column.name.toLowerCase());
  }
  return { ...visible, role: { name: role, hiddenTables: [...hiddenTables].sort(), hiddenColumns: [...hiddenColumns].sort() } };
}
