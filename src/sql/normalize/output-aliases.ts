/** Normalization pass 4, `outputAliases`: drops `AS name` from select-list items. */
import { child, children, mapTree, withFields, type SqlNode } from '../sql-tree.js';

/** Pass 4 (see normalize.ts). */
export function dropOutputAliases(tree: SqlNode): SqlNode {
  return mapTree(tree, (node) => {
    if (node.type !== 'select_clause') return node;
    const columns = child(node, 'columns');
    if (!columns || columns.type !== 'list_expr') return node;
    const items = children(columns, 'items').map((item) => (item.type === 'alias' ? child(item, 'expr') ?? item : item));
    return withFields(node, { columns: withFields(columns, { items }) });
  });
}
