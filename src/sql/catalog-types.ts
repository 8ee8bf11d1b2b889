/**
 * The tables, views and columns a database exposes, as L2 checks names against them. Engines
 * produce it (`Engine.catalog`); DDL text and plain objects can too (catalog.ts).
 */

/** A column of a table or view in a {@link Catalog}. */
export interface CatalogColumn {
  readonly name: string;
  /** The declared type as written (may be empty in SQLite). */
  readonly type: string;
  readonly primaryKey: boolean;
}

/** A table or view in a {@link Catalog}. */
export interface CatalogTable {
  readonly name: string;
  readonly kind: 'table' | 'view';
  /** Schema name; `main` for SQLite. */
  readonly schema: string;
  readonly columns: readonly CatalogColumn[];
}

/** The tables and views a database exposes. */
export interface Catalog {
  readonly tables: readonly CatalogTable[];
  /**
   * PostgreSQL: the schemas an unqualified table name is looked up in, in order, as the database's
   * session resolves them (`current_schemas(false)`: the `search_path` with `$user` and missing
   * schemas dropped). Absent: the dialect's default schema (`public`).
   */
  readonly searchPath?: readonly string[];
  /**
   * Present when the catalog is a role's view of a database: the role's name and the names the
   * whole database has that the role may not see (lower-case; columns as bare names), so L2 says
   * `not visible to role <name>` instead of "no such table".
   */
  readonly role?: CatalogRole;
}

/** The role a {@link Catalog} belongs to, and what it hides. */
export interface CatalogRole {
  readonly name: string;
  /** Tables and views of the whole database outside the role (lower-case bare names). */
  readonly hiddenTables: readonly string[];
  /** Columns of the whole database's tables that the role may not read (lower-case bare names). */
  readonly hiddenColumns: readonly string[];
}
