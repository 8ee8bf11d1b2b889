/**
 * Clause components of the outermost query, as multisets of canonical item texts: the clause F1
 * of {@link extractClauseComponents} (select, from, where, group_by, having, order_by, limit,
 * set_ops), on normalized trees (see ./normalize.ts), with FROM items that carry the join type and
 * condition. Spider's own units (its evaluation script's partial matching) are built on the same
 * query shape in benchmarks/spider/spider-units.ts.
 */
import { withinAnalysisBudget } from './analysis-budget.js';
import type { Dialect } from './parse.js';
import { normalizeTree, type NormalizationPass } from './normalize.js';
import { parseStatement } from './parse.js';
import {
  child,
  children,
  clauseOf,
  flattenBoolean,
  fromSources,
  keywordText,
  listItems,
  renderSql,
  tableName,
  withFields,
  type SqlNode,
} from './sql-tree.js';

/** The clauses scored by component F1 (*Text-to-SQL Evals* §4.2). */
export type ClauseName = 'select' | 'from' | 'where' | 'group_by' | 'having' | 'order_by' | 'limit' | 'set_ops';

/** Every clause, in report order. */
export const CLAUSE_NAMES: readonly ClauseName[] = ['select', 'from', 'where', 'group_by', 'having', 'order_by', 'limit', 'set_ops'];

/** Items of each clause: canonical texts, duplicates kept (multisets). */
export type ClauseComponents = Readonly<Record<ClauseName, readonly string[]>>;

/** Options of {@link extractClauseComponents}. */
export interface ClauseComponentOptions {
  /**
   * `resolve` (default): select-list aliases and positions in ORDER BY / GROUP BY / HAVING are
   * replaced by their expressions, so `ORDER BY total` equals `ORDER BY SUM(amount)`.
   * `seed`: as the *Text-to-SQL Evals* guide's code — aliases are dropped from the select list but references to
   * them are not resolved (the §4.2 example then scores order_by 0.0).
   */
  readonly aliasResolution?: 'resolve' | 'seed';
  /** Columns per table, to qualify bare columns (see NormalizeOptions.columnsByTable). */
  readonly columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Outcome of parsing + extraction: components, or the reason there are none. */
export type ComponentsOutcome<T> = { readonly ok: true; readonly components: T } | { readonly ok: false; readonly reason: string };

/** The branches of the outermost query: its first SELECT, the set operations and the trailing clauses. */
export interface QueryShape {
  /** The first SELECT of a set operation (or the only SELECT). */
  readonly first: SqlNode;
  /** `[operator, branch]` for every later branch, left to right (`union all`, `intersect`, …). */
  readonly setOps: readonly (readonly [string, SqlNode])[];
  /** ORDER BY / LIMIT of the whole query (on the last branch in SQLite's tree). */
  readonly orderBy: SqlNode | undefined;
  readonly limit: SqlNode | undefined;
}

function shapeOf(tree: SqlNode): QueryShape | undefined {
  if (tree.type === 'select_stmt') {
    return { first: tree, setOps: [], orderBy: clauseOf(tree, 'order_by_clause'), limit: clauseOf(tree, 'limit_clause') };
  }
  if (tree.type !== 'compound_select_stmt') return undefined;
  const ops: (readonly [string, SqlNode])[] = [];
  let node: SqlNode = tree;
  while (node.type === 'compound_select_stmt') {
    const right = child(node, 'right');
    if (right) ops.unshift([keywordText(node['operator']), right]);
    node = child(node, 'left') ?? { type: 'none' };
  }
  if (node.type !== 'select_stmt') return undefined;
  // sql-parser-cst attaches the compound's ORDER BY / LIMIT to its last branch: lift them.
  const last = ops[ops.length - 1];
  let orderBy: SqlNode | undefined;
  let limit: SqlNode | undefined;
  if (last && last[1].type === 'select_stmt') {
    orderBy = clauseOf(last[1], 'order_by_clause');
    limit = clauseOf(last[1], 'limit_clause');
    const kept = children(last[1], 'clauses').filter((c) => c.type !== 'order_by_clause' && c.type !== 'limit_clause');
    ops[ops.length - 1] = [last[0], withFields(last[1], { clauses: kept })];
  }
  return { first: node, setOps: ops, orderBy, limit };
}

/**
 * Parses and normalizes one statement for component extraction (all passes, or `passes`), and
 * splits it into its {@link QueryShape}. Used by our clause components and by Spider's units.
 */
export function prepareQueryShape(
  sql: string,
  dialect: Dialect,
  passes: readonly NormalizationPass[] | undefined,
  columnsByTable: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): ComponentsOutcome<QueryShape> {
  const parsed = parseStatement(sql, dialect);
  if (!parsed.ok) return parsed;
  const tree = normalizeTree(parsed.tree, dialect, { ...(passes ? { passes } : {}), ...(columnsByTable ? { columnsByTable } : {}) });
  const shape = shapeOf(tree);
  if (!shape) return { ok: false, reason: `not a query: the statement is a ${tree.type}` };
  return { ok: true, components: shape };
}

const SEED_PASSES: readonly NormalizationPass[] = ['canonicalTokens', 'tableAliases', 'outputAliases', 'comparisons', 'conjunctions'];

function joinType(operator: unknown): string {
  const text = keywordText(operator).replace(/\bouter\b/, '').replace(/\s+/g, ' ').trim();
  if (text === ',' || text === 'cross join') return 'cross';
  if (text === 'join' || text === 'inner join') return 'inner';
  return text.replace(/ join$/, '');
}

function joinItems(expr: SqlNode | undefined): string[] {
  if (!expr || expr.type !== 'join_expr') return [];
  const items = [...joinItems(child(expr, 'left'))];
  const type = joinType(expr['operator']);
  const spec = child(expr, 'specification');
  if (spec?.type === 'join_on_specification') {
    for (const predicate of flattenBoolean(child(spec, 'expr'), 'and')) items.push(`${type} join on ${renderSql(predicate)}`);
  } else if (spec?.type === 'join_using_specification') {
    items.push(`${type} join using ${renderSql(child(spec, 'expr') ?? spec)}`);
  } else {
    items.push(`${type} join`);
  }
  return items;
}

/** A FROM source as one item: the table name (with its alias when aliased), or the subquery text. */
export function sourceText(source: SqlNode): string {
  const table = tableName(source.type === 'alias' ? child(source, 'expr') : source);
  if (table !== undefined) return source.type === 'alias' ? renderSql(source) : table;
  return renderSql(source);
}

function selectItemTexts(select: SqlNode): string[] {
  const clause = clauseOf(select, 'select_clause');
  const items = listItems(child(clause ?? { type: 'none' }, 'columns')).map(renderSql);
  const modifiers = children(clause, 'modifiers').map((m) => keywordText(m['distinctKw'] ?? m['allKw'] ?? '')).filter((m) => m !== '' && m !== 'all');
  return [...modifiers, ...items];
}

/** ORDER BY items as `expr asc|desc`, in order. */
export function orderItems(orderBy: SqlNode | undefined): string[] {
  return listItems(child(orderBy ?? { type: 'none' }, 'specifications')).map((spec) => {
    if (spec.type !== 'sort_specification') return `${renderSql(spec)} asc`;
    const direction = child(spec, 'direction')?.type === 'sort_direction_desc' ? 'desc' : 'asc';
    return `${renderSql(child(spec, 'expr') ?? spec)} ${direction}`;
  });
}

/**
 * The clause components of the outermost query (*Text-to-SQL Evals* §4.2, extended):
 * - `select`: select expressions (output aliases dropped), plus `distinct` for SELECT DISTINCT;
 * - `from`: each table (or subquery text; self-joined tables keep canonical aliases `t_1`, `t_2`),
 *   plus one item per AND-ed join predicate `<type> join on <predicate>` (type `inner`, `left`,
 *   `right`, `full`, `cross`, `natural …`), `<type> join using (…)`, or `<type> join` without one;
 * - `where` / `having`: AND-ed predicates; `group_by`: keys; `order_by`: `expr asc|desc`;
 * - `limit`: `limit N` (with ` offset M`); `set_ops`: `union|union all|intersect|except <branch>`
 *   for every branch after the first (the first branch is scored clause by clause).
 *
 * @returns per-clause item multisets, or `ok: false` with the parse or shape problem (or a
 *   reason starting "not analysed within budget", see analysis-budget.ts).
 * @example
 * extractClauseComponents('SELECT a FROM t WHERE x >= 1 AND 2 < y', 'sqlite')
 * // { ok: true, components: { select: ['a'], from: ['t'], where: ['x >= 1', 'y > 2'], … } }
 */
export function extractClauseComponents(
  sql: string,
  dialect: Dialect,
  options: ClauseComponentOptions = {},
): ComponentsOutcome<ClauseComponents> {
  const aliasResolution = options.aliasResolution ?? 'resolve';
  if (aliasResolution !== 'resolve' && aliasResolution !== 'seed') {
    throw new RangeError(`aliasResolution must be 'resolve' or 'seed'; received ${JSON.stringify(aliasResolution)}`);
  }
  const extracted = withinAnalysisBudget(() => clauseComponentsOf(sql, dialect, aliasResolution, options));
  return extracted.ok ? extracted.value : { ok: false, reason: extracted.reason };
}

function clauseComponentsOf(sql: string, dialect: Dialect, aliasResolution: 'resolve' | 'seed', options: ClauseComponentOptions): ComponentsOutcome<ClauseComponents> {
  const prepared = prepareQueryShape(sql, dialect, aliasResolution === 'seed' ? SEED_PASSES : undefined, options.columnsByTable);
  if (!prepared.ok) return prepared;
  const { first, setOps, orderBy, limit } = prepared.components;
  const fromExpr = child(clauseOf(first, 'from_clause') ?? { type: 'none' }, 'expr');
  const limitCount = child(limit ?? { type: 'none' }, 'count');
  const limitOffset = child(limit ?? { type: 'none' }, 'offset');
  return {
    ok: true,
    components: {
      select: selectItemTexts(first),
      from: [...fromSources(fromExpr).map(sourceText), ...joinItems(fromExpr)],
      where: flattenBoolean(child(clauseOf(first, 'where_clause') ?? { type: 'none' }, 'expr'), 'and').map(renderSql),
      group_by: listItems(child(clauseOf(first, 'group_by_clause') ?? { type: 'none' }, 'columns')).map(renderSql),
      having: flattenBoolean(child(clauseOf(first, 'having_clause') ?? { type: 'none' }, 'expr'), 'and').map(renderSql),
      order_by: orderItems(orderBy),
      limit: limitCount ? [`limit ${renderSql(limitCount)}${limitOffset ? ` offset ${renderSql(limitOffset)}` : ''}`] : [],
      set_ops: setOps.map(([operator, branch]) => `${operator} ${renderSql(branch)}`),
    },
  };
}
