/**
 * The LIMIT policy of L3 (static safety): with `maxLimit` set, the outermost query must end in
 * `LIMIT n` (or `FETCH FIRST n ROWS`) with n an integer literal from 1 to `maxLimit`
 * (`limit_missing`, `limit_invalid`, `limit_out_of_range`). Read from the parse tree, so a LIMIT
 * in a comment, a string or a subquery does not count.
 */
import { start, type AnyNode } from './statement-kinds.js';

/** The clause that bounds the statement and its row count. */
export interface LimitFound {
  readonly clause: AnyNode;
  /** The row-count expression (LIMIT count or FETCH count); `undefined` for FETCH FIRST ROW ONLY. */
  readonly count: AnyNode | undefined;
}

/**
 * The LIMIT / FETCH that bounds the whole statement: in the top SELECT, or for a compound in its
 * last branch when that branch is not parenthesised (the parser attaches the compound's ORDER BY
 * and LIMIT there).
 */
export function outermostLimit(statement: AnyNode, inCompound = false): LimitFound | undefined {
  let node: AnyNode = statement;
  while (node.type === 'paren_expr') node = node.expr as AnyNode;
  if (node.type === 'compound_select_stmt') return outermostLimit(node.right as AnyNode, true);
  if (node.type !== 'select_stmt') return undefined;
  const clauses = (node.clauses as AnyNode[]) ?? [];
  for (const clause of clauses) {
    if (clause.type === 'limit_clause' || clause.type === 'fetch_clause') return { clause, count: clause.count as AnyNode | undefined };
  }
  // `(SELECT … LIMIT n)` alone is bounded by its own LIMIT; as a compound's last branch it is not.
  const paren = clauses.find((clause) => clause.type === 'paren_expr');
  return paren && !inCompound ? outermostLimit(paren.expr as AnyNode) : undefined;
}

/** Adds the LIMIT policy's violation, if any, through `add` (kind, message, offset in `sql`). */
export function checkLimit(
  sql: string,
  statement: AnyNode,
  limit: LimitFound | undefined,
  maxLimit: number,
  add: (kind: string, message: string, offset: number) => void,
): void {
  if (!limit) {
    add('limit_missing', `the outermost query has no LIMIT; an integer literal from 1 to ${maxLimit} is required`, start(statement));
    return;
  }
  const count = limit.count;
  if (count === undefined) {
    // FETCH FIRST ROW ONLY: one row.
    if (limit.clause.type === 'fetch_clause') return;
    add('limit_invalid', 'LIMIT without a row count', start(limit.clause));
    return;
  }
  const text = count.range ? sql.slice(count.range[0], count.range[1]) : '';
  const isIntegerLiteral = count.type === 'number_literal' && /^[0-9]+$/.test(text);
  if (!isIntegerLiteral) {
    add('limit_invalid', `LIMIT ${text || count.type} is not an integer literal from 1 to ${maxLimit}`, start(count));
    return;
  }
  const value = Number(text);
  if (value < 1 || value > maxLimit) {
    add('limit_out_of_range', `LIMIT ${text} is outside 1..${maxLimit}`, start(count));
  }
}
