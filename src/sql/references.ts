/**
 * Scope-aware table and column resolution over a sql-parser-cst tree: which names in a query
 * denote real tables, CTEs, derived tables, table functions, select-list aliases or columns, and
 * which denote nothing. The schema rung (L2), the safety rung's allowed-tables policy (L3) and
 * schema-linking diagnostics all read this one resolution.
 *
 * Rules (each has a test in tests/sql/references.test.ts):
 * - Scopes: every SELECT (including each branch of a compound, each subquery, each CTE body and
 *   each derived table) is its own scope. Columns resolve in the innermost scope first, then
 *   outwards (correlated subqueries). A derived table in FROM sees the enclosing query's outer
 *   scopes, not its sibling FROM items (no LATERAL).
 * - CTEs: a CTE name is visible in the statement that declares it, in later CTEs of the same WITH
 *   and in every nested subquery, and it shadows a real table of the same name there. In its own
 *   body the CTE is visible only when the WITH is RECURSIVE — except in SQLite, where every CTE
 *   is visible in its own body (SQLite reports `circular reference` for a non-recursive
 *   self-reference; measured with better-sqlite3 12). Such a circular self-reference (the body is
 *   not a compound, so it is not a recursive CTE) is also listed in `tables` with
 *   `selfReference: true`, so that a policy check can treat it as the real table (fail closed);
 *   the self-reference of a real recursive CTE (compound body) is only a CTE reference.
 * - Derived tables and table functions expose their alias; their columns are the subquery's output
 *   columns, or the alias column list (`AS g(x)`), or unknown (any column accepted).
 * - Select-list aliases are visible in GROUP BY, HAVING, ORDER BY and QUALIFY (and in WHERE for
 *   SQLite, which resolves them there too); a real column of the same name wins except in ORDER BY.
 *   The ORDER BY of a compound SELECT (attached by the parser to its last branch) may name any
 *   output column of any branch.
 * - `USING (c)` and `NATURAL JOIN` columns may be written unqualified without being ambiguous.
 * - String literals are never columns. In SQLite's legacy double-quote mode a double-quoted token
 *   that names no column in scope is a string literal (https://www.sqlite.org/quirks.html#dblquote)
 *   in a value position, listed in `doubleQuotedStrings`. In a column position (a whole select-list,
 *   GROUP BY or ORDER BY item, a comparison operand of a join's ON; column-positions.ts) it is an
 *   unknown column for predicted SQL — that is how a hallucinated `SELECT "full_name"` looks — and
 *   a string only for gold SQL (`sqlRole: 'gold'`), which legacy datasets need.
 * - Schema-qualified table names are compared whole (see catalog-index.ts); a table with an
 *   alias is reachable only through the alias (SQLite: `SELECT t.a FROM t AS x` is an error).
 * - SQLite tables (not views) also have the columns `rowid`, `oid` and `_rowid_`.
 * - SQLite `x IN t` / `x IN schema.t` names a table (or CTE) and `x IN f(…)` a table-valued
 *   function (https://www.sqlite.org/lang_expr.html#the_in_and_not_in_operators): they are table
 *   references, never columns.
 * - SQLite table-valued functions: with a catalog, a function in FROM that is neither one SQLite
 *   offers (sqlite-table-functions.ts) nor a catalog table (an FTS5 table called as `docs('q')`)
 *   is `unknown_table`, as SQLite says `no such table: pragma_nosuchthing`.
 * - LIMIT and OFFSET see no column at all, of this query or an enclosing one, not even from a
 *   subquery inside them: SQLite evaluates them once, before any row (`no such column`); CTEs
 *   stay visible.
 */
import { closest, distance } from 'fastest-levenshtein';
import type { Node, Program } from 'sql-parser-cst';
import type { Catalog, CatalogTable } from './catalog-types.js';
import type { DoubleQuoteMode } from './parse.js';
import { checkAnalysisBudget, withinAnalysisBudget } from './analysis-budget.js';
import { createCatalogIndex, type CatalogIndex } from './catalog-index.js';
import { columnPositionIdentifiers } from './column-positions.js';
import { identifierKey, isQuotedIdentifier } from './identifiers.js';
import { parseSql, positionAt, type Dialect } from './parse.js';
import { isSqliteTableFunction } from './sqlite-table-functions.js';

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

/**
 * Resolves every table and column name of one statement, scope by scope.
 *
 * @returns the references, or `ok: false` when the statement cannot be read (parse error, more
 *   than one statement, a dialect whose tree is not sql-parser-cst, or over the analysis budget of
 *   analysis-budget.ts). Never throws for bad SQL.
 * @example
 * collectReferences({ sql: 'WITH s AS (SELECT * FROM salaries) SELECT * FROM s', dialect: 'postgres' })
 * // tables: [{ name: 'salaries', … }], ctes: [{ name: 's', … }]
 */
export function collectReferences(input: CollectReferencesInput): References | ReferencesFailure {
  const { sql, dialect } = input;
  let program = input.program;
  if (!program) {
    const parsed = parseSql(sql, dialect);
    if (!parsed.ok) return { ok: false, code: 'parse_error', reason: parsed.error.message };
    if (parsed.kind !== 'cst') {
      // node-sql-parser's Snowflake grammar reads a double-quoted identifier ("Col") as a string
      // literal, so a resolution built on it would misjudge quoted names: report, do not guess.
      return { ok: false, code: 'unsupported_tree', reason: `scope resolution is not implemented for ${dialect} (its parser reads "quoted" identifiers as strings)` };
    }
    program = parsed.program;
  }
  const statements = program.statements.filter((statement) => statement.type !== 'empty');
  if (statements.length !== 1) {
    return { ok: false, code: 'not_single_statement', reason: `expected 1 statement, found ${statements.length}` };
  }
  const resolver = new Resolver(sql, dialect, input.catalog ? createCatalogIndex(input.catalog, dialect) : undefined, input.doubleQuotes ?? 'legacy', input.sqlRole ?? 'predicted');
  const resolved = withinAnalysisBudget(() => resolver.run(statements[0]!));
  return resolved.ok ? resolved.value : { ok: false, code: 'budget', reason: resolved.reason };
}

// ---------------------------------------------------------------------------------------------

type AnyNode = Node & { readonly [key: string]: unknown };

interface Identifierish {
  readonly type: 'identifier';
  readonly text: string;
  readonly name: string;
  readonly range?: [number, number];
}

/** Output columns: comparison key → name as written; `null` when unknown (accept any). */
type ColumnSet = Map<string, string> | null;

interface Cte {
  readonly key: string;
  readonly name: string;
  columns: ColumnSet;
  /** Set while the body is being resolved. */
  defining: boolean;
  /**
   * SQLite only: a self-reference in this CTE's body is the `circular reference` case (the body is
   * not a compound, so it cannot be a recursive CTE); policy checks treat it as the real table.
   */
  readonly circularSelfReference: boolean;
}

interface Source {
  /** Name the source is exposed under (alias, else table / CTE / function name); '' for an unaliased derived table. */
  readonly name: string;
  readonly key: string;
  readonly kind: 'table' | 'cte' | 'derived' | 'function' | 'unchecked';
  readonly columns: ColumnSet;
  readonly table?: CatalogTable;
  /** For an unaliased table: the schema key written (or default), to match `schema.table.col`. */
  readonly schemaKey?: string;
  readonly hasRowid: boolean;
}

interface Scope {
  readonly id: number;
  readonly parent: Scope | undefined;
  readonly ctes: ReadonlyMap<string, Cte>;
  readonly sources: Source[];
  /** Column keys joined by USING / NATURAL: unqualified use is not ambiguous. */
  readonly mergedColumns: Set<string>;
  /** Select-list aliases: key → name. */
  readonly aliases: Map<string, string>;
  /** Output names of earlier compound branches (ORDER BY of a compound). */
  compoundOutputs: Set<string>;
}

interface Env {
  readonly outer: Scope | undefined;
  readonly ctes: ReadonlyMap<string, Cte>;
}

/** Which clause an expression is in (controls alias visibility). */
type ClauseKind = 'select' | 'where' | 'group' | 'having' | 'order' | 'other';

const ROWID_KEYS = new Set(['rowid', 'oid', '_rowid_']);

class Resolver {
  private readonly tables: TableReference[] = [];
  private readonly ctes: CteReference[] = [];
  private readonly tableFunctions: TableFunctionReference[] = [];
  private readonly columns: ColumnReference[] = [];
  private readonly unresolved: UnresolvedName[] = [];
  private readonly doubleQuotedStrings: DoubleQuotedString[] = [];
  /** Identifier nodes in column positions (see column-positions.ts), set by {@link run}. */
  private columnPositions: ReadonlySet<object> = new Set();
  private readonly scopes: ScopeInfo[] = [];
  private nextScope = 0;
  /** WITH clauses already resolved at compound level. */
  private readonly handledWith = new WeakSet<object>();

  constructor(
    private readonly sql: string,
    private readonly dialect: Dialect,
    private readonly catalog: CatalogIndex | undefined,
    private readonly doubleQuotes: DoubleQuoteMode,
    private readonly sqlRole: 'predicted' | 'gold',
  ) {}

  run(statement: Node): References {
    if (this.dialect === 'sqlite' && this.doubleQuotes === 'legacy') this.columnPositions = columnPositionIdentifiers(statement);
    const output = this.query(statement as AnyNode, { outer: undefined, ctes: new Map() }, 'query');
    const byStart = <T extends SourcePosition>(items: T[]): T[] => [...items].sort((a, b) => a.start - b.start);
    return {
      ok: true,
      tables: byStart(this.tables),
      ctes: byStart(this.ctes),
      tableFunctions: byStart(this.tableFunctions),
      columns: byStart(this.columns),
      unresolved: byStart(this.unresolved),
      doubleQuotedStrings: byStart(this.doubleQuotedStrings),
      scopes: this.scopes,
      ...(output ? { outputColumns: [...output.values()] } : {}),
    };
  }

  // ----- queries -------------------------------------------------------------------------------

  /** Resolves any query-shaped node; returns its output columns. Non-queries are walked generically. */
  private query(node: AnyNode, env: Env, kind: ScopeInfo['kind'], compoundOutputs?: Set<string>): ColumnSet {
    switch (node.type) {
      case 'select_stmt':
        return this.select(node, env, kind, compoundOutputs);
      case 'compound_select_stmt': {
        // The parser attaches a compound's WITH to its leftmost SELECT; it scopes over every branch.
        const withClause = leftmostWith(node);
        const branchEnv: Env = withClause ? { outer: env.outer, ctes: this.withClause(withClause, env) } : env;
        if (withClause) this.handledWith.add(withClause);
        const left = this.query(node.left as AnyNode, branchEnv, 'compound_branch', compoundOutputs);
        const names = new Set<string>(compoundOutputs ?? []);
        for (const key of left?.keys() ?? []) names.add(key);
        this.query(node.right as AnyNode, branchEnv, 'compound_branch', names);
        return left;
      }
      case 'paren_expr':
        return this.query(node.expr as AnyNode, env, kind, compoundOutputs);
      default: {
        // A data-modifying statement (e.g. in a CTE body): not a query. Walk it in a scope of its
        // own so that nested queries are still resolved; the safety rung blocks the statement.
        const scope = this.newScope(env, kind);
        this.walkGeneric(node, scope);
        return null;
      }
    }
  }

  private newScope(env: Env, kind: ScopeInfo['kind']): Scope {
    const scope: Scope = {
      id: this.nextScope++,
      parent: env.outer,
      ctes: env.ctes,
      sources: [],
      mergedColumns: new Set(),
      aliases: new Map(),
      compoundOutputs: new Set(),
    };
    return scope;
  }

  private select(node: AnyNode, env: Env, kind: ScopeInfo['kind'], compoundOutputs?: Set<string>): ColumnSet {
    const clauses = (node.clauses as AnyNode[]) ?? [];
    let ctes = env.ctes;
    const withClause = clauses.find((clause) => clause.type === 'with_clause');
    if (withClause && !this.handledWith.has(withClause)) ctes = this.withClause(withClause, env);
    const scope = this.newScope({ outer: env.outer, ctes }, kind);
    if (compoundOutputs) scope.compoundOutputs = compoundOutputs;

    const from = clauses.find((clause) => clause.type === 'from_clause');
    if (from) this.fromItem(from.expr as AnyNode, scope, { outer: env.outer, ctes });

    const selectClause = clauses.find((clause) => clause.type === 'select_clause');
    const items = ((selectClause?.columns as AnyNode | undefined)?.items as AnyNode[] | undefined) ?? [];
    for (const item of items) {
      if (item.type === 'alias') {
        const alias = item.alias as Identifierish;
        scope.aliases.set(this.key(alias), alias.name);
      }
    }
    this.scopes.push({
      id: scope.id,
      ...(scope.parent ? { parent: scope.parent.id } : {}),
      kind,
      sources: scope.sources.map((source) => source.name),
    });

    let output: ColumnSet = null;
    for (const clause of clauses) {
      switch (clause.type) {
        case 'with_clause':
        case 'from_clause':
          break;
        case 'select_clause':
          for (const modifier of (clause.modifiers as AnyNode[]) ?? []) this.expr(modifier, scope, 'select');
          for (const item of items) this.expr(item, scope, 'select');
          output = this.outputColumns(items, scope);
          break;
        case 'values_clause':
          this.expr(clause, scope, 'select');
          output = this.valuesColumns(clause);
          break;
        case 'where_clause':
          this.expr(clause.expr as AnyNode, scope, 'where');
          break;
        case 'group_by_clause':
          this.expr(clause.columns as AnyNode, scope, 'group');
          break;
        case 'having_clause':
          this.expr(clause.expr as AnyNode, scope, 'having');
          break;
        case 'qualify_clause':
          this.expr(clause.expr as AnyNode, scope, 'having');
          break;
        case 'order_by_clause':
          this.expr(clause.specifications as AnyNode, scope, 'order');
          break;
        case 'window_clause':
          for (const named of ((clause.namedWindows as AnyNode).items as AnyNode[]) ?? []) {
            this.expr(named.window as AnyNode, scope, 'other');
          }
          break;
        case 'paren_expr':
          // `(SELECT …) ORDER BY …`: the parenthesised query is this statement's body.
          output = this.query(clause.expr as AnyNode, { outer: env.outer, ctes }, 'subquery');
          for (const key of output?.keys() ?? []) scope.compoundOutputs.add(key);
          break;
        case 'limit_clause':
        case 'offset_clause':
          // SQLite evaluates LIMIT / OFFSET once, before any row: no column of this query or of
          // an enclosing one is visible there, not even from a subquery (`no such column`).
          this.expr(clause, this.isolatedScope(ctes), 'other');
          break;
        default:
          // FETCH, INTO, FOR UPDATE, …: walk for nested subqueries and columns.
          this.expr(clause, scope, 'other');
      }
    }
    return output;
  }

  /** A scope with no sources and no enclosing scope (LIMIT / OFFSET expressions); CTEs stay visible. */
  private isolatedScope(ctes: ReadonlyMap<string, Cte>): Scope {
    const scope = this.newScope({ outer: undefined, ctes }, 'subquery');
    this.scopes.push({ id: scope.id, kind: 'subquery', sources: [] });
    return scope;
  }

  private withClause(clause: AnyNode, env: Env): ReadonlyMap<string, Cte> {
    const recursive = clause.recursiveKw !== undefined;
    const visible = new Map(env.ctes);
    for (const cteNode of ((clause.tables as AnyNode).items as AnyNode[]) ?? []) {
      const nameNode = cteNode.table as Identifierish;
      const declared = this.columnList(cteNode.columns as AnyNode | undefined);
      const body = unwrapParens(cteNode.expr as AnyNode);
      const cte: Cte = {
        key: this.key(nameNode),
        name: nameNode.name,
        columns: declared,
        defining: true,
        circularSelfReference: this.dialect === 'sqlite' && body.type !== 'compound_select_stmt',
      };
      const selfVisible = recursive || this.dialect === 'sqlite';
      const bodyCtes = new Map(visible);
      if (selfVisible) bodyCtes.set(cte.key, cte);
      else bodyCtes.delete(cte.key);
      const output = this.query(cteNode.expr as AnyNode, { outer: env.outer, ctes: bodyCtes }, 'cte');
      cte.defining = false;
      if (!declared) cte.columns = output;
      visible.set(cte.key, cte);
    }
    return visible;
  }

  private columnList(paren: AnyNode | undefined): ColumnSet {
    if (!paren) return null;
    const items = ((paren.expr as AnyNode).items as Identifierish[]) ?? [];
    return new Map(items.map((item) => [this.key(item), item.name]));
  }

  private outputColumns(items: AnyNode[], scope: Scope): ColumnSet {
    const output = new Map<string, string>();
    for (const item of items) {
      if (item.type === 'alias') {
        const alias = item.alias as Identifierish;
        output.set(this.key(alias), alias.name);
      } else if (item.type === 'identifier') {
        output.set(this.key(item as unknown as Identifierish), (item as unknown as Identifierish).name);
      } else if (item.type === 'member_expr' && (item.property as AnyNode).type === 'identifier') {
        const property = item.property as Identifierish;
        output.set(this.key(property), property.name);
      } else if (item.type === 'all_columns') {
        for (const source of scope.sources) {
          if (source.columns === null) return null;
          for (const [key, name] of source.columns) output.set(key, name);
        }
      } else if (item.type === 'member_expr' && (item.property as AnyNode).type === 'all_columns') {
        const source = this.findSource(scope, this.nameParts(item.object as AnyNode));
        if (!source || source.columns === null) return null;
        for (const [key, name] of source.columns) output.set(key, name);
      } else if (item.range) {
        // SQLite names an unaliased expression column by its source text.
        const text = this.sql.slice(item.range[0], item.range[1]);
        output.set(text.toLowerCase(), text);
      }
    }
    return output;
  }

  private valuesColumns(clause: AnyNode): ColumnSet {
    const rows = ((clause.values as AnyNode).items as AnyNode[]) ?? [];
    const first = rows[0];
    const width = first?.type === 'paren_expr' ? (((first.expr as AnyNode).items as unknown[]) ?? []).length : 0;
    const output = new Map<string, string>();
    for (let i = 1; i <= width; i += 1) output.set(`column${i}`, `column${i}`);
    return output;
  }

  // ----- FROM ----------------------------------------------------------------------------------

  /** Adds the sources of one FROM item to `scope`; returns the sources it added (for USING / NATURAL). */
  private fromItem(node: AnyNode, scope: Scope, env: Env, alias?: AnyNode): Source[] {
    switch (node.type) {
      case 'join_expr':
        return this.join(node, scope, env);
      case 'alias':
        return this.fromItem(node.expr as AnyNode, scope, env, node);
      case 'identifier':
      case 'member_expr':
      case 'bigquery_quoted_member_expr':
        return [this.relation(node, scope, alias)];
      case 'indexed_table':
      case 'not_indexed_table':
      case 'partitioned_table':
      case 'table_with_inheritance':
      case 'table_without_inheritance': {
        const inner = node.table as AnyNode;
        return inner.type === 'alias' ? this.fromItem(inner.expr as AnyNode, scope, env, inner) : [this.relation(inner, scope, alias)];
      }
      case 'paren_expr': {
        const inner = node.expr as AnyNode;
        if (inner.type === 'select_stmt' || inner.type === 'compound_select_stmt' || inner.type === 'paren_expr' && isQueryNode(inner.expr as AnyNode)) {
          const output = this.query(inner, env, 'derived');
          return [this.addDerived(scope, alias, output)];
        }
        return this.fromItem(inner, scope, env, alias);
      }
      case 'lateral_derived_table': {
        const inner = node.expr as AnyNode;
        const lateralEnv: Env = { outer: scope, ctes: env.ctes };
        if (inner.type === 'paren_expr') return [this.addDerived(scope, alias, this.query(inner, lateralEnv, 'derived'))];
        return this.fromItem(inner, scope, lateralEnv, alias);
      }
      case 'func_call':
      case 'func_call_with_column_definitions':
      case 'with_ordinality_expr':
      case 'rows_from_expr':
      case 'unnest_expr':
      case 'unnest_with_offset_expr':
        return [this.tableFunction(node, scope, alias)];
      default: {
        // PIVOT, TABLESAMPLE, FOR SYSTEM_TIME …: resolve the inner table expression when present.
        const inner = (node.expr ?? node.left) as AnyNode | undefined;
        const added = inner && typeof inner === 'object' ? this.fromItem(inner, scope, env, alias) : [];
        this.walkGeneric(node, scope, new Set(['expr', 'left']));
        return added;
      }
    }
  }

  private join(node: AnyNode, scope: Scope, env: Env): Source[] {
    const left = this.fromItem(node.left as AnyNode, scope, env);
    const right = this.fromItem(node.right as AnyNode, scope, env);
    const operator = node.operator;
    const keywords = Array.isArray(operator) ? (operator as AnyNode[]) : typeof operator === 'object' ? [operator as AnyNode] : [];
    if (keywords.some((keyword) => keyword.name === 'NATURAL')) {
      for (const key of commonColumns(left, right)) scope.mergedColumns.add(key);
    }
    const specification = node.specification as AnyNode | undefined;
    if (specification?.type === 'join_using_specification') {
      const list = (specification.expr as AnyNode).expr as AnyNode;
      for (const item of (list.items as Identifierish[]) ?? []) {
        const key = this.key(item);
        scope.mergedColumns.add(key);
        for (const [side, sources] of [['left', left], ['right', right]] as const) {
          const owner = sources.find((source) => source.columns === null || source.columns.has(key));
          if (!owner) {
            this.unknownColumn(item, item.name, undefined, sources.flatMap((source) => [...(source.columns?.values() ?? [])]), `USING column ${item.name} is not in the ${side} side of the join`);
          } else {
            this.columns.push({ ...this.position(item), name: item.name, resolution: this.resolutionFor(owner, key), scope: scope.id });
          }
        }
      }
    } else if (specification?.type === 'join_on_specification') {
      this.expr(specification.expr as AnyNode, scope, 'other');
    }
    return [...left, ...right];
  }

  /** Resolves a table name; `expose: false` for a name that is read but adds no FROM source (`x IN t`). */
  private relation(node: AnyNode, scope: Scope, alias?: AnyNode, expose = true): Source {
    const parts = this.nameParts(node);
    const aliasNode = alias?.alias as Identifierish | undefined;
    const aliasColumns = this.columnList(alias?.columnAliases as AnyNode | undefined);
    const last = parts[parts.length - 1]!;
    if (parts.length === 1) {
      const cte = scope.ctes.get(last.key);
      if (cte) {
        const selfReference = cte.defining;
        this.ctes.push({ ...this.position(node), name: last.name, scope: scope.id, selfReference });
        if (selfReference && cte.circularSelfReference) {
          // Recorded twice on purpose: SQLite reads the CTE, a policy must also see the table name.
          this.tables.push({ ...this.position(node), written: last.name, name: last.name, nameKey: last.key, ...(aliasNode ? { alias: aliasNode.name } : {}), unknown: false, selfReference: true, scope: scope.id });
        }
        const source: Source = {
          name: aliasNode?.name ?? cte.name,
          key: aliasNode ? this.key(aliasNode) : cte.key,
          kind: 'cte',
          columns: aliasColumns ?? (selfReference ? null : cte.columns),
          hasRowid: false,
        };
        if (expose) scope.sources.push(source);
        return source;
      }
    }
    const schemaPart = parts.length > 1 ? parts[parts.length - 2] : undefined;
    const table = this.catalog?.findTable({ ...(schemaPart ? { schema: schemaPart.key } : {}), name: last.key });
    const written = parts.map((part) => part.name).join('.');
    const unknown = this.catalog !== undefined && table === undefined;
    this.tables.push({
      ...this.position(node),
      written,
      ...(schemaPart ? { schema: schemaPart.name, schemaKey: schemaPart.key } : {}),
      name: last.name,
      nameKey: last.key,
      ...(aliasNode ? { alias: aliasNode.name } : {}),
      ...(table ? { table } : {}),
      unknown,
      selfReference: false,
      scope: scope.id,
    });
    if (unknown) {
      this.addUnresolved(node, 'unknown_table', written, `no such table: ${written}`, this.catalog!.tableNames());
    }
    const columns: ColumnSet = aliasColumns ?? (table ? this.tableColumns(table) : null);
    const source: Source = {
      name: aliasNode?.name ?? last.name,
      key: aliasNode ? this.key(aliasNode) : last.key,
      kind: table ? 'table' : 'unchecked',
      columns,
      ...(table ? { table } : {}),
      ...(!aliasNode && schemaPart ? { schemaKey: schemaPart.key } : {}),
      hasRowid: this.dialect === 'sqlite' && table?.kind === 'table',
    };
    if (expose) scope.sources.push(source);
    return source;
  }

  private tableColumns(table: CatalogTable): Map<string, string> {
    return new Map(table.columns.map((column) => [identifierKey(column.name, true, this.dialect), column.name]));
  }

  private addDerived(scope: Scope, alias: AnyNode | undefined, output: ColumnSet): Source {
    const aliasNode = alias?.alias as Identifierish | undefined;
    const source: Source = {
      name: aliasNode?.name ?? '',
      key: aliasNode ? this.key(aliasNode) : '',
      kind: 'derived',
      columns: this.columnList(alias?.columnAliases as AnyNode | undefined) ?? output,
      hasRowid: false,
    };
    scope.sources.push(source);
    return source;
  }

  private tableFunction(node: AnyNode, scope: Scope, alias: AnyNode | undefined, expose = true): Source {
    const call = findFuncCall(node);
    const nameNode = call?.name as AnyNode | undefined;
    const name = nameNode ? this.nameParts(nameNode).map((part) => part.name).join('.') : node.type;
    this.tableFunctions.push({ ...this.position(nameNode ?? node), name, scope: scope.id });
    const catalogTable = this.catalog?.findTable({ name: identifierKey(name.slice(name.lastIndexOf('.') + 1), false, this.dialect) });
    if (this.catalog && this.dialect === 'sqlite' && call && !catalogTable && !isSqliteTableFunction(name)) {
      // SQLite has no such table-valued function (sqlite-table-functions.ts), and no virtual table
      // of the catalog has that name (FTS5 `docs('query')`): `no such table`.
      this.addUnresolved(nameNode ?? node, 'unknown_table', name, `no such table: ${name} (not a table-valued function of SQLite)`, this.catalog.tableNames());
    }
    // Arguments may reference earlier FROM items (SQLite json_each(t.col)): resolve in this scope.
    this.walkGeneric(node, scope, new Set(['name']));
    const aliasNode = alias?.alias as Identifierish | undefined;
    const source: Source = {
      name: aliasNode?.name ?? name,
      key: aliasNode ? this.key(aliasNode) : identifierKey(name, false, this.dialect),
      kind: 'function',
      columns: this.columnList(alias?.columnAliases as AnyNode | undefined),
      hasRowid: false,
    };
    if (expose) scope.sources.push(source);
    return source;
  }

  // ----- expressions ---------------------------------------------------------------------------

  private expr(node: AnyNode | undefined, scope: Scope, clause: ClauseKind): void {
    if (!node || typeof node !== 'object') return;
    checkAnalysisBudget();
    switch (node.type) {
      case 'identifier':
        this.columnRef(node as unknown as Identifierish, [], scope, clause);
        return;
      case 'member_expr': {
        const property = node.property as AnyNode;
        const qualifier = this.qualifierParts(node.object as AnyNode);
        if (qualifier && (property.type === 'identifier' || property.type === 'all_columns')) {
          if (property.type === 'all_columns') this.starRef(node, qualifier, scope);
          else this.columnRef(property as unknown as Identifierish, qualifier, scope, clause, node);
          return;
        }
        this.expr(node.object as AnyNode, scope, clause);
        if (property.type !== 'identifier') this.expr(property, scope, clause);
        return;
      }
      case 'select_stmt':
      case 'compound_select_stmt':
        this.query(node, { outer: scope, ctes: scope.ctes }, 'subquery');
        return;
      case 'func_call':
        this.expr(node.args as AnyNode | undefined, scope, clause);
        this.expr(node.filter as AnyNode | undefined, scope, clause);
        this.expr(node.over as AnyNode | undefined, scope, clause);
        return;
      case 'over_arg':
        if ((node.window as AnyNode).type !== 'identifier') this.expr(node.window as AnyNode, scope, clause);
        return;
      case 'window_definition':
        this.expr(node.partitionBy as AnyNode | undefined, scope, 'other');
        this.expr(node.orderBy as AnyNode | undefined, scope, 'other');
        this.expr(node.frame as AnyNode | undefined, scope, 'other');
        return;
      case 'alias':
        this.expr(node.expr as AnyNode, scope, clause);
        return;
      case 'binary_expr': {
        const operator = node.operator as AnyNode | string;
        this.expr(node.left as AnyNode, scope, clause);
        const right = node.right as AnyNode;
        if (isInOperator(operator) && (right.type === 'identifier' || right.type === 'member_expr')) {
          // SQLite `x IN t` / `x IN main.t`: the right side names a table (or CTE), not a column.
          this.relation(right, scope, undefined, false);
          return;
        }
        if (isInOperator(operator) && right.type === 'func_call') {
          // SQLite `x IN json_each(…)`: a table-valued function.
          this.tableFunction(right, scope, undefined, false);
          return;
        }
        const isCollate = typeof operator === 'object' && !Array.isArray(operator) && operator.name === 'COLLATE';
        if (!isCollate) this.expr(node.right as AnyNode, scope, clause);
        return;
      }
      case 'cast_arg':
        this.expr(node.expr as AnyNode, scope, clause);
        this.expr(node.format as AnyNode | undefined, scope, clause);
        return;
      case 'cast_operator_expr':
        this.expr(node.left as AnyNode, scope, clause);
        return;
      case 'named_arg':
        this.expr(node.value as AnyNode, scope, clause);
        return;
      case 'extract_from':
        this.expr(node.expr as AnyNode, scope, clause);
        return;
      case 'with_clause':
        return;
      default:
        this.walkChildren(node, (child) => this.expr(child, scope, clause));
    }
  }

  /** Walks every child node with {@link expr} in `scope` (used for constructs with no scope rules). */
  private walkGeneric(node: AnyNode, scope: Scope, skip: ReadonlySet<string> = new Set()): void {
    this.walkChildren(node, (child) => this.expr(child, scope, 'other'), skip);
  }

  private walkChildren(node: AnyNode, visit: (child: AnyNode) => void, skip: ReadonlySet<string> = new Set()): void {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range' || key === 'leading' || key === 'trailing' || key === 'type' || skip.has(key)) continue;
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item);
      } else if (isNode(value)) {
        if (value.type === 'keyword' || value.type.startsWith('data_type')) continue;
        visit(value);
      }
    }
  }

  private starRef(node: AnyNode, qualifier: NamePart[], scope: Scope): void {
    const written = qualifier.map((part) => part.name).join('.');
    const source = this.findSourceInChain(scope, qualifier);
    if (!source) {
      this.columns.push({ ...this.position(node), name: '*', qualifier: written, resolution: { kind: 'unknown_qualifier' }, scope: scope.id });
      this.addUnresolved(node, 'unknown_qualifier', `${written}.*`, `no such table: ${written}`, this.sourceNames(scope), written);
      return;
    }
    this.columns.push({ ...this.position(node), name: '*', qualifier: written, resolution: this.resolutionFor(source, '*'), scope: scope.id });
  }

  private columnRef(identifier: Identifierish, qualifier: NamePart[], scope: Scope, clause: ClauseKind, whole?: AnyNode): void {
    const key = this.key(identifier);
    const positionNode = (whole ?? identifier) as AnyNode;
    const written = qualifier.map((part) => part.name).join('.');
    const record = (resolution: ColumnResolution): void => {
      this.columns.push({
        ...this.position(positionNode),
        name: identifier.name,
        ...(qualifier.length > 0 ? { qualifier: written } : {}),
        resolution,
        scope: scope.id,
      });
    };

    if (qualifier.length > 0) {
      const source = this.findSourceInChain(scope, qualifier);
      if (!source) {
        record({ kind: 'unknown_qualifier' });
        if (this.catalog) {
          this.addUnresolved(positionNode, 'unknown_qualifier', `${written}.${identifier.name}`, `no such column: ${written}.${identifier.name} (no table, alias or CTE ${written} in scope)`, this.sourceNames(scope), written);
        }
        return;
      }
      if (source.columns !== null && !source.columns.has(key) && !(source.hasRowid && ROWID_KEYS.has(key))) {
        record({ kind: 'unknown' });
        this.unknownColumn(identifier, `${written}.${identifier.name}`, positionNode, [...source.columns.values()], `no such column: ${written}.${identifier.name}`);
        return;
      }
      record(this.resolutionFor(source, key));
      return;
    }

    const aliasFirst = clause === 'order';
    const aliasVisible = clause === 'group' || clause === 'having' || clause === 'order' || (clause === 'where' && this.dialect === 'sqlite');
    if (aliasFirst && (scope.aliases.has(key) || scope.compoundOutputs.has(key))) {
      record({ kind: 'select_alias' });
      return;
    }
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const found = this.lookupColumn(current, key);
      if (found) {
        record(found);
        if (found.kind === 'ambiguous' && this.catalog) {
          this.addUnresolved(identifier as unknown as AnyNode, 'ambiguous_column', identifier.name, `ambiguous column name: ${identifier.name} (in ${found.sources.join(', ')})`, []);
        }
        return;
      }
      if (current === scope && aliasVisible && (scope.aliases.has(key) || scope.compoundOutputs.has(key))) {
        record({ kind: 'select_alias' });
        return;
      }
    }
    const candidates = (): string[] => this.visibleColumnNames(scope, aliasVisible);
    if (this.dialect === 'sqlite' && this.doubleQuotes === 'legacy' && identifier.text.startsWith('"')) {
      const columnPosition = this.columnPositions.has(identifier);
      if (!columnPosition || this.sqlRole === 'gold') {
        record({ kind: 'string_literal' });
        this.doubleQuotedStrings.push({ ...this.position(identifier), value: identifier.name, columnPosition });
        return;
      }
      record({ kind: 'unknown' });
      const literal = `'${identifier.name.replaceAll("'", "''")}'`;
      this.unknownColumn(identifier, identifier.text, undefined, candidates(), `no such column: ${identifier.text} (a column is expected here; legacy SQLite would read it as the string ${literal})`);
      return;
    }
    record({ kind: 'unknown' });
    this.unknownColumn(identifier, identifier.name, undefined, candidates(), `no such column: ${identifier.name}`);
  }

  /** Resolution of an unqualified column in one scope, or `undefined` when no source has it. */
  private lookupColumn(scope: Scope, key: string): ColumnResolution | undefined {
    const known = scope.sources.filter((source) => source.columns !== null && (source.columns.has(key) || (source.hasRowid && ROWID_KEYS.has(key))));
    if (known.length === 1 || (known.length > 1 && scope.mergedColumns.has(key))) return this.resolutionFor(known[0]!, key);
    if (known.length > 1) {
      if (ROWID_KEYS.has(key) && known.every((source) => !source.columns!.has(key))) return this.resolutionFor(known[0]!, key);
      return { kind: 'ambiguous', sources: known.map((source) => source.name) };
    }
    const open = scope.sources.find((source) => source.columns === null);
    return open ? this.resolutionFor(open, key) : undefined;
  }

  private resolutionFor(source: Source, key: string): ColumnResolution {
    switch (source.kind) {
      case 'table':
        return { kind: 'table', table: source.table!, column: source.columns?.get(key) ?? key };
      case 'cte':
      case 'derived':
      case 'function':
        return { kind: source.kind, source: source.name };
      case 'unchecked':
        return { kind: 'unchecked', source: source.name };
    }
  }

  private findSourceInChain(scope: Scope, qualifier: NamePart[]): Source | undefined {
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const source = this.findSource(current, qualifier);
      if (source) return source;
    }
    return undefined;
  }

  private findSource(scope: Scope, qualifier: NamePart[]): Source | undefined {
    const last = qualifier[qualifier.length - 1];
    if (!last) return undefined;
    if (qualifier.length === 1) return scope.sources.find((source) => source.key === last.key && source.key !== '');
    // schema.table.column: only an unaliased table in that schema (or the default schema).
    const schema = qualifier[qualifier.length - 2]!;
    return scope.sources.find((source) => {
      if (source.kind !== 'table' || source.key !== last.key || source.table === undefined) return false;
      if (source.schemaKey !== undefined) return source.schemaKey === schema.key;
      return this.catalog?.findTable({ schema: schema.key, name: last.key }) === source.table;
    });
  }

  private visibleColumnNames(scope: Scope, withAliases: boolean): string[] {
    const names = new Set<string>();
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      for (const source of current.sources) for (const name of source.columns?.values() ?? []) names.add(name);
    }
    if (withAliases) for (const name of scope.aliases.values()) names.add(name);
    return [...names];
  }

  private sourceNames(scope: Scope): string[] {
    const names = new Set<string>();
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      for (const source of current.sources) if (source.name !== '') names.add(source.name);
    }
    return [...names];
  }

  private unknownColumn(node: Identifierish, written: string, whole: AnyNode | undefined, candidates: string[], message: string): void {
    if (!this.catalog) return;
    this.addUnresolved((whole ?? node) as AnyNode, 'unknown_column', written, message, candidates, node.name);
  }

  private addUnresolved(node: AnyNode, kind: UnresolvedName['kind'], name: string, message: string, candidates: readonly string[], compareName?: string): void {
    const suggestion = suggest(compareName ?? name.split('.').pop() ?? name, candidates);
    this.unresolved.push({
      ...this.position(node),
      kind,
      name,
      message: suggestion ? `${message}; did you mean ${suggestion}?` : message,
      ...(suggestion ? { suggestion } : {}),
    });
  }

  // ----- names ---------------------------------------------------------------------------------

  private key(identifier: Identifierish): string {
    return identifierKey(identifier.name, isQuotedIdentifier(identifier.text), this.dialect);
  }

  /** Parts of an entity name (`a`, `s.a`, `db.s.a`); a non-name node gives one part of its text. */
  private nameParts(node: AnyNode): NamePart[] {
    const parts = this.qualifierParts(node);
    if (parts) return parts;
    const text = node.range ? this.sql.slice(node.range[0], node.range[1]) : String(node.type);
    return [{ name: text, key: identifierKey(text, false, this.dialect) }];
  }

  /** Parts of a dotted name made only of identifiers, else `undefined`. */
  private qualifierParts(node: AnyNode): NamePart[] | undefined {
    if (node.type === 'identifier') {
      const identifier = node as unknown as Identifierish;
      return [{ name: identifier.name, key: this.key(identifier) }];
    }
    if (node.type === 'bigquery_quoted_member_expr') return this.qualifierParts(node.expr as AnyNode);
    if (node.type === 'member_expr' && (node.property as AnyNode).type === 'identifier') {
      const head = this.qualifierParts(node.object as AnyNode);
      const property = node.property as Identifierish;
      return head ? [...head, { name: property.name, key: this.key(property) }] : undefined;
    }
    return undefined;
  }

  private position(node: { readonly range?: [number, number] }): SourcePosition {
    const [start, end] = node.range ?? [0, 0];
    return { ...positionAt(this.sql, start), start, end };
  }
}

interface NamePart {
  readonly name: string;
  readonly key: string;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function leftmostWith(node: AnyNode): AnyNode | undefined {
  let current: AnyNode | undefined = node;
  while (current && (current.type === 'compound_select_stmt' || current.type === 'paren_expr')) {
    current = (current.type === 'compound_select_stmt' ? current.left : current.expr) as AnyNode | undefined;
  }
  if (current?.type !== 'select_stmt') return undefined;
  return ((current.clauses as AnyNode[]) ?? []).find((clause) => clause.type === 'with_clause');
}

/** `IN` or `NOT IN` (sql-parser-cst gives a keyword or a keyword list). */
function isInOperator(operator: unknown): boolean {
  if (Array.isArray(operator)) return operator.length > 0 && (operator[operator.length - 1] as AnyNode).name === 'IN';
  return typeof operator === 'object' && operator !== null && (operator as AnyNode).name === 'IN';
}

function unwrapParens(node: AnyNode): AnyNode {
  let current = node;
  while (current.type === 'paren_expr') current = current.expr as AnyNode;
  return current;
}

function isQueryNode(node: AnyNode): boolean {
  return node.type === 'select_stmt' || node.type === 'compound_select_stmt' || (node.type === 'paren_expr' && isQueryNode(node.expr as AnyNode));
}

function findFuncCall(node: AnyNode): AnyNode | undefined {
  if (node.type === 'func_call') return node;
  for (const key of ['expr', 'func', 'funcCall']) {
    const child = node[key];
    if (isNode(child)) {
      const found = findFuncCall(child);
      if (found) return found;
    }
  }
  return undefined;
}

function commonColumns(left: Source[], right: Source[]): string[] {
  const leftKeys = new Set(left.flatMap((source) => [...(source.columns?.keys() ?? [])]));
  return right.flatMap((source) => [...(source.columns?.keys() ?? [])]).filter((key) => leftKeys.has(key));
}

/**
 * The candidate closest to `name` (Levenshtein, case-insensitive), when it is close enough to be a
 * plausible typo: distance ≤ max(2, 40% of the name's length).
 */
export function suggest(name: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const lowered = candidates.map((candidate) => candidate.toLowerCase());
  const best = closest(name.toLowerCase(), lowered);
  const limit = Math.max(2, Math.ceil(name.length * 0.4));
  if (distance(name.toLowerCase(), best) > limit) return undefined;
  return candidates[lowered.indexOf(best)];
}
