/**
 * Row matching inside segments: the primitive under both the column-map search and the final
 * verdict.
 *
 * A gold result is split into segments of consecutive positions. Within a segment, the predicted
 * rows at the same positions must form a sub-multiset of the segment's pool of acceptable gold
 * rows (equal sizes make it multiset equality):
 * - unordered comparison: one segment over all rows, pool = every gold row;
 * - strict order: one segment per position;
 * - tie-aware order: one segment per tie group; a group cut by LIMIT has a pool larger than its
 *   segment (any valid tie choice is accepted).
 */
import type { Row } from '../engine/engine.js';
import type { FloatTolerance } from './policy.js';
import { cellKey, cellsEqual } from './cell-key.js';

/** A run of result positions `[start, end)` and the gold rows acceptable there (indices into the gold table). */
export interface IndexedSegment {
  readonly start: number;
  readonly end: number;
  readonly pool: readonly number[];
}

/** Thrown inside the search when the work budget is spent; turned into an `undecided` verdict. */
export class BudgetExceeded extends Error {
  constructor() {
    super('column search budget exceeded');
    this.name = 'BudgetExceeded';
  }
}

/** Counts work in cell visits and throws {@link BudgetExceeded} past the limit. */
export class WorkBudget {
  used = 0;
  constructor(readonly limit: number) {}
  /** Adds `units` cell visits; throws when over the limit. */
  spend(units: number): void {
    this.used += units;
    if (this.used > this.limit) throw new BudgetExceeded();
  }
}

/**
 * True when, for every segment, the predicted ids at the segment's positions form a sub-multiset
 * of the pool's gold ids. Ids are interned projections of rows (equal ids = equal projections).
 */
export function segmentsAgree(
  goldIds: ArrayLike<number>,
  predIds: ArrayLike<number>,
  segments: readonly IndexedSegment[],
  budget: WorkBudget,
): boolean {
  budget.spend(predIds.length + goldIds.length);
  const counts = new Map<number, number>();
  for (const segment of segments) {
    if (segment.end - segment.start === 1 && segment.pool.length === 1) {
      if (goldIds[segment.pool[0]!] !== predIds[segment.start]) return false;
      continue;
    }
    counts.clear();
    for (const g of segment.pool) {
      const id = goldIds[g]!;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (let p = segment.start; p < segment.end; p += 1) {
      const id = predIds[p]!;
      const left = counts.get(id);
      if (left === undefined || left === 0) return false;
      counts.set(id, left - 1);
    }
  }
  return true;
}

/**
 * Full check of a candidate column map with float tolerance: rows are paired by exact key first,
 * then the remaining rows of each segment by a maximum bipartite matching on tolerant equality.
 *
 * @param map - gold column i ↔ predicted column `map[i]`.
 */
export function segmentsAgreeTolerant(
  goldTable: readonly Row[],
  predRows: readonly Row[],
  map: readonly number[],
  segments: readonly IndexedSegment[],
  tolerance: FloatTolerance,
  budget: WorkBudget,
): boolean {
  const goldKey = (row: Row): string => map.map((_, i) => cellKey(row[i]!)).join('\u0001');
  const predKey = (row: Row): string => map.map((p) => cellKey(row[p]!)).join('\u0001');
  for (const segment of segments) {
    budget.spend((segment.pool.length + segment.end - segment.start) * Math.max(1, map.length));
    const byKey = new Map<string, number[]>();
    for (const g of segment.pool) {
      const key = goldKey(goldTable[g]!);
      const list = byKey.get(key);
      if (list) list.push(g);
      else byKey.set(key, [g]);
    }
    const leftoverPred: number[] = [];
    for (let p = segment.start; p < segment.end; p += 1) {
      const list = byKey.get(predKey(predRows[p]!));
      if (list && list.length > 0) list.pop();
      else leftoverPred.push(p);
    }
    if (leftoverPred.length === 0) continue;
    if (tolerance.value === 0) return false;
    const leftoverGold = [...byKey.values()].flat();
    const equal = (g: number, p: number): boolean => {
      budget.spend(map.length);
      const goldRow = goldTable[g]!;
      const predRow = predRows[p]!;
      return map.every((pc, gc) => cellsEqual(goldRow[gc]!, predRow[pc]!, tolerance));
    };
    if (maximumMatching(leftoverPred, leftoverGold, equal) < leftoverPred.length) return false;
  }
  return true;
}

/** Size of a maximum matching between `left` and `right` (Kuhn's augmenting paths). */
export function maximumMatching(
  left: readonly number[],
  right: readonly number[],
  edge: (right: number, left: number) => boolean,
): number {
  const matchOfRight = new Array<number>(right.length).fill(-1);
  const adjacency = left.map((l) => right.flatMap((r, j) => (edge(r, l) ? [j] : [])));
  let size = 0;
  for (let i = 0; i < left.length; i += 1) {
    const seen = new Uint8Array(right.length);
    if (augment(i, adjacency, matchOfRight, seen)) size += 1;
  }
  return size;
}

function augment(i: number, adjacency: readonly number[][], matchOfRight: number[], seen: Uint8Array): boolean {
  for (const j of adjacency[i]!) {
    if (seen[j]) continue;
    seen[j] = 1;
    if (matchOfRight[j] === -1 || augment(matchOfRight[j]!, adjacency, matchOfRight, seen)) {
      matchOfRight[j] = i;
      return true;
    }
  }
  return false;
}
