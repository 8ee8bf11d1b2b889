/**
 * The units Spider's official evaluation script compares (the Spider benchmark's `evaluation.py`:
 * `eval_sel`, `eval_where`, `eval_group`, `eval_having`, `eval_order`, `eval_and_or`, `eval_IUEN`,
 * `get_keywords`), with literal values masked as Spider does by default (`DISABLE_VALUE`). Our own
 * code, written from the script's rules, on the query shape of our clause components
 * (sql/components.ts).
 */
import { withinAnalysisBudget } from '../../sql/analysis-budget.js';
import { orderItems, prepareQueryShape, sourceText, type ClauseComponentOptions, type ComponentsOutcome } from '../../sql/components.js';
import type { Dialect } from '../../sql/parse.js';
import { child, clauseOf, flattenBoolean, fromSources, identifierName, keywordText, listItems, mapChildren, mapTree, renderSql, type SqlNode } from '../../sql/sql-tree.js';

/** Spider's partial-match components, named as its script prints them. */
export type SpiderComponentName =
  | 'select'
  | 'select_no_agg'
  | 'where'
  | 'where_no_op'
  | 'group_no_having'
  | 'group'
  | 'order'
  | 'and_or'
  | 'iuen'
  | 'keywords';

/** Every Spider component, in the order its script prints them. */
export const SPIDER_COMPONENT_NAMES: readonly SpiderComponentName[] = [
  'select',
  'select_no_agg',
  'where',
  'where_no_op',
  'group_no_having',
  'group',
  'order',
  'and_or',
  'iuen',
  'keywords',
];

/** The units of one query that Spider's partial matching reads (values masked as `value`). */
export interface SpiderUnits {
  readonly select: readonly string[];
  readonly selectNoAgg: readonly string[];
  readonly where: readonly string[];
  readonly whereNoOp: readonly string[];
  /** Connectives between top-level WHERE conditions (`and`, `or`), as a set. */
  readonly andOr: readonly string[];
  /** Group keys without table qualifier (Spider's `eval_group` strips `table.`). */
  readonly groupColumns: readonly string[];
  /** Group keys with qualifier, in order (Spider's `eval_having` compares them as a list). */
  readonly groupKeys: readonly string[];
  readonly having: readonly string[];
  /** `expr asc|desc` in order. */
  readonly orderBy: readonly string[];
  readonly hasLimit: boolean;
  /** Set operations by kind: a signature of their branches (`union all` counts as `union`; see branchSignature). */
  readonly nested: Readonly<Record<'intersect' | 'except' | 'union', string | null>>;
  readonly keywords: readonly string[];
}

const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);
const MASKED_LITERALS = new Set(['number_literal', 'string_literal', 'boolean_literal', 'blob_literal']);

function maskValues(node: SqlNode): SqlNode {
  return mapTree(node, (n) => (MASKED_LITERALS.has(n.type) ? { type: 'identifier', text: 'value', name: 'value' } : n));
}

function withoutAggregate(item: SqlNode): string {
  if (item.type === 'func_call') {
    const name = identifierName(child(item, 'name'));
    if (name !== undefined && AGGREGATES.has(name)) {
      const args = child(child(item, 'args') ?? { type: 'none' }, 'expr');
      if (args) return renderSql(args);
    }
  }
  return renderSql(item);
}

/** The column side of a condition (Spider's `val_unit`, `cond_unit[2]`). */
function conditionColumn(condition: SqlNode): string {
  let node = condition;
  if (node.type === 'prefix_op_expr' && keywordText(node['operator']) === 'not') node = child(node, 'expr') ?? node;
  if (node.type === 'paren_expr') return renderSql(node);
  const left = child(node, 'left');
  return renderSql(left ?? node);
}

/** Top-level conditions and their connectives in a WHERE / HAVING / ON expression. */
function conditionsOf(expr: SqlNode | undefined): { conditions: SqlNode[]; connectives: string[] } {
  if (!expr) return { conditions: [], connectives: [] };
  if (expr.type === 'binary_expr') {
    const op = keywordText(expr['operator']);
    if (op === 'and' || op === 'or') {
      const left = conditionsOf(child(expr, 'left'));
      const right = conditionsOf(child(expr, 'right'));
      return { conditions: [...left.conditions, ...right.conditions], connectives: [...left.connectives, op, ...right.connectives] };
    }
  }
  return { conditions: [expr], connectives: [] };
}

function isNegated(condition: SqlNode): boolean {
  if (condition.type === 'prefix_op_expr' && keywordText(condition['operator']) === 'not') return true;
  return /\bnot\b/.test(keywordText(condition['operator'])) || keywordText(condition['notKw']) === 'not';
}

function conditionOperator(condition: SqlNode): string {
  const inner = condition.type === 'prefix_op_expr' ? child(condition, 'expr') ?? condition : condition;
  return keywordText(inner['operator']).replace(/\bnot\b/, '').trim();
}

/**
 * The units Spider's evaluation script compares for one query, from our normalized tree:
 * select items with and without their aggregate, WHERE conditions (top-level AND/OR operands) with
 * values masked and their column side (`where_no_op`), the connectives, group keys, HAVING
 * conditions, ORDER BY items with direction, LIMIT presence, INTERSECT/EXCEPT/UNION branches and
 * the keyword set of `get_keywords` (where, group, having, order, asc/desc, limit, except, union,
 * intersect, or, not, in, like).
 *
 * Spider merges columns linked by a foreign key (`build_foreign_key_map`) so that
 * `GROUP BY concert.stadium_id` equals `GROUP BY stadium.stadium_id`; without the schema's
 * foreign keys we merge the columns an `=` join predicate (in ON, or a top-level WHERE condition
 * between two columns) equates, each class named by its alphabetically first column.
 *
 * Other differences from the script, stated: columns are compared by their normalized text (bare
 * columns are qualified only when `columnsByTable` is given), not by schema ids; a nested query is
 * compared by a signature of its units (sets of select items, conditions, group keys, tables;
 * ORDER BY; LIMIT presence), close to but not the script's recursive exact match.
 */
export function extractSpiderUnits(
  sql: string,
  dialect: Dialect,
  options: Pick<ClauseComponentOptions, 'columnsByTable'> = {},
): ComponentsOutcome<SpiderUnits> {
  const extracted = withinAnalysisBudget(() => spiderUnitsOf(sql, dialect, options));
  return extracted.ok ? extracted.value : { ok: false, reason: extracted.reason };
}

function spiderUnitsOf(sql: string, dialect: Dialect, options: Pick<ClauseComponentOptions, 'columnsByTable'>): ComponentsOutcome<SpiderUnits> {
  const prepared = prepareQueryShape(sql, dialect, undefined, options.columnsByTable);
  if (!prepared.ok) return prepared;
  const { first, setOps, orderBy: rawOrderBy, limit } = prepared.components;
  const joinKeys = joinKeyClasses(first);
  const masked = unifyJoinKeys(maskValues(first), joinKeys);
  const orderBy = rawOrderBy ? unifyJoinKeys(rawOrderBy, joinKeys) : undefined;
  const selectNodes = listItems(child(clauseOf(masked, 'select_clause') ?? { type: 'none' }, 'columns'));
  const where = conditionsOf(child(clauseOf(masked, 'where_clause') ?? { type: 'none' }, 'expr'));
  const having = conditionsOf(child(clauseOf(masked, 'having_clause') ?? { type: 'none' }, 'expr'));
  const joinConditions = fromJoinConditions(child(clauseOf(masked, 'from_clause') ?? { type: 'none' }, 'expr'));
  const groupNodes = listItems(child(clauseOf(masked, 'group_by_clause') ?? { type: 'none' }, 'columns'));
  const order = orderItems(orderBy ? maskValues(orderBy) : undefined);
  const nested: Record<'intersect' | 'except' | 'union', string | null> = { intersect: null, except: null, union: null };
  for (const [operator, branch] of setOps) {
    const kind = operator.startsWith('union') ? 'union' : operator.startsWith('intersect') ? 'intersect' : 'except';
    const text = branch.type === 'select_stmt' ? branchSignature(branch) : renderSql(maskValues(branch));
    nested[kind] = nested[kind] === null ? text : `${nested[kind]} ; ${text}`;
  }
  const allConditions = [...joinConditions.conditions, ...where.conditions, ...having.conditions];
  const keywords = new Set<string>();
  if (where.conditions.length > 0) keywords.add('where');
  if (groupNodes.length > 0) keywords.add('group');
  if (having.conditions.length > 0) keywords.add('having');
  if (order.length > 0) {
    keywords.add('order');
    keywords.add(order[0]!.endsWith(' desc') ? 'desc' : 'asc');
  }
  if (limit) keywords.add('limit');
  for (const kind of ['except', 'union', 'intersect'] as const) if (nested[kind] !== null) keywords.add(kind);
  if ([...joinConditions.connectives, ...where.connectives, ...having.connectives].includes('or')) keywords.add('or');
  if (allConditions.some(isNegated)) keywords.add('not');
  if (allConditions.some((c) => conditionOperator(c) === 'in')) keywords.add('in');
  if (allConditions.some((c) => conditionOperator(c) === 'like')) keywords.add('like');
  return {
    ok: true,
    components: {
      select: selectNodes.map(renderSql),
      selectNoAgg: selectNodes.map(withoutAggregate),
      where: where.conditions.map(renderSql),
      whereNoOp: where.conditions.map(conditionColumn),
      andOr: [...new Set(where.connectives)].sort(),
      groupColumns: groupNodes.map((g) => (g.type === 'member_expr' ? renderSql(child(g, 'property') ?? g) : renderSql(g))),
      groupKeys: groupNodes.map(renderSql),
      having: having.conditions.map(renderSql),
      orderBy: order,
      hasLimit: limit !== undefined,
      nested,
      keywords: [...keywords].sort(),
    },
  };
}

/**
 * A set-operation branch compared as Spider's recursive exact match compares it: its units as
 * sets (select, where, group keys, having), ORDER BY in order, LIMIT presence and its tables,
 * with values masked and join keys merged.
 */
function branchSignature(branch: SqlNode): string {
  const joinKeys = joinKeyClasses(branch);
  const select = unifyJoinKeys(maskValues(branch), joinKeys);
  const sorted = (items: readonly SqlNode[]): string[] => items.map(renderSql).sort();
  const fromExpr = child(clauseOf(select, 'from_clause') ?? { type: 'none' }, 'expr');
  return JSON.stringify([
    sorted(listItems(child(clauseOf(select, 'select_clause') ?? { type: 'none' }, 'columns'))),
    sorted(conditionsOf(child(clauseOf(select, 'where_clause') ?? { type: 'none' }, 'expr')).conditions),
    sorted(listItems(child(clauseOf(select, 'group_by_clause') ?? { type: 'none' }, 'columns'))),
    sorted(conditionsOf(child(clauseOf(select, 'having_clause') ?? { type: 'none' }, 'expr')).conditions),
    orderItems(clauseOf(select, 'order_by_clause')),
    clauseOf(select, 'limit_clause') !== undefined,
    fromSources(fromExpr).map(sourceText).sort(),
  ]);
}

const COLUMN_TYPES = new Set(['member_expr', 'identifier']);

/** Column text → representative column node, from `=` predicates between two columns in ON / WHERE. */
function joinKeyClasses(select: SqlNode): ReadonlyMap<string, SqlNode> {
  const parent = new Map<string, string>();
  const nodes = new Map<string, SqlNode>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const add = (node: SqlNode): string => {
    const text = renderSql(node);
    if (!parent.has(text)) {
      parent.set(text, text);
      nodes.set(text, node);
    }
    return text;
  };
  const predicates = [
    ...fromJoinConditions(child(clauseOf(select, 'from_clause') ?? { type: 'none' }, 'expr')).conditions,
    ...flattenBoolean(child(clauseOf(select, 'where_clause') ?? { type: 'none' }, 'expr'), 'and'),
  ];
  for (const p of predicates) {
    if (p.type !== 'binary_expr' || p['operator'] !== '=') continue;
    const left = child(p, 'left');
    const right = child(p, 'right');
    if (!left || !right || !COLUMN_TYPES.has(left.type) || !COLUMN_TYPES.has(right.type)) continue;
    const a = find(add(left));
    const b = find(add(right));
    if (a !== b) {
      const [root, leaf] = a < b ? [a, b] : [b, a];
      parent.set(leaf, root);
    }
  }
  const classes = new Map<string, SqlNode>();
  for (const text of parent.keys()) {
    const root = find(text);
    if (root !== text) classes.set(text, nodes.get(root)!);
  }
  return classes;
}

/** Replaces every column in a class by its representative (in all clauses, not in nested queries). */
function unifyJoinKeys(node: SqlNode, classes: ReadonlyMap<string, SqlNode>): SqlNode {
  if (classes.size === 0) return node;
  const visit = (n: SqlNode, top: boolean): SqlNode => {
    if (!top && (n.type === 'select_stmt' || n.type === 'compound_select_stmt')) return n;
    if (n.type === 'member_expr' || n.type === 'identifier') return classes.get(renderSql(n)) ?? n;
    if (n.type === 'func_call') return mapChildren(n, (c, field) => (field === 'name' ? c : visit(c, false)));
    return mapChildren(n, (c) => visit(c, false));
  };
  return visit(node, true);
}

function fromJoinConditions(expr: SqlNode | undefined): { conditions: SqlNode[]; connectives: string[] } {
  if (!expr || expr.type !== 'join_expr') return { conditions: [], connectives: [] };
  const left = fromJoinConditions(child(expr, 'left'));
  const spec = child(expr, 'specification');
  const own = spec?.type === 'join_on_specification' ? conditionsOf(child(spec, 'expr')) : { conditions: [], connectives: [] };
  return { conditions: [...left.conditions, ...own.conditions], connectives: [...left.connectives, ...own.connectives] };
}
