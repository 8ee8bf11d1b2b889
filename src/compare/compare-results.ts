/**
 * `compareResults`: decides whether a predicted result equals a gold result under a
 * {@link ComparisonPolicy}, and explains the decision.
 *
 * Order of decisions (each rule's source is in policy.ts):
 * 1. Cells are canonicalized (`coerceNumericStrings`); under `duplicates: 'set'` rows are
 *    deduplicated on both sides.
 * 2. Empty vs empty: a match — under `emptyMatchesEmpty: 'same-columns'` only when the column
 *    counts agree as they must for other results. Every verdict on an empty gold carries the
 *    `empty_gold` flag, match or not.
 * 3. Column counts: fewer predicted columns than gold fail; more fail unless `allowExtraColumns`.
 * 4. Row counts must agree (positions are compared segment by segment).
 * 5. Row order: from `context.ordering` (tie segments), else from `context.goldSql` under the
 *    policy's `rowOrder`, else unordered.
 * 6. One column map, searched under the budget ({@link findColumnMap}); `undecided` when the budget
 *    runs out.
 */
import type { QueryResult, Row } from '../engine/engine.js';
import { coerceNumericText, cellKey } from './cell-key.js';
import { findColumnMap } from './column-map.js';
import { overlapColumnMap } from './column-overlap.js';
import { detectOuterOrderBy, textHasOrderBy, type GoldOrdering, type TieSegment } from './gold-ordering.js';
import type { ComparisonPolicy } from './policy.js';
import { diffRows } from './row-diff.js';
import type { IndexedSegment } from './row-matching.js';
import type { CompareContext, RowSample, Verdict, VerdictFlag } from './verdict.js';
import { GOLD_VS_PREDICTED, columnCountReason, emptyMatchReason, matchReason, mismatchReason, rowCountReason, countsReason, undecidedReason } from './verdict-reasons.js';

export type { CellDifference, CompareContext, ResultSides, RowSample, Verdict, VerdictFlag } from './verdict.js';

/**
 * Compares a predicted result with a gold result.
 *
 * @param gold - the gold result (rows by position, names apart).
 * @param predicted - the predicted result.
 * @param policy - a resolved policy (see `resolvePolicy`).
 * @param context - ordering facts; without them, results are compared as unordered unless
 *   `goldSql` says otherwise.
 * @returns a {@link Verdict}; never throws for data, only for a missing policy (TypeError).
 * @example
 * compareResults(gold([[1, 'a']]), pred([['a', 1.0]]), resolvePolicy('default')).match // true (columns swapped, 1 = 1.0)
 */
export function compareResults(
  gold: QueryResult,
  predicted: QueryResult,
  policy: ComparisonPolicy,
  context: CompareContext = {},
): Verdict {
  if (policy === null || typeof policy !== 'object' || policy.floatTolerance === undefined) {
    throw new TypeError('policy must be a resolved ComparisonPolicy (use resolvePolicy)');
  }
  const flags = new Set<VerdictFlag>();
  const canon = (rows: readonly Row[]): Row[] =>
    policy.coerceNumericStrings ? rows.map((row) => row.map(coerceNumericText)) : rows.map((row) => row);
  let goldRows = canon(gold.rows);
  let predRows = canon(predicted.rows);
  if (policy.duplicates === 'set') {
    goldRows = dedupe(goldRows);
    predRows = dedupe(predRows);
    flags.add('deduplicated');
  }
  const ng = gold.columns.length;
  const np = predicted.columns.length;
  const base = { policy, columnSearchWork: 0 } as const;
  const empty: RowSample = { count: 0, rows: [] };
  const sides = context.sides ?? GOLD_VS_PREDICTED;

  // Order and segments.
  const ordering = resolveOrdering(policy, context);
  if (ordering.ordered) flags.add('ordered');
  if (ordering.source === 'token-scan') flags.add('order_by_token_scan');
  if (ordering.nondeterministic) flags.add('nondeterministic_gold');
  if (ordering.ordered && ordering.segments === undefined && policy.tieAware) flags.add('ties_unknown');

  const columnsFit = np === ng || (np > ng && policy.allowExtraColumns);
  if (goldRows.length === 0) flags.add('empty_gold');
  // Empty vs empty.
  if (goldRows.length === 0 && predRows.length === 0 && (policy.emptyMatchesEmpty === 'always' || columnsFit)) {
    return finish({ ...base, match: true, columnMap: identity(Math.min(ng, np)), missingRows: empty, extraRows: empty, firstDifference: null, reason: emptyMatchReason() }, flags);
  }
  // Column counts.
  if (!columnsFit) {
    const d = diffRows(goldRows, predRows, overlapMap(goldRows, predRows, ng, np), policy, false);
    return finish({ ...base, match: false, columnMap: null, ...d, reason: columnCountReason(np, ng, sides) }, flags);
  }
  if (np > ng) flags.add('extra_columns_allowed');

  // Segments over positions.
  const { table, segments } = indexSegments(goldRows, ordering);
  const sizeOk = goldRows.length === predRows.length;
  if (!sizeOk) {
    const map = policy.columnOrder === 'significant' ? identity(ng) : overlapMap(goldRows, predRows, ng, np);
    const d = diffRows(goldRows, predRows, map, policy, false);
    return finish({ ...base, match: false, columnMap: null, ...d, reason: `${rowCountReason(goldRows.length, predRows.length, sides)}; ${countsReason(d, sides)}` }, flags);
  }

  const outcome = findColumnMap(mapInput(table, predRows, ng, np, segments, policy, gold, predicted));
  const work = outcome.workUsed;
  if (outcome.kind === 'found') {
    if (outcome.map.some((p, g) => p !== g)) flags.add('columns_reordered');
    return finish({ ...base, columnSearchWork: work, match: true, columnMap: outcome.map, missingRows: empty, extraRows: empty, firstDifference: null, reason: matchReason(outcome.map, ordering.ordered) }, flags);
  }
  // The diff uses the value-overlap map (candidate lists are empty when a column has no exact counterpart).
  const diffMap = policy.columnOrder === 'significant' ? identity(ng) : overlapMap(goldRows, predRows, ng, np);
  const d = diffRows(goldRows, predRows, diffMap, policy, ordering.ordered);
  if (outcome.kind === 'undecided') {
    flags.add('column_search_budget');
    return finish({ ...base, columnSearchWork: work, match: 'undecided', columnMap: null, ...d, reason: undecidedReason(work, policy.columnSearchBudget) }, flags);
  }
  return finish({ ...base, columnSearchWork: work, match: false, columnMap: null, ...d, reason: mismatchReason(d, ordering.ordered, sides) }, flags);
}

function finish(verdict: Omit<Verdict, 'flags'>, flags: Set<VerdictFlag>): Verdict {
  return Object.freeze({ ...verdict, flags: Object.freeze([...flags]) });
}

function resolveOrdering(policy: ComparisonPolicy, context: CompareContext): GoldOrdering {
  if (policy.rowOrder === 'ignore') return { ordered: false, source: 'policy' };
  if (context.ordering !== undefined) {
    if (!policy.tieAware && context.ordering.segments !== undefined) {
      const { segments: _segments, nondeterministic: _n, ...rest } = context.ordering;
      return rest;
    }
    return context.ordering;
  }
  if (context.goldSql !== undefined) {
    if (policy.rowOrder === 'gold-text-order-by') return { ordered: textHasOrderBy(context.goldSql), source: 'text' };
    return detectOuterOrderBy(context.goldSql);
  }
  return { ordered: false, source: 'policy' };
}

/** Turns public tie segments (or the ordering mode) into indexed segments over one gold table. */
function indexSegments(goldRows: readonly Row[], ordering: GoldOrdering): { table: Row[]; segments: IndexedSegment[] } {
  const n = goldRows.length;
  if (!ordering.ordered) return { table: [...goldRows], segments: [{ start: 0, end: n, pool: identity(n) }] };
  const ties: readonly TieSegment[] | undefined = ordering.segments;
  if (ties === undefined || !coversPositions(ties, n)) {
    return { table: [...goldRows], segments: goldRows.map((_, i) => ({ start: i, end: i + 1, pool: [i] })) };
  }
  const table: Row[] = [];
  const segments: IndexedSegment[] = [];
  for (const tie of ties) {
    if (tie.pool.length === tie.end - tie.start) {
      // Not cut: the pool is exactly the gold rows at these positions.
      segments.push({ start: tie.start, end: tie.end, pool: rangeFrom(table.length, tie.end - tie.start) });
      for (let i = tie.start; i < tie.end; i += 1) table.push(goldRows[i]!);
    } else {
      segments.push({ start: tie.start, end: tie.end, pool: rangeFrom(table.length, tie.pool.length) });
      table.push(...tie.pool);
    }
  }
  return { table, segments };
}

function coversPositions(ties: readonly TieSegment[], n: number): boolean {
  let next = 0;
  for (const tie of ties) {
    if (tie.start !== next || tie.end <= tie.start || tie.pool.length < tie.end - tie.start) return false;
    next = tie.end;
  }
  return next === n;
}

function mapInput(
  table: readonly Row[],
  predRows: readonly Row[],
  ng: number,
  np: number,
  segments: readonly IndexedSegment[],
  policy: ComparisonPolicy,
  gold: QueryResult,
  predicted: QueryResult,
) {
  return {
    goldTable: table,
    predRows,
    goldColumnCount: ng,
    predColumnCount: np,
    segments,
    tolerance: policy.floatTolerance,
    goldNames: gold.columns,
    predNames: predicted.columns,
    matchColumnNames: policy.matchColumnNames,
    columnOrder: policy.columnOrder,
    budget: policy.columnSearchBudget,
  } as const;
}

function dedupe(rows: readonly Row[]): Row[] {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const row of rows) {
    const key = row.map(cellKey).join('\u0001');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  return out;
}

function identity(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function rangeFrom(start: number, length: number): number[] {
  return Array.from({ length }, (_, i) => start + i);
}

/** The one overlap map (column-overlap.ts) over this comparison's (canonicalized) rows. */
function overlapMap(goldRows: readonly Row[], predRows: readonly Row[], ng: number, np: number): number[] {
  return overlapColumnMap({ columnCount: ng, rows: goldRows }, { columnCount: np, rows: predRows });
}
