/**
 * The shape of a comparison verdict: the decision, the map it was decided under, missing / extra
 * row samples, the first differing cell, flags and the one-line reason (compare-results.ts decides;
 * row-diff.ts and verdict-reasons.ts explain).
 */
import type { Cell, Row } from '../engine/engine.js';
import type { GoldOrdering } from './gold-ordering.js';
import type { ComparisonPolicy } from './policy.js';

/** Machine-readable flags a verdict may carry. */
export type VerdictFlag =
  /** The gold result has no rows (weak evidence): set on every verdict, match or not. */
  | 'empty_gold'
  /** Row order mattered for this gold. */
  | 'ordered'
  /** A LIMIT / OFFSET cut a tie group with differing rows: any valid tie choice was accepted. */
  | 'nondeterministic_gold'
  /** The AST layer could not read the gold; ORDER BY was found by a depth-0 token scan. */
  | 'order_by_token_scan'
  /** Order mattered but tie groups were unknown, so order was checked row by row. */
  | 'ties_unknown'
  /** The column-map search ran out of budget. */
  | 'column_search_budget'
  /** A column map other than the identity was used. */
  | 'columns_reordered'
  /** Predicted columns beyond the map were allowed (`allowExtraColumns`). */
  | 'extra_columns_allowed'
  /** The policy deduplicated rows (`duplicates: 'set'`). */
  | 'deduplicated';

/** A capped sample of rows plus the true count. */
export interface RowSample {
  readonly count: number;
  /** At most `policy.maxSampleRows` rows, by position. */
  readonly rows: readonly Row[];
}

/** The first cell where gold and prediction differ under the map used for the diff. */
export interface CellDifference {
  /** 0-based row position in the gold result (for unordered results: the first missing gold row). */
  readonly goldRow: number;
  /** 0-based row position in the predicted result; −1 when the gold row has no predicted row to compare with (all were matched, or there are none). */
  readonly predictedRow: number;
  readonly goldColumn: number;
  /** −1 when the gold column has no predicted counterpart. */
  readonly predictedColumn: number;
  readonly gold: Cell;
  /** `undefined` when the predicted column does not exist. */
  readonly predicted: Cell | undefined;
}

/** The decision and its explanation. */
export interface Verdict {
  /** `undecided` only when the column-map search ran out of budget. */
  readonly match: true | false | 'undecided';
  /** The policy the verdict was decided under. */
  readonly policy: ComparisonPolicy;
  /** Gold column i ↔ predicted column `columnMap[i]` when a match was found; otherwise `null`. */
  readonly columnMap: readonly number[] | null;
  /** Gold rows with no predicted counterpart (under the match map or a best-effort map). */
  readonly missingRows: RowSample;
  /** Predicted rows with no gold counterpart. */
  readonly extraRows: RowSample;
  readonly firstDifference: CellDifference | null;
  readonly flags: readonly VerdictFlag[];
  /** One line, e.g. `2 missing rows, 1 extra row` or `row order differs at row 3`. */
  readonly reason: string;
  /** Work spent in the column-map search, in cell visits. */
  readonly columnSearchWork: number;
}

/**
 * How a reason names the two results compared: by default the gold and the prediction
 * (`gold [4] vs predicted [9]`, `prediction has 3 rows, gold has 1`); two golds of one item, or a
 * gold and a mutant of it, are named for what they are (`gold 0 [4] vs gold 1 [9]`).
 */
export interface ResultSides {
  readonly gold: string;
  readonly predicted: string;
}

/** Optional facts about the gold that the comparison uses. */
export interface CompareContext {
  /** Order facts (from `resolveGoldOrdering`); wins over `goldSql`. */
  readonly ordering?: GoldOrdering;
  /** The gold SQL, to decide order by the policy's `rowOrder` when `ordering` is absent (strict order, no ties). */
  readonly goldSql?: string;
  /** Names of the two results in the reason (default: gold and predicted). */
  readonly sides?: ResultSides;
}
