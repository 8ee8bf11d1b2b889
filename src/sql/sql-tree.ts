/**
 * Generic, immutable helpers over sql-parser-cst nodes, used by normalization, clause components
 * and the tree edit distance. The CST is treated as plain data: a node is an object with a string
 * `type`; its children are the object-valued fields (and arrays of them). Nothing here mutates a
 * tree: every rewrite returns new objects and keeps the field order of the original node.
 */
import type { Node } from 'sql-parser-cst';
// The printer alone: the package's entry also loads its 6.5 MB parser, which runs only in the
// parser thread (bounded-parse.ts).
import { show } from 'sql-parser-cst/lib/show.js';
import { checkAnalysisBudget } from './analysis-budget.js';

/** A CST node seen as data: `type` plus arbitrary fields. */
export interface SqlNode {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** True when `value` is a CST node (an object with a string `type`). */
export function isSqlNode(value: unknown): value is SqlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';
}

/** Reads a child node field, or `undefined` when absent or not a node. */
export function child(node: SqlNode, field: string): SqlNode | undefined {
  const value = node[field];
  return isSqlNode(value) ? value : undefined;
}

/** Reads an array-of-nodes field (`list_expr.items`, `select_stmt.clauses`); `[]` when absent. */
export function children(node: SqlNode | undefined, field: string): readonly SqlNode[] {
  if (!node) return [];
  const value = node[field];
  return Array.isArray(value) ? value.filter(isSqlNode) : [];
}

/** The items of a `list_expr` (or `[node]` for a lone expression; `[]` for `undefined`). */
export function listItems(node: SqlNode | undefined): readonly SqlNode[] {
  if (!node) return [];
  return node.type === 'list_expr' ? children(node, 'items') : [node];
}

/** Returns a copy of `node` with `fields` replaced, keeping field order. */
export function withFields(node: SqlNode, fields: Readonly<Record<string, unknown>>): SqlNode {
  return { ...node, ...fields };
}

/**
 * Maps every direct child node of `node` (fields and arrays) through `fn`, returning a new node
 * only when some child changed. Keywords are nodes too (`type: 'keyword'`).
 */
export function mapChildren(node: SqlNode, fn: (childNode: SqlNode, field: string) => SqlNode): SqlNode {
  // Every tree rewrite goes through here: the point where an analysis over its budget stops.
  checkAnalysisBudget();
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(node)) {
    if (isSqlNode(value)) {
      const mapped = fn(value, field);
      if (mapped !== value) changed = true;
      out[field] = mapped;
    } else if (Array.isArray(value)) {
      const mappedArray = value.map((entry: unknown) => {
        if (!isSqlNode(entry)) return entry;
        const mapped = fn(entry, field);
        if (mapped !== entry) changed = true;
        return mapped;
      });
      out[field] = mappedArray;
    } else {
      out[field] = value;
    }
  }
  return changed ? (out as SqlNode) : node;
}

/** Applies `fn` bottom-up to every node of the tree (children first). */
export function mapTree(node: SqlNode, fn: (node: SqlNode) => SqlNode): SqlNode {
  return fn(mapChildren(node, (c) => mapTree(c, fn)));
}

/** Lower-cased text of a keyword node, a keyword array (`['LEFT','JOIN']` → `left join`) or an operator string. */
export function keywordText(value: unknown): string {
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.map(keywordText).filter((part) => part !== '').join(' ');
  if (isSqlNode(value) && value.type === 'keyword') return String(value['name'] ?? value['text'] ?? '').toLowerCase();
  return '';
}

/** The unquoted, lower-cased name of an identifier node (SQLite identifiers are case-insensitive). */
export function identifierName(node: SqlNode | undefined): string | undefined {
  if (!node || node.type !== 'identifier') return undefined;
  const name = node['name'];
  return typeof name === 'string' ? name.toLowerCase() : undefined;
}

/** Node types whose text is one token (used to space the rendered text). */
const LEAF_TYPES = new Set([
  'keyword',
  'identifier',
  'number_literal',
  'string_literal',
  'boolean_literal',
  'null_literal',
  'blob_literal',
  'all_columns',
  'parameter',
  'variable',
]);

/**
 * Renders a (normalized) CST node as one line of SQL text: tokens separated by single spaces,
 * no space inside parentheses or before commas, `a.b` without spaces.
 *
 * @example
 * renderSql(parse('SELECT  x,y FROM t')) // 'select x, y from t' after normalization lower-cased it
 */
export function renderSql(node: SqlNode): string {
  const spaced = mapTree(node, (n) => {
    if (LEAF_TYPES.has(n.type)) return withFields(n, { leading: [SPACE], trailing: [SPACE] });
    const operator = n['operator'];
    return typeof operator === 'string' ? withFields(n, { operator: ` ${operator} ` }) : n;
  });
  return show(spaced as unknown as Node)
    .replace(/\s+/g, ' ')
    .replace(/ ?, ?/g, ', ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')')
    .replace(/ \. /g, '.')
    .trim();
}

const SPACE = { type: 'space', text: ' ' };

/** The table sources of a FROM expression, left to right. */
export function fromSources(expr: SqlNode | undefined): readonly SqlNode[] {
  if (!expr) return [];
  if (expr.type === 'join_expr') return [...fromSources(child(expr, 'left')), ...fromSources(child(expr, 'right'))];
  return [expr];
}

/** Lower-cased table name of `t` or `schema.t`; undefined for anything else. */
export function tableName(node: SqlNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'identifier') return identifierName(node);
  if (node.type === 'member_expr') return identifierName(child(node, 'property'));
  return undefined;
}

/** The first clause of a select_stmt with the given type (`from_clause`, `where_clause`, …), if any. */
export function clauseOf(select: SqlNode, type: string): SqlNode | undefined {
  return children(select, 'clauses').find((c) => c.type === type);
}

/**
 * Flattens a chain of one boolean operator (`and` / `or`) into its operands, left to right.
 * Iterative, so a chain of any length costs one visit per node and no stack.
 */
export function flattenBoolean(node: SqlNode | undefined, operator: 'and' | 'or'): readonly SqlNode[] {
  if (!node) return [];
  const operands: SqlNode[] = [];
  const pending: SqlNode[] = [node];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (current.type === 'binary_expr' && keywordText(current['operator']) === operator) {
      // Right first onto the stack, so that the left operand comes out first.
      const right = child(current, 'right');
      const left = child(current, 'left');
      if (right) pending.push(right);
      if (left) pending.push(left);
    } else {
      operands.push(current);
    }
  }
  return operands;
}
