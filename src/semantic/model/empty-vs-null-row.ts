/**
 * The empty-vs-NULL-row rule of the counterexample search: whether a database on which one query
 * returns no rows and the other one row of NULLs tells them apart. An option of L5
 * (`emptyVsNullRow`), so it lives apart from the witness check that applies it: reading the
 * options loads nothing of the search.
 */
import type { QueryResult } from '../../engine/engine.js';

/**
 * How a database on which one query returns no rows and the other returns one row of NULLs is
 * judged (`SELECT MAX(x) FROM t` against `SELECT x FROM t ORDER BY x DESC LIMIT 1` on an empty
 * table: `[(NULL)]` against no rows).
 * - `same` (default): both say "there is no value"; such a database refutes nothing. The two
 *   shapes agree wherever the question has an answer, and counting the empty case would refute
 *   nearly every `MAX` ↔ `ORDER BY … LIMIT 1` pair.
 * - `different`: the results differ as the comparison policy says (no rows ≠ one row), so such a
 *   database refutes.
 */
export type EmptyVsNullRow = 'same' | 'different';

/** Every {@link EmptyVsNullRow} value, for option validation. */
export const EMPTY_VS_NULL_ROW_VALUES: readonly EmptyVsNullRow[] = ['same', 'different'];

/** The default of {@link EmptyVsNullRow}. */
export const DEFAULT_EMPTY_VS_NULL_ROW: EmptyVsNullRow = 'same';

/**
 * True when one result has no rows and the other exactly one row whose every cell is NULL, with
 * as many columns.
 * @example isEmptyVsNullRow({ columns: ['m'], rows: [[null]] }, { columns: ['x'], rows: [] }) // true
 */
export function isEmptyVsNullRow(a: Pick<QueryResult, 'columns' | 'rows'>, b: Pick<QueryResult, 'columns' | 'rows'>): boolean {
  if (a.columns.length !== b.columns.length) return false;
  const nullRow = (r: Pick<QueryResult, 'rows'>): boolean => r.rows.length === 1 && r.rows[0]!.every((cell) => cell === null);
  return (a.rows.length === 0 && nullRow(b)) || (b.rows.length === 0 && nullRow(a));
}
