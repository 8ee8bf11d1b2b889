/**
 * Joins without a join condition.
 * - PostgreSQL and BigQuery reject `a JOIN b` and `a LEFT JOIN b` without `ON` or `USING` (only
 *   `CROSS JOIN`, `NATURAL … JOIN` and the comma take none), but sql-parser-cst accepts them in
 *   both dialects, so L1 asks {@link joinsWithoutCondition}.
 * - SQLite and MySQL read such a join as a cross product, which is valid SQL but almost never what
 *   a question asks for (the classic missing join condition); {@link crossProducts} lists these and
 *   comma joins in a query with no WHERE at all, for warnings that do not fail a rung.
 */
import type { Dialect } from './parse.js';
import { isSqlNode, keywordText, type SqlNode } from './sql-tree.js';

/** Dialects whose grammar requires `ON` / `USING` after `[INNER | LEFT | RIGHT | FULL] [OUTER] JOIN`. */
export const DIALECTS_REQUIRING_JOIN_CONDITIONS: readonly Dialect[] = ['postgres', 'bigquery'];

/** One join without a condition, as written. */
export interface JoinWithoutCondition {
  /** The join keywords as written, upper-cased and single-spaced, e.g. `LEFT JOIN`. */
  readonly operator: string;
  /** Offset of the join keywords in the text (0-based, UTF-16 units). */
  readonly start: number;
}

/** Join operators that take no condition. */
const CONDITIONLESS = new Set(['CROSS', 'NATURAL']);

/**
 * Every `join_expr` in `tree` (at any depth: subqueries, CTEs, set operations) whose operator is
 * a `JOIN` that needs a condition and that has neither `ON` nor `USING`, in text order.
 * @param tree - a sql-parser-cst tree parsed with `includeRange` (a program, a statement or any node).
 * @returns an empty list when every join has its condition (or takes none).
 */
export function joinsWithoutCondition(tree: SqlNode): JoinWithoutCondition[] {
  return walkJoins(tree, undefined).map(({ operator, start }) => ({ operator, start }));
}

/** A join that multiplies every row of one side with every row of the other. */
export interface CrossProduct {
  /** `join_without_condition`: `JOIN` with neither `ON` nor `USING`; `comma_without_where`: `a, b` in a query with no WHERE. */
  readonly kind: 'join_without_condition' | 'comma_without_where';
  /** The join keywords as written, upper-cased (`JOIN`, `LEFT JOIN`), or `,`. */
  readonly operator: string;
  /** Offset of the join keywords or the comma in the text (0-based, UTF-16 units). */
  readonly start: number;
}

/**
 * The cross products a query asks for without saying `CROSS JOIN`: every `JOIN` without a
 * condition ({@link joinsWithoutCondition}), and every comma join in a SELECT that has no WHERE
 * clause (with a WHERE the comma join is usually filtered by it; telling requires name
 * resolution, so no warning is given then). Subqueries and CTEs are read on their own.
 * @param tree - a sql-parser-cst tree parsed with `includeRange`.
 * @param sql - the text the tree was parsed from (to place each comma).
 * @returns in text order; empty when there is none.
 */
export function crossProducts(tree: SqlNode, sql: string): CrossProduct[] {
  return walkJoins(tree, sql);
}

/** One walk of the tree: joins without a condition, and (given the text) comma joins of SELECTs without WHERE. */
function walkJoins(tree: SqlNode, sql: string | undefined): CrossProduct[] {
  const found: CrossProduct[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isSqlNode(value)) return;
    if (value.type === 'join_expr' && value['specification'] === undefined) {
      const words = keywordText(value['operator']).toUpperCase().split(' ');
      if (words.includes('JOIN') && !words.some((word) => CONDITIONLESS.has(word))) {
        const first = Array.isArray(value['operator']) ? value['operator'][0] : value['operator'];
        const range = isSqlNode(first) ? first['range'] : undefined;
        found.push({ kind: 'join_without_condition', operator: words.join(' '), start: Array.isArray(range) && typeof range[0] === 'number' ? range[0] : 0 });
      }
    }
    if (sql !== undefined && value.type === 'select_stmt') {
      const clauses = Array.isArray(value['clauses']) ? value['clauses'].filter(isSqlNode) : [];
      const from = clauses.find((clause) => clause.type === 'from_clause');
      if (from !== undefined && !clauses.some((clause) => clause.type === 'where_clause')) {
        for (const start of commaJoinsOf(from['expr'], sql)) found.push({ kind: 'comma_without_where', operator: ',', start });
      }
    }
    for (const field of Object.values(value)) if (typeof field === 'object' && field !== null) visit(field);
  };
  visit(tree);
  return found.sort((a, b) => a.start - b.start);
}

/** Offsets of the commas of the join tree of one FROM clause (not inside its subqueries). */
function commaJoinsOf(expr: unknown, sql: string): number[] {
  if (!isSqlNode(expr)) return [];
  if (expr.type === 'paren_expr') return commaJoinsOf(expr['expr'], sql);
  if (expr.type !== 'join_expr') return [];
  const own: number[] = [];
  const operator = expr['operator'];
  if (operator === ',') {
    const left = expr['left'];
    // The comma follows the left side, after any whitespace or comment.
    const leftEnd = isSqlNode(left) && Array.isArray(left['range']) ? Number(left['range'][1]) : 0;
    own.push(nextTokenAt(sql, leftEnd));
  }
  return [...commaJoinsOf(expr['left'], sql), ...own, ...commaJoinsOf(expr['right'], sql)];
}

/** Offset of the first character at or after `from` that is not whitespace or inside a comment. */
function nextTokenAt(sql: string, from: number): number {
  let at = from;
  for (;;) {
    while (at < sql.length && /\s/.test(sql[at]!)) at += 1;
    if (sql.startsWith('--', at)) {
      const newline = sql.indexOf('\n', at);
      at = newline === -1 ? sql.length : newline + 1;
    } else if (sql.startsWith('/*', at)) {
      const close = sql.indexOf('*/', at + 2);
      at = close === -1 ? sql.length : close + 2;
    } else {
      return at;
    }
  }
}
