/**
 * Which base table each name in a query plan stands for. `EXPLAIN QUERY PLAN` prints a table's
 * alias when the query gives one (`SCAN c` for `FROM customers c`), so the plan alone cannot say how
 * many rows `c` has. This reads the FROM clauses of the SQL (sql-parser-cst, via src/sql/parse.ts).
 */
import { parseSql } from '../sql/parse.js';
import type { ParseResult } from '../sql/parse.js';

/**
 * Alias (lower-case) → base table name (lower-case) for every `FROM t AS a` / `JOIN t a` in the
 * statement, every scope included. A table named without alias maps to itself. When one alias names
 * two different tables in different scopes, the first one in source order wins and the alias is
 * listed in `ambiguous`.
 */
export interface TableAliases {
  readonly byName: ReadonlyMap<string, string>;
  /** Aliases bound to more than one table. */
  readonly ambiguous: readonly string[];
  /** False when the SQL could not be parsed; `byName` is then empty and plan names are used as they are. */
  readonly parsed: boolean;
}

interface Node {
  readonly type?: unknown;
  readonly [key: string]: unknown;
}

/**
 * Collects the table aliases of a SQLite statement.
 *
 * @param sql - one statement.
 * @param parse - the parser to use (default `parseSql(sql, 'sqlite')`); the ladder passes its
 *   item's parse memo so that a text is parsed once.
 * @example
 * collectTableAliases('SELECT 1 FROM orders AS o JOIN customers c ON c.id = o.customer_id').byName
 * // Map { 'orders' => 'orders', 'o' => 'orders', 'customers' => 'customers', 'c' => 'customers' }
 */
export function collectTableAliases(sql: string, parse: (sql: string) => ParseResult = (text) => parseSql(text, 'sqlite')): TableAliases {
  const parsed = parse(sql);
  if (!parsed.ok || parsed.kind !== 'cst') return { byName: new Map(), ambiguous: [], parsed: false };
  const byName = new Map<string, string>();
  const ambiguous = new Set<string>();
  const bind = (alias: string, table: string): void => {
    const key = alias.toLowerCase();
    const value = table.toLowerCase();
    const known = byName.get(key);
    if (known === undefined) byName.set(key, value);
    else if (known !== value) ambiguous.add(key);
  };
  walk(parsed.program as unknown as Node, (node) => {
    if (node.type === 'from_clause') readFromItem(node['expr'], bind);
  });
  return { byName, ambiguous: [...ambiguous].sort(), parsed: true };
}

function walk(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const entry of node) walk(entry, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Node;
  if (typeof record.type === 'string') visit(record);
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'range' && value !== null && typeof value === 'object') walk(value, visit);
  }
}

function readFromItem(item: unknown, bind: (alias: string, table: string) => void): void {
  if (item === null || typeof item !== 'object') return;
  const node = item as Node;
  switch (node.type) {
    case 'join_expr':
      readFromItem(node['left'], bind);
      readFromItem(node['right'], bind);
      return;
    case 'paren_expr':
      readFromItem(node['expr'], bind);
      return;
    case 'alias': {
      const table = tableName(node['expr']);
      const alias = identifierName(node['alias']);
      if (table !== undefined) {
        bind(table, table);
        if (alias !== undefined) bind(alias, table);
      }
      return;
    }
    default: {
      const table = tableName(node);
      if (table !== undefined) bind(table, table);
    }
  }
}

/** `t` or `schema.t` → `t`; anything else (a subquery, a function) → undefined. */
function tableName(expr: unknown): string | undefined {
  if (expr === null || typeof expr !== 'object') return undefined;
  const node = expr as Node;
  if (node.type === 'identifier') return identifierName(node);
  if (node.type === 'member_expr') return identifierName(node['property']);
  return undefined;
}

function identifierName(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Node;
  return record.type === 'identifier' && typeof record['name'] === 'string' ? record['name'] : undefined;
}

/**
 * Merges alias maps: the statement's own aliases win; aliases from the others (e.g. the view
 * definitions the plan sees through, whose aliases the plan prints) fill the gaps. An alias two
 * others bind to different tables is listed in `ambiguous` (the first binding is kept).
 */
export function mergeTableAliases(primary: TableAliases, others: readonly TableAliases[]): TableAliases {
  const byName = new Map(primary.byName);
  const ambiguous = new Set(primary.ambiguous);
  for (const other of others) {
    for (const [alias, table] of other.byName) {
      const known = byName.get(alias);
      if (known === undefined) byName.set(alias, table);
      else if (known !== table && !primary.byName.has(alias)) ambiguous.add(alias);
    }
  }
  return { byName, ambiguous: [...ambiguous].sort(), parsed: primary.parsed };
}
