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
import type { Cell, QueryResult, Row } from '../engine/engine.js';
import { coerceNumericText, cellKey, cellsEqual } from './cell-key.js';
import { findColumnMap } from './column-map.js';
import { detectOuterOrderBy, textHasOrderBy, type GoldOrdering, type TieSegment } from './gold-ordering.js';
import type { ComparisonPolicy } from './policy.js';
import type { IndexedSegment } from './row-matching.js';

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
  /** 0-based row position in the predicted result. */
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

/** Optional facts about the gold that the comparison uses. */
export interface CompareContext {
  /** Order facts (from `resolveGoldOrdering`); wins over `goldSql`. */
  readonly ordering?: GoldOrdering;
  /** The gold SQL, to decide order by the policy's `rowOrder` when `ordering` is absent (strict order, no ties). */
  readonly goldSql?: string;
}

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
    return finish({ ...base, match: true, columnMap: identity(Math.min(ng, np)), missingRows: empty, extraRows: empty, firstDifference: null, reason: 'both results are empty' }, flags);
  }
  // Column counts.
  if (!columnsFit) {
    const reason =
      np < ng
        ? `prediction has ${np} ${plural(np, 'column')}, gold has ${ng}`
        : `prediction has ${np - ng} extra ${plural(np - ng, 'column')} (${np} vs ${ng}; allowExtraColumns is off)`;
    return finish({ ...base, match: false, columnMap: null, ...diff(goldRows, predRows, overlapMap(goldRows, predRows, ng, np), policy, false), reason }, flags);
  }
  if (np > ng) flags.add('extra_columns_allowed');

  // Segments over positions.
  const { table, segments } = indexSegments(goldRows, ordering);
  const sizeOk = goldRows.length === predRows.length;
  if (!sizeOk) {
    const map = policy.columnOrder === 'significant' ? identity(ng) : overlapMap(goldRows, predRows, ng, np);
    const d = diff(goldRows, predRows, map, policy, false);
    return finish({ ...base, match: false, columnMap: null, ...d, reason: `${rowCountReason(goldRows.length, predRows.length)}; ${countsReason(d)}` }, flags);
  }

  const outcome = findColumnMap(mapInput(table, predRows, ng, np, segments, policy, gold, predicted));
  const work = outcome.workUsed;
  if (outcome.kind === 'found') {
    if (outcome.map.some((p, g) => p !== g)) flags.add('columns_reordered');
    return finish({ ...base, columnSearchWork: work, match: true, columnMap: outcome.map, missingRows: empty, extraRows: empty, firstDifference: null, reason: matchReason(outcome.map, ordering.ordered) }, flags);
  }
  // The diff uses the value-overlap map (candidate lists are empty when a column has no exact counterpart).
  const diffMap = policy.columnOrder === 'significant' ? identity(ng) : overlapMap(goldRows, predRows, ng, np);
  const d = diff(goldRows, predRows, diffMap, policy, ordering.ordered);
  if (outcome.kind === 'undecided') {
    flags.add('column_search_budget');
    return finish({ ...base, columnSearchWork: work, match: 'undecided', columnMap: null, ...d, reason: `column-map search stopped after ${work} cell visits (budget ${policy.columnSearchBudget})` }, flags);
  }
  let reason = countsReason(d);
  if (d.missingRows.count === 0 && d.extraRows.count === 0) {
    reason = ordering.ordered
      ? `same rows, but row order differs${d.firstDifference ? ` at row ${d.firstDifference.goldRow}` : ''}`
      : 'no single column map makes the rows match';
  }
  return finish({ ...base, columnSearchWork: work, match: false, columnMap: null, ...d, reason }, flags);
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

/** Missing / extra rows and the first differing cell under `map` (−1 entries never match). */
function diff(
  goldRows: readonly Row[],
  predRows: readonly Row[],
  map: readonly number[],
  policy: ComparisonPolicy,
  ordered: boolean,
): Pick<Verdict, 'missingRows' | 'extraRows' | 'firstDifference'> {
  const project = (row: Row): Cell[] => map.map((p) => (p >= 0 ? row[p]! : MISSING_CELL));
  const projected = predRows.map(project);
  const goldKey = (row: Row): string => row.slice(0, map.length).map(cellKey).join('\u0001');
  const predKey = (row: readonly Cell[]): string =>
    row.map((cell) => ((cell as unknown) === MISSING_CELL ? '\u0000missing' : cellKey(cell))).join('\u0001');
  const byKey = new Map<string, number[]>();
  goldRows.forEach((row, i) => {
    const key = goldKey(row);
    const list = byKey.get(key);
    if (list) list.push(i);
    else byKey.set(key, [i]);
  });
  const matchedGold = new Uint8Array(goldRows.length);
  const extra: number[] = [];
  projected.forEach((row, i) => {
    const list = byKey.get(predKey(row));
    const g = list?.shift();
    if (g === undefined) extra.push(i);
    else matchedGold[g] = 1;
  });
  let missing = goldRows.flatMap((_, i) => (matchedGold[i] ? [] : [i]));
  let extraLeft = extra;
  if (policy.floatTolerance.value > 0 && missing.length > 0 && extra.length > 0 && missing.length * extra.length <= 250_000) {
    // Pair leftovers that agree within tolerance.
    const pairs = pairTolerant(missing, extra, goldRows, projected, map.length, policy);
    missing = missing.filter((g) => !pairs.gold.has(g));
    extraLeft = extra.filter((p) => !pairs.pred.has(p));
  }
  const sample = (rows: readonly Row[], indices: readonly number[]): RowSample => ({
    count: indices.length,
    rows: indices.slice(0, policy.maxSampleRows).map((i) => rows[i]!),
  });
  let firstDifference: CellDifference | null = null;
  if (ordered && missing.length === 0 && extraLeft.length === 0) {
    for (let r = 0; r < goldRows.length && firstDifference === null; r += 1) {
      firstDifference = firstCell(goldRows[r]!, r, projected[r]!, r, map, policy);
    }
  } else if (missing.length > 0) {
    const g = missing[0]!;
    const p = extraLeft[0];
    firstDifference =
      p === undefined
        ? firstCell(goldRows[g]!, g, map.map(() => MISSING_CELL), -1, map, policy)
        : firstCell(goldRows[g]!, g, projected[p]!, p, map, policy);
  }
  return { missingRows: sample(goldRows, missing), extraRows: sample(predRows, extraLeft), firstDifference };
}

/** A sentinel cell that equals nothing (a gold column without a predicted counterpart). */
const MISSING_CELL = Symbol('missing') as unknown as Cell;

function firstCell(goldRow: Row, goldIndex: number, predRow: readonly Cell[], predIndex: number, map: readonly number[], policy: ComparisonPolicy): CellDifference | null {
  for (let c = 0; c < map.length; c += 1) {
    const predicted = predRow[c]!;
    const isMissing = (predicted as unknown) === MISSING_CELL;
    if (isMissing || !cellsEqual(goldRow[c]!, predicted, policy.floatTolerance)) {
      return {
        goldRow: goldIndex,
        predictedRow: predIndex,
        goldColumn: c,
        predictedColumn: isMissing ? -1 : map[c]!,
        gold: goldRow[c]!,
        predicted: isMissing ? undefined : predicted,
      };
    }
  }
  return null;
}

function pairTolerant(
  missing: readonly number[],
  extra: readonly number[],
  goldRows: readonly Row[],
  projected: readonly (readonly Cell[])[],
  width: number,
  policy: ComparisonPolicy,
): { gold: Set<number>; pred: Set<number> } {
  const edge = (g: number, p: number): boolean => {
    for (let c = 0; c < width; c += 1) {
      const cell = projected[p]![c]!;
      if ((cell as unknown) === MISSING_CELL || !cellsEqual(goldRows[g]![c]!, cell, policy.floatTolerance)) return false;
    }
    return true;
  };
  // Greedy pairing is enough for reporting (the verdict itself uses a maximum matching).
  const gold = new Set<number>();
  const pred = new Set<number>();
  for (const p of extra) {
    const g = missing.find((candidate) => !gold.has(candidate) && edge(candidate, p));
    if (g !== undefined) {
      gold.add(g);
      pred.add(p);
    }
  }
  return { gold, pred };
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

/**
 * A map for the diff when row or column counts differ: each gold column (in order) takes the unused
 * predicted column whose distinct values overlap its own most (ties: the lower position).
 */
function overlapMap(goldRows: readonly Row[], predRows: readonly Row[], ng: number, np: number): number[] {
  const values = (rows: readonly Row[], c: number): Set<string> => new Set(rows.map((row) => cellKey(row[c]!)));
  const predSets = Array.from({ length: np }, (_, p) => values(predRows, p));
  const used = new Set<number>();
  const map: number[] = [];
  for (let g = 0; g < ng; g += 1) {
    const goldSet = values(goldRows, g);
    let best = -1;
    let bestScore = -1;
    for (let p = 0; p < np; p += 1) {
      if (used.has(p)) continue;
      let score = 0;
      for (const key of predSets[p]!) if (goldSet.has(key)) score += 1;
      if (score > bestScore || (score === bestScore && p === g)) {
        best = p;
        bestScore = score;
      }
    }
    if (best >= 0) used.add(best);
    map.push(best);
  }
  return map;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function rowCountReason(goldCount: number, predCount: number): string {
  return `prediction has ${predCount} ${plural(predCount, 'row')}, gold has ${goldCount}`;
}

function countsReason(d: Pick<Verdict, 'missingRows' | 'extraRows'>): string {
  const parts: string[] = [];
  if (d.missingRows.count > 0) parts.push(`${d.missingRows.count} missing ${plural(d.missingRows.count, 'row')}`);
  if (d.extraRows.count > 0) parts.push(`${d.extraRows.count} extra ${plural(d.extraRows.count, 'row')}`);
  return parts.length > 0 ? parts.join(', ') : 'rows differ';
}

function matchReason(map: readonly number[], ordered: boolean): string {
  const reordered = map.some((p, g) => p !== g);
  return `results match${ordered ? ' in order' : ''}${reordered ? ` (columns mapped ${map.map((p, g) => `${g}→${p}`).join(', ')})` : ''}`;
}
