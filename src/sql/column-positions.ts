/**
 * Column positions: the places of a query where SQL expects a column, so that a name there that
 * resolves to nothing is a wrong column, not a value. Used by the schema rung's double-quote rule:
 * SQLite's legacy mode reads `"x"` that names no column as the string `'x'`
 * (https://www.sqlite.org/quirks.html#dblquote), which hides a hallucinated column in
 * `SELECT "full_name" FROM people`. In a value position (`= "x"`, `IN ("a")`, `LIKE "a%"`,
 * `BETWEEN "a" AND "b"`, a function argument) the legacy reading stays.
 *
 * A bare identifier (not `t.x`, never a string) is in a column position when it is:
 * - a whole select-list item, aliased or not (`SELECT "x"`, `SELECT "x" AS y`);
 * - a whole GROUP BY item;
 * - a whole ORDER BY item (sort key);
 * - a direct operand of a comparison in a join's `ON` condition (`ON t.a = "b"`), through
 *   AND / OR / NOT and parentheses.
 */
import type { Node } from 'sql-parser-cst';

type AnyNode = Node & { readonly [key: string]: unknown };

const COMPARISONS = new Set(['=', '==', '<>', '!=', '<', '>', '<=', '>=', 'is', 'is not']);

/**
 * The identifier nodes (by object identity) of a statement that stand in column positions.
 *
 * @param statement - a sql-parser-cst statement node.
 * @returns a set of identifier nodes; never throws.
 * @example
 * columnPositionIdentifiers(select('SELECT "a", b + "c" FROM t ORDER BY "d"')) // the nodes of "a" and "d" (not "c": inside an expression)
 */
export function columnPositionIdentifiers(statement: Node): ReadonlySet<object> {
  const found = new Set<object>();
  const mark = (node: unknown): void => {
    const inner = unwrapParens(node);
    if (isNode(inner) && inner.type === 'identifier') found.add(inner);
  };
  visit(statement as AnyNode, (node) => {
    switch (node.type) {
      case 'select_clause':
        for (const item of items(node['columns'])) mark(item.type === 'alias' ? item['expr'] : item);
        break;
      case 'group_by_clause':
        for (const item of items(node['columns'])) mark(item);
        break;
      case 'sort_specification':
        mark(node['expr']);
        break;
      case 'join_on_specification':
        markComparisonOperands(node['expr'], mark);
        break;
    }
  });
  return found;
}

function markComparisonOperands(node: unknown, mark: (operand: unknown) => void): void {
  const expr = unwrapParens(node);
  if (!isNode(expr)) return;
  if (expr.type === 'binary_expr') {
    const operator = operatorText(expr['operator']);
    if (operator === 'and' || operator === 'or') {
      markComparisonOperands(expr['left'], mark);
      markComparisonOperands(expr['right'], mark);
    } else if (COMPARISONS.has(operator)) {
      mark(expr['left']);
      mark(expr['right']);
    }
  } else if (expr.type === 'prefix_op_expr' && operatorText(expr['operator']) === 'not') {
    markComparisonOperands(expr['expr'], mark);
  }
}

function operatorText(operator: unknown): string {
  if (typeof operator === 'string') return operator.toLowerCase();
  if (Array.isArray(operator)) return operator.map(operatorText).join(' ');
  if (isNode(operator) && operator.type === 'keyword') return String(operator['name'] ?? '').toLowerCase();
  return '';
}

function items(list: unknown): AnyNode[] {
  if (!isNode(list)) return [];
  if (list.type !== 'list_expr') return [list];
  const entries = list['items'];
  return Array.isArray(entries) ? entries.filter(isNode) : [];
}

function unwrapParens(node: unknown): unknown {
  let current = node;
  while (isNode(current) && current.type === 'paren_expr') current = current['expr'];
  return current;
}

function visit(node: AnyNode, fn: (node: AnyNode) => void): void {
  fn(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range' || key === 'leading' || key === 'trailing') continue;
    if (Array.isArray(value)) {
      for (const entry of value) if (isNode(entry)) visit(entry, fn);
    } else if (isNode(value)) {
      visit(value, fn);
    }
  }
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';
}
