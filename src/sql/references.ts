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
 *
 * The parts: reference-types.ts (the shapes), reference-scopes.ts (state, scopes and lookups),
 * reference-from-items.ts (FROM), reference-columns.ts (expressions and columns), this file
 * (queries and the entry point); did-you-mean in name-suggestions.ts.
 */
import type { Node } from 'sql-parser-cst';
import { withinAnalysisBudget } from './analysis-budget.js';
import { createCatalogIndex } from './catalog-index.js';
import { parseSql } from './parse.js';
import { expr } from './reference-columns.js';
import { fromItem } from './reference-from-items.js';
import { ReferenceScopes, type AnyNode, type ClauseKind, type ColumnSet, type Cte, type Env, type Identifierish, type Scope } from './reference-scopes.js';
import type { CollectReferencesInput, References, ReferencesFailure, ScopeInfo, SourcePosition } from './reference-types.js';

export type {
  CollectReferencesInput,
  ColumnReference,
  ColumnResolution,
  CteReference,
  DoubleQuotedString,
  References,
  ReferencesFailure,
  ScopeInfo,
  SourcePosition,
  TableFunctionReference,
  TableReference,
  UnresolvedName,
} from './reference-types.js';

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

/** The walk over queries: SELECT, compound SELECT, WITH, output columns. */
class Resolver extends ReferenceScopes {
  run(statement: Node): References {
    this.statement = statement;
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

  /** Resolves any query-shaped node; returns its output columns. Non-queries are walked generically. */
  query(node: AnyNode, env: Env, kind: ScopeInfo['kind'], compoundOutputs?: Set<string>): ColumnSet {
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

  private select(node: AnyNode, env: Env, kind: ScopeInfo['kind'], compoundOutputs?: Set<string>): ColumnSet {
    const clauses = (node.clauses as AnyNode[]) ?? [];
    let ctes = env.ctes;
    const withClause = clauses.find((clause) => clause.type === 'with_clause');
    if (withClause && !this.handledWith.has(withClause)) ctes = this.withClause(withClause, env);
    const scope = this.newScope({ outer: env.outer, ctes }, kind);
    if (compoundOutputs) scope.compoundOutputs = compoundOutputs;

    const from = clauses.find((clause) => clause.type === 'from_clause');
    if (from) fromItem(this, from.expr as AnyNode, scope, { outer: env.outer, ctes });

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

  expr(node: AnyNode | undefined, scope: Scope, clause: ClauseKind): void {
    expr(this, node, scope, clause);
  }
}

/** The WITH clause of a compound's leftmost SELECT (where the parser attaches it). */
function leftmostWith(node: AnyNode): AnyNode | undefined {
  let current: AnyNode | undefined = node;
  while (current && (current.type === 'compound_select_stmt' || current.type === 'paren_expr')) {
    current = (current.type === 'compound_select_stmt' ? current.left : current.expr) as AnyNode | undefined;
  }
  if (current?.type !== 'select_stmt') return undefined;
  return ((current.clauses as AnyNode[]) ?? []).find((clause) => clause.type === 'with_clause');
}

function unwrapParens(node: AnyNode): AnyNode {
  let current = node;
  while (current.type === 'paren_expr') current = current.expr as AnyNode;
  return current;
}
