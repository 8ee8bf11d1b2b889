/**
 * Joins that need a join condition and have none. PostgreSQL and BigQuery reject
 * `a JOIN b` and `a LEFT JOIN b` without `ON` or `USING` (only `CROSS JOIN`, `NATURAL … JOIN` and
 * the comma take none), but sql-parser-cst accepts them in both dialects, so L1 asks this module.
 * SQLite and MySQL accept such a join as a cross product, which is valid SQL there.
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
  const found: JoinWithoutCondition[] = [];
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
        found.push({ operator: words.join(' '), start: Array.isArray(range) && typeof range[0] === 'number' ? range[0] : 0 });
      }
    }
    for (const field of Object.values(value)) if (typeof field === 'object' && field !== null) visit(field);
  };
  visit(tree);
  return found.sort((a, b) => a.start - b.start);
}
