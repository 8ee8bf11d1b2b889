/**
 * Normalization pass 1, `canonicalTokens`: keyword and identifier case, identifier quoting,
 * string quoting, `<>` → `!=`, `==` → `=`, `INNER JOIN` → `JOIN`, `LEFT OUTER JOIN` → `LEFT JOIN`,
 * and SQLite's double-quoted values read as strings (see normalize.ts for the whole list).
 */
import type { Dialect } from '../parse.js';
import { child, children, isSqlNode, keywordText, mapTree, withFields, type SqlNode } from '../sql-tree.js';

/** The comparison operators, as the parser writes them. */
export const COMPARISON_OPERATORS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=']);
const VALUE_OPERATORS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=', 'like', 'not like', 'glob', 'not glob']);

/** Pass 1 (see normalize.ts). */
export function canonicalTokens(tree: SqlNode, dialect: Dialect, columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>): SqlNode {
  const knownColumns = columnsByTable ? new Set([...columnsByTable.values()].flatMap((columns) => [...columns])) : undefined;
  const withStrings = dialect === 'sqlite' ? doubleQuotedValuesAsStrings(tree, knownColumns) : tree;
  return mapTree(withStrings, (node) => {
    switch (node.type) {
      case 'keyword': {
        const name = String(node['name'] ?? node['text']).toLowerCase();
        return withFields(node, { text: name, name });
      }
      case 'identifier': {
        const name = String(node['name']).toLowerCase();
        return withFields(node, { text: name, name });
      }
      case 'string_literal': {
        const value = String(node['value']);
        return withFields(node, { text: `'${value.replace(/'/g, "''")}'` });
      }
      case 'binary_expr': {
        const operator = node['operator'];
        if (operator === '<>') return withFields(node, { operator: '!=' });
        if (operator === '==') return withFields(node, { operator: '=' });
        return node;
      }
      case 'join_expr': {
        // INNER JOIN = JOIN, LEFT OUTER JOIN = LEFT JOIN (the noise words change nothing)
        const operator = node['operator'];
        if (!Array.isArray(operator)) return node;
        const kept = operator.filter((kw: unknown) => !(isSqlNode(kw) && kw.type === 'keyword' && (kw['name'] === 'inner' || kw['name'] === 'outer')));
        if (kept.length === operator.length) return node;
        return withFields(node, { operator: kept.length === 1 ? kept[0] : kept });
      }
      default:
        return node;
    }
  });
}

function isDoubleQuoted(node: SqlNode | undefined): boolean {
  return node?.type === 'identifier' && String(node['text']).startsWith('"');
}

function asStringLiteral(node: SqlNode): SqlNode {
  const value = String(node['name']);
  return { type: 'string_literal', text: `'${value.replace(/'/g, "''")}'`, value, ...(node['range'] ? { range: node['range'] } : {}) };
}

/**
 * Double-quoted tokens in value positions become strings, except those naming a known column
 * (`knownColumns`, lower-cased; from the catalog when given) — SQLite's own rule.
 */
function doubleQuotedValuesAsStrings(tree: SqlNode, knownColumns: ReadonlySet<string> | undefined): SqlNode {
  const isString = (node: SqlNode | undefined): node is SqlNode =>
    isDoubleQuoted(node) && !(knownColumns?.has(String(node!['name']).toLowerCase()) ?? false);
  return mapTree(tree, (node) => {
    if (node.type === 'binary_expr') {
      const op = keywordText(node['operator']);
      const right = child(node, 'right');
      if (VALUE_OPERATORS.has(op) && isString(right)) return withFields(node, { right: asStringLiteral(right) });
      if ((op === 'in' || op === 'not in') && right?.type === 'paren_expr') {
        const list = child(right, 'expr');
        if (list?.type === 'list_expr') {
          const items = children(list, 'items').map((item) => (isString(item) ? asStringLiteral(item) : item));
          return withFields(node, { right: withFields(right, { expr: withFields(list, { items }) }) });
        }
        if (isString(list)) return withFields(node, { right: withFields(right, { expr: asStringLiteral(list) }) });
      }
    }
    if (node.type === 'between_expr') {
      const begin = child(node, 'begin');
      const end = child(node, 'end');
      return withFields(node, {
        ...(isString(begin) ? { begin: asStringLiteral(begin) } : {}),
        ...(isString(end) ? { end: asStringLiteral(end) } : {}),
      });
    }
    return node;
  });
}
