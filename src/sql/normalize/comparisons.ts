/**
 * Normalization pass 5, `comparisons`: orients `=, !=, <, <=, >, >=` so that a literal is on the
 * right and otherwise the sides are in text order, mirroring the operator.
 */
import { COMPARISON_OPERATORS } from './canonical-tokens.js';
import { child, isSqlNode, mapTree, renderSql, withFields, type SqlNode } from '../sql-tree.js';

const MIRROR: Readonly<Record<string, string>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const LITERAL_TYPES = new Set(['number_literal', 'string_literal', 'boolean_literal', 'null_literal', 'blob_literal', 'parameter']);

function isLiteral(node: SqlNode): boolean {
  if (LITERAL_TYPES.has(node.type)) return true;
  if (node.type === 'prefix_op_expr' && node['operator'] === '-') {
    const inner = child(node, 'expr');
    return inner !== undefined && inner.type === 'number_literal';
  }
  return false;
}

/** Largest side (in nodes) that pass 5 orders by its text. */
export const ORDERED_SIDE_NODES = 200;

/** True when `node` has at most {@link ORDERED_SIDE_NODES} nodes (counting stops past the limit). */
function isSmall(node: SqlNode): boolean {
  let count = 0;
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!isSqlNode(current)) continue;
    count += 1;
    if (count > ORDERED_SIDE_NODES) return false;
    for (const [field, value] of Object.entries(current)) {
      if (field === 'range') continue;
      if (Array.isArray(value)) stack.push(...value);
      else if (isSqlNode(value)) stack.push(value);
    }
  }
  return true;
}

/** Pass 5 (see normalize.ts). */
export function orientComparisons(tree: SqlNode): SqlNode {
  return mapTree(tree, (node) => {
    if (node.type !== 'binary_expr') return node;
    const operator = node['operator'];
    if (typeof operator !== 'string' || !COMPARISON_OPERATORS.has(operator)) return node;
    const left = child(node, 'left');
    const right = child(node, 'right');
    if (!left || !right) return node;
    const leftLiteral = isLiteral(left);
    const rightLiteral = isLiteral(right);
    // Rendering both sides at every level of a chain of comparisons would be quadratic: sides
    // larger than ORDERED_SIDE_NODES keep their order.
    const swap = leftLiteral !== rightLiteral ? leftLiteral : isSmall(left) && isSmall(right) && renderSql(left) > renderSql(right);
    const mirrored = MIRROR[operator === '<>' ? '!=' : operator === '==' ? '=' : operator];
    if (!swap || mirrored === undefined) return node;
    return withFields(node, { operator: mirrored, left: right, right: left });
  });
}
