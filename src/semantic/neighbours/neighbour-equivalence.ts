/**
 * Edits of a gold that provably keep its meaning, so that they are not counted as neighbours: drops
 * that change only spelling (an unused output alias, a qualifier, `COUNT(*)` → `COUNT()`), DISTINCT
 * added where rows are already unique (a key in the select list, one aggregate row, an IN / EXISTS
 * subquery), LEFT ↔ INNER on a NOT NULL foreign key to a key, and comparisons whose truth does not
 * change over a column's declared finite domain (domain-equivalence.ts).
 */
import { isSqlNode, keywordText, type SqlNode } from '../../sql/sql-tree.js';
import type { SqliteToken } from '../../sql/sqlite-lexer.js';
import type { DomainComparison } from './domain-equivalence.js';
import { AGGREGATES, rangeOf, visit, word, type ReadTree } from './neighbour-syntax.js';
import { findColumn, findTable, type DatabaseSchema } from '../model/schema-reader.js';
/** Comparisons `column op literals` whose column has a declared finite domain. */
export function domainComparisons(tree: ReadTree, domains: ReadonlyMap<string, DomainComparison['domain']>): DomainComparison[] {
  if (!tree.references.ok) return [];
  // A view column takes the domain of the base-table columns of the same name when they all agree
  // (v_order_revenue.order_date is orders.order_date).
  const byName = new Map<string, string | null>();
  for (const [key, domain] of domains) {
    const name = key.slice(key.indexOf('.') + 1);
    const text = JSON.stringify(domain, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    byName.set(name, byName.has(name) && byName.get(name) !== text ? null : text);
  }
  const domainOf = (table: string, column: string, view: boolean): DomainComparison['domain'] | undefined => {
    const direct = domains.get(`${table}.${column}`.toLowerCase());
    if (direct !== undefined || !view) return direct;
    const name = column.toLowerCase();
    if (!byName.get(name)) return undefined;
    return [...domains].find(([key]) => key.slice(key.indexOf('.') + 1) === name)?.[1];
  };
  const refAt = new Map<number, { domain: DomainComparison['domain'] | undefined; end: number }>();
  for (const ref of tree.references.columns) {
    if (ref.resolution.kind === 'table') refAt.set(ref.start, { domain: domainOf(ref.resolution.table.name, ref.resolution.column, ref.resolution.table.kind === 'view'), end: ref.end });
  }
  const out: DomainComparison[] = [];
  visit(tree.statement, (node) => {
    if (node.type !== 'binary_expr' && node.type !== 'between_expr') return;
    const range = rangeOf(node);
    const left = rangeOf(node['left']);
    if (!range || !left) return;
    const ref = refAt.get(left[0]);
    if (!ref || ref.end !== left[1] || ref.domain === undefined) return;
    out.push({ start: range[0], end: range[1], columnStart: left[0], columnEnd: left[1], domain: ref.domain });
  });
  return out;
}

/**
 * Text a drop may remove without changing the query: an output alias (`AS total`, `total`) whose
 * name appears nowhere else in the gold.
 */
export function cosmeticRanges(tree: ReadTree): [number, number][] {
  // Names something refers to as an output column: a select alias (ORDER BY total) or a column of
  // a derived table or CTE (the outer query reads the alias).
  const used = new Set<string>();
  if (tree.references.ok) {
    for (const ref of tree.references.columns) {
      if (ref.resolution.kind !== 'table' && ref.resolution.kind !== 'string_literal') used.add(ref.name.toLowerCase());
    }
  } else {
    return [];
  }
  const out: [number, number][] = [];
  visit(tree.statement, (node, parent, field) => {
    if (node.type !== 'alias' || parent?.type !== 'list_expr' || field !== 'items') return;
    const expr = rangeOf(node['expr']);
    const alias = rangeOf(node['alias']);
    const name = isSqlNode(node['alias']) ? String(node['alias']['name'] ?? '').toLowerCase() : '';
    if (!expr || !alias || name === '' || used.has(name)) return;
    out.push([expr[1], alias[1]]);
  });
  return out;
}

/**
 * Edits that provably change nothing, found on the tree:
 * - `distinctAt`: SELECT keywords after which DISTINCT is redundant — the select has only
 *   aggregates and no GROUP BY (one row), or every GROUP BY key is selected (rows are unique);
 * - `joinAt`: JOIN keywords where LEFT and INNER give the same rows — the condition is
 *   `child.fk = parent.key` with a NOT NULL single-column foreign key of a table on the left to
 *   the joined table's primary key or UNIQUE column (every left row has exactly one match).
 */
export function equivalentEdits(gold: string, tree: ReadTree, schema: DatabaseSchema): { distinctAt: Set<number>; joinAt: Set<number> } {
  const distinctAt = new Set<number>();
  const joinAt = new Set<number>();
  const text = (node: unknown): string => {
    const range = rangeOf(node);
    return range ? gold.slice(range[0], range[1]).replace(/\s+/g, ' ').trim().toLowerCase() : '';
  };
  const refAt = new Map<number, { table: string; column: string }>();
  if (tree.references.ok) {
    for (const ref of tree.references.columns) {
      if (ref.resolution.kind === 'table' && ref.resolution.table.kind === 'table') refAt.set(ref.start, { table: ref.resolution.table.name, column: ref.resolution.column });
    }
  }
  // Subqueries of EXISTS and IN: duplicates never change the outcome.
  visit(tree.statement, (node) => {
    const op = keywordText(node['operator']);
    const sub = node.type === 'prefix_op_expr' && op === 'exists' ? node['expr'] : node.type === 'binary_expr' && (op === 'in' || op === 'not in') ? node['right'] : undefined;
    if (!isSqlNode(sub) || sub.type !== 'paren_expr' || !isSqlNode(sub['expr']) || sub['expr'].type !== 'select_stmt') return;
    const select = ((sub['expr']['clauses'] as SqlNode[] | undefined) ?? []).find((c) => c.type === 'select_clause');
    const keyword = select ? rangeOf(select['selectKw']) : undefined;
    if (keyword) distinctAt.add(keyword[1]);
  });
  visit(tree.statement, (node, parent) => {
    if (node.type === 'select_stmt' && parent?.type !== 'compound_select_stmt') {
      const clauses = (node['clauses'] as SqlNode[] | undefined) ?? [];
      const select = clauses.find((c) => c.type === 'select_clause');
      const groupBy = clauses.find((c) => c.type === 'group_by_clause');
      const from = clauses.find((c) => c.type === 'from_clause');
      const keyword = select ? rangeOf(select['selectKw']) : undefined;
      if (!select || !keyword) return;
      const columns = select['columns'];
      const items = (isSqlNode(columns) ? ((columns['items'] as SqlNode[]) ?? []) : []).map((item) => (item.type === 'alias' && isSqlNode(item['expr']) ? item['expr'] : item));
      if (items.length === 0) return;
      if (groupBy === undefined) {
        if (items.every((item) => aggregateOnly(item).ok) && items.some((item) => aggregateOnly(item).aggregates > 0)) distinctAt.add(keyword[1]);
        else if (from && selectsUniqueRows(items, from, schema, refAt)) distinctAt.add(keyword[1]);
      } else {
        const keys = isSqlNode(groupBy['columns']) ? (((groupBy['columns'] as SqlNode)['items'] as SqlNode[]) ?? []) : [];
        const selected = new Set(items.map(text));
        if (keys.length > 0 && keys.every((key) => selected.has(text(key)))) distinctAt.add(keyword[1]);
      }
    }
    if (node.type === 'join_expr') {
      const spec = node['specification'];
      const operator = node['operator'];
      const keywords = (Array.isArray(operator) ? operator : [operator]).filter(isSqlNode);
      const joinKeyword = keywords[keywords.length - 1];
      const joinRange = rangeOf(joinKeyword);
      if (!joinRange || !isSqlNode(spec) || spec.type !== 'join_on_specification') return;
      const condition = spec['expr'];
      if (!isSqlNode(condition) || condition.type !== 'binary_expr' || condition['operator'] !== '=') return;
      const right = node['right'];
      const rightTable = isSqlNode(right) ? (right.type === 'alias' ? right['expr'] : right) : undefined;
      const rightName = isSqlNode(rightTable) && rightTable.type === 'identifier' ? String(rightTable['name']).toLowerCase() : '';
      const sides = [condition['left'], condition['right']].map((side) => refAt.get(rangeOf(side)?.[0] ?? -1));
      for (const [childRef, parentRef] of [[sides[0], sides[1]], [sides[1], sides[0]]] as const) {
        if (!childRef || !parentRef || parentRef.table.toLowerCase() !== rightName || childRef.table.toLowerCase() === rightName) continue;
        const child = findTable(schema, childRef.table);
        const parentTable = findTable(schema, parentRef.table);
        if (!child || !parentTable) continue;
        const fk = child.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0]!.toLowerCase() === childRef.column.toLowerCase() && f.parentTable === parentTable.name);
        const fkColumn = findColumn(child, childRef.column);
        const parentKey = parentRef.column.toLowerCase();
        const unique = (parentTable.primaryKey.length === 1 && parentTable.primaryKey[0]!.toLowerCase() === parentKey) || parentTable.uniqueKeys.some((k) => k.length === 1 && k[0]!.toLowerCase() === parentKey);
        if (fk && fkColumn?.notNull && fk.parentColumns[0]!.toLowerCase() === parentKey && unique) joinAt.add(joinRange[0]);
      }
    }
  });
  return { distinctAt, joinAt };
}

/**
 * True when the select's rows are unique: it selects every column of the primary key (or of a
 * UNIQUE key of NOT NULL columns) of one FROM table,
 * and every other FROM table is joined on its own primary key or a UNIQUE column (so it adds at
 * most one row per row).
 */
function selectsUniqueRows(items: readonly SqlNode[], from: SqlNode, schema: DatabaseSchema, refAt: ReadonlyMap<number, { table: string; column: string }>): boolean {
  const tables: { name: string; joinedOn: SqlNode | undefined }[] = [];
  const collect = (node: unknown, condition: SqlNode | undefined): boolean => {
    if (!isSqlNode(node)) return false;
    if (node.type === 'join_expr') {
      const spec = node['specification'];
      const operator = keywordText(node['operator']);
      if (operator.includes('cross') || operator.includes('natural') || operator.includes('right') || operator.includes('full')) return false;
      return collect(node['left'], undefined) && collect(node['right'], isSqlNode(spec) && spec.type === 'join_on_specification' && isSqlNode(spec['expr']) ? spec['expr'] : undefined);
    }
    const base = node.type === 'alias' ? node['expr'] : node;
    if (!isSqlNode(base) || base.type !== 'identifier') return false;
    tables.push({ name: String(base['name']).toLowerCase(), joinedOn: condition });
    return true;
  };
  if (!collect(from['expr'], undefined) || tables.length === 0) return false;
  const selected = new Set(items.map((item) => refAt.get(rangeOf(item)?.[0] ?? -1)).filter((r) => r !== undefined).map((r) => `${r!.table}.${r!.column}`.toLowerCase()));
  const isKey = (tableName: string, column: string): boolean => {
    const table = findTable(schema, tableName);
    if (!table) return false;
    const c = column.toLowerCase();
    return (table.primaryKey.length === 1 && table.primaryKey[0]!.toLowerCase() === c) || table.uniqueKeys.some((k) => k.length === 1 && k[0]!.toLowerCase() === c);
  };
  return tables.some((root, r) => {
    const table = findTable(schema, root.name);
    if (!table) return false;
    // A selected primary key, or a selected UNIQUE key of NOT NULL columns (NULLs may repeat).
    const keys = [table.primaryKey, ...table.uniqueKeys.filter((k) => k.every((c) => findColumn(table, c)?.notNull))].filter((k) => k.length > 0);
    if (!keys.some((key) => key.every((c) => selected.has(`${table.name}.${c}`.toLowerCase())))) return false;
    return tables.every((other, o) => {
      if (o === r) return true;
      const condition = other.joinedOn;
      if (!condition || condition.type !== 'binary_expr' || condition['operator'] !== '=') return false;
      return [condition['left'], condition['right']].some((side) => {
        const ref = refAt.get(rangeOf(side)?.[0] ?? -1);
        return ref !== undefined && ref.table.toLowerCase() === other.name && isKey(ref.table, ref.column);
      });
    });
  });
}

/** Whether an expression reads columns only inside aggregates (so a select of such items has one row). */
function aggregateOnly(node: SqlNode): { ok: boolean; aggregates: number } {
  if (node.type === 'number_literal' || node.type === 'string_literal' || node.type === 'null_literal') return { ok: true, aggregates: 0 };
  if (node.type === 'func_call') {
    const name = isSqlNode(node['name']) ? String(node['name']['name'] ?? '').toLowerCase() : '';
    if (AGGREGATES.includes(name) || name === 'group_concat' || name === 'total') return node['over'] === undefined ? { ok: true, aggregates: 1 } : { ok: false, aggregates: 0 };
  }
  if (['func_call', 'binary_expr', 'paren_expr', 'prefix_op_expr', 'func_args', 'list_expr', 'cast_expr', 'case_expr', 'case_when', 'case_else'].includes(node.type)) {
    let aggregates = 0;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range' || key === 'name') continue;
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) {
        if (!isSqlNode(item) || item.type === 'keyword' || item.type === 'data_type') continue;
        const inner = aggregateOnly(item);
        if (!inner.ok) return { ok: false, aggregates: 0 };
        aggregates += inner.aggregates;
      }
    }
    return { ok: true, aggregates };
  }
  return { ok: false, aggregates: 0 };
}

/**
 * Drops that change nothing (paper §3 leaves these spans out): a lone `AS` or `ASC`, a qualifier
 * with its dot (`T1.`), an unused output alias, the `*` of `COUNT(*)`.
 */
export function isCosmeticDrop(tokens: readonly SqliteToken[], start: number, end: number, cosmetic: readonly [number, number][]): boolean {
  if (cosmetic.some(([s, e]) => start >= s && end <= e)) return true;
  const first = tokens.findIndex((t) => t.start >= start);
  const inside = tokens.filter((t) => t.start >= start && t.end <= end);
  if (inside.length === 1 && ['as', 'asc', 'inner', 'outer'].includes(word(inside[0]))) return true;
  if (inside.length === 2 && inside[1]!.value === '.' && inside[0]!.kind !== 'string') return true;
  // COUNT(*) → COUNT(): SQLite counts rows either way.
  if (inside.length === 1 && inside[0]!.value === '*' && tokens[first - 1]?.value === '(' && word(tokens[first - 2]) === 'count' && tokens[first + 1]?.value === ')') return true;
  return false;
}
