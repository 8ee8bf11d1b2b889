/**
 * The shapes of a scope-aware resolution ({@link collectReferences} in references.ts): the tables,
 * CTEs, table functions and columns a statement names, what each resolves to, the names that
 * resolve to nothing (with a did-you-mean), and the scopes.
 */
import type { Program } from 'sql-parser-cst';
import type { CatalogTable, Catalog } from './catalog-types.js';
import type { Dialect, DoubleQuoteMode } from './parse.js';

/** A 1-based position plus the 0-based `[start, end)` offsets of the token in the SQL text. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  readonly start: number;
  readonly end: number;
}

/** A reference to a relation that is not a CTE, derived table or table function. */
export interface TableReference extends SourcePosition {
  /** The name as written, unquoted parts joined with `.` (e.g. `hr.orders`). */
  readonly written: string;
  /** The schema part as written, when qualified. */
  readonly schema?: string;
  /** The table part as written. */
  readonly name: string;
  /** Comparison key of the table part under the dialect's case rules (see identifiers.ts). */
  readonly nameKey: string;
  /** Comparison key of the schema part, when qualified. */
  readonly schemaKey?: string;
  /** The alias it is exposed under, when given. */
  readonly alias?: string;
  /** The catalog table it denotes; `undefined` when unknown or when no catalog was given. */
  readonly table?: CatalogTable;
  /** True when a catalog was given and the name is not in it. */
  readonly unknown: boolean;
  /**
   * True for a SQLite CTE whose non-compound body names the CTE itself (SQLite: `circular
   * reference`): resolved as the CTE, as SQLite does, and listed here so that a policy check also
   * treats it as the real table of that name.
   */
  readonly selfReference: boolean;
  /** Id of the scope the reference is in (see {@link ScopeInfo}). */
  readonly scope: number;
}

/** A reference to a CTE (a name in FROM that a WITH declared). */
export interface CteReference extends SourcePosition {
  readonly name: string;
  readonly scope: number;
  /** True when the reference sits in the CTE's own body. */
  readonly selfReference: boolean;
}

/** A function called in FROM position (`generate_series(1, 3)`, `json_each(x)`, `pragma_table_info('t')`). */
export interface TableFunctionReference extends SourcePosition {
  /** The function name as written, parts joined with `.`, unquoted. */
  readonly name: string;
  readonly scope: number;
}

/** What a column reference resolved to. */
export type ColumnResolution =
  /** A column of a catalog table. */
  | { readonly kind: 'table'; readonly table: CatalogTable; readonly column: string }
  /** An output column of a CTE or derived table, or any column of a table function. */
  | { readonly kind: 'cte' | 'derived' | 'function'; readonly source: string }
  /** A table whose columns are not known (unknown table, or no catalog given). */
  | { readonly kind: 'unchecked'; readonly source: string }
  /** A select-list alias (or compound output column) used in GROUP BY / HAVING / ORDER BY / WHERE. */
  | { readonly kind: 'select_alias' }
  /** SQLite legacy mode: a double-quoted token that names no column is a string literal. */
  | { readonly kind: 'string_literal' }
  /** Nothing in scope has this column. */
  | { readonly kind: 'unknown' }
  /** The qualifier names no table, alias or CTE in scope. */
  | { readonly kind: 'unknown_qualifier' }
  /** Several tables in scope have this column and it is not a USING / NATURAL column. */
  | { readonly kind: 'ambiguous'; readonly sources: readonly string[] };

/** A column reference (`a`, `t.a`, `main.t.a`, `t.*`). */
export interface ColumnReference extends SourcePosition {
  /** The column as written, unquoted (`*` for `t.*`). */
  readonly name: string;
  /** The qualifier as written, unquoted, parts joined with `.`. */
  readonly qualifier?: string;
  readonly resolution: ColumnResolution;
  readonly scope: number;
}

/** A name that resolves to nothing, with the closest candidate. */
export interface UnresolvedName extends SourcePosition {
  readonly kind: 'unknown_table' | 'unknown_column' | 'unknown_qualifier' | 'ambiguous_column';
  /** The name as written (qualified names joined with `.`). */
  readonly name: string;
  readonly message: string;
  /** Closest known name by Levenshtein distance, when one is close enough. */
  readonly suggestion?: string;
}

/** One scope (a SELECT): its id, its parent and the names it exposes. */
export interface ScopeInfo {
  readonly id: number;
  /** Enclosing scope for correlated names (`undefined` at top level and for FROM-derived tables' own roots). */
  readonly parent?: number;
  /** Why this scope exists. */
  readonly kind: 'query' | 'cte' | 'derived' | 'subquery' | 'compound_branch';
  /** Names the FROM clause exposes (aliases, table names, CTE names). */
  readonly sources: readonly string[];
}

/**
 * A double-quoted token read as a string literal (SQLite legacy mode: it names no column in scope).
 * `columnPosition` is true only for gold SQL: in predicted SQL such a token is an unknown column.
 */
export interface DoubleQuotedString extends SourcePosition {
  /** The token's value without quotes (`"N/A"` → `N/A`). */
  readonly value: string;
  /** True when the token stands where a column is expected (see column-positions.ts). */
  readonly columnPosition: boolean;
}

/** The full resolution of one statement. */
export interface References {
  readonly ok: true;
  /** Real-relation references, in source order (unknown ones too). */
  readonly tables: readonly TableReference[];
  readonly ctes: readonly CteReference[];
  readonly tableFunctions: readonly TableFunctionReference[];
  readonly columns: readonly ColumnReference[];
  /** Names that resolve to nothing, in source order. Empty when no catalog was given. */
  readonly unresolved: readonly UnresolvedName[];
  /** SQLite legacy mode: double-quoted tokens read as string literals, in source order. */
  readonly doubleQuotedStrings: readonly DoubleQuotedString[];
  readonly scopes: readonly ScopeInfo[];
  /** Output column names of the statement (`undefined` when not known, e.g. `SELECT *` over a table function). */
  readonly outputColumns?: readonly string[];
}

/** Why references could not be collected. */
export interface ReferencesFailure {
  readonly ok: false;
  /**
   * `parse_error` (the AST layer cannot read it, or the text is over a parse budget),
   * `not_single_statement`, `unsupported_tree` (snowflake), `budget` (the resolution ran out of
   * its time or stack budget; the reason starts "not analysed within budget").
   */
  readonly code: 'parse_error' | 'not_single_statement' | 'unsupported_tree' | 'budget';
  readonly reason: string;
}

/** Input of {@link collectReferences}. */
export interface CollectReferencesInput {
  /** SQL text of exactly one statement (a trailing `;` is allowed). */
  readonly sql: string;
  readonly dialect: Dialect;
  /** The role-visible catalog. Without it, tables and columns are collected but not checked. */
  readonly catalog?: Catalog;
  /** SQLite only: how double-quoted tokens naming no column are read. Default `legacy`. */
  readonly doubleQuotes?: DoubleQuoteMode;
  /**
   * Whose SQL this is (default `predicted`). For `gold`, a double-quoted token naming no column is
   * a string in column positions too (legacy datasets such as Spider write `SELECT "x"`); for
   * `predicted` it is an unknown column there.
   */
  readonly sqlRole?: 'predicted' | 'gold';
  /** An already parsed tree of `sql` (sql-parser-cst), to avoid parsing twice. */
  readonly program?: Program;
}
