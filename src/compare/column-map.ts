/**
 * The column-map search: find ONE injective map from gold columns to predicted columns under which
 * the rows match (segment by segment), never by sorting values inside each row (that would accept
 * values moved between columns).
 *
 * Search:
 * 1. Candidates: gold column g may map to predicted column p only when the single-column
 *    projections already agree segment by segment (a type/value-signature filter that is exact for
 *    integers, text, NULL and blobs; fractional numbers are treated as one wildcard value here when
 *    a tolerance is set) and, under `matchColumnNames`, the names agree.
 * 2. Backtracking, most constrained gold column first; after each assignment the projection on the
 *    columns assigned so far must still agree (prunes maps whose columns agree one by one but whose
 *    rows do not).
 * 3. Symmetry: predicted columns identical in every row are interchangeable, so only the first
 *    unused member of each such class is tried.
 * 4. A leaf is checked with the float tolerance (exact pairs first, then bipartite matching).
 * The backtracking's work is counted in cell visits; past the budget the search stops with
 * `undecided`. The candidate filter (gold column classes × predicted column classes × rows) is
 * polynomial and always runs to the end, so it is not charged.
 *
 * Spider's `result_eq` tries column permutations too (constrained by sampled rows; exhaustive for
 * up to three columns) and so decides the same question: does some permutation make the bags equal.
 */
import type { Row } from '../engine/engine.js';
import type { FloatTolerance } from './policy.js';
import { cellKey, isFractional, isNumericCell } from './cell-key.js';
import {
  BudgetExceeded,
  WorkBudget,
  segmentsAgree,
  segmentsAgreeTolerant,
  type IndexedSegment,
} from './row-matching.js';

/** Inputs of {@link findColumnMap}. */
export interface ColumnMapInput {
  /** Every gold row any segment's pool refers to; rows by position. */
  readonly goldTable: readonly Row[];
  /** The predicted rows; rows by position. */
  readonly predRows: readonly Row[];
  readonly goldColumnCount: number;
  readonly predColumnCount: number;
  readonly segments: readonly IndexedSegment[];
  readonly tolerance: FloatTolerance;
  /** Column names; used only with `matchColumnNames`. */
  readonly goldNames: readonly string[];
  readonly predNames: readonly string[];
  readonly matchColumnNames: boolean;
  /** `significant`: only the identity map (gold i → predicted i) is tried. */
  readonly columnOrder: 'ignore' | 'significant';
  /** Budget in cell visits. */
  readonly budget: number;
}

/** Outcome of {@link findColumnMap}. */
export type ColumnMapOutcome =
  | { readonly kind: 'found'; readonly map: readonly number[]; readonly workUsed: number }
  /** No map works; `bestEffort` pairs each gold column with a plausible predicted column (−1 = none) for the diff. */
  | { readonly kind: 'none'; readonly bestEffort: readonly number[]; readonly workUsed: number }
  | { readonly kind: 'undecided'; readonly bestEffort: readonly number[]; readonly workUsed: number };

/**
 * Finds a column map under which every segment agrees.
 * @returns `found` with the map (gold column i ↔ predicted column `map[i]`), `none`, or
 *   `undecided` when the budget ran out first.
 */
export function findColumnMap(input: ColumnMapInput): ColumnMapOutcome {
  const budget = new WorkBudget(input.budget);
  const ng = input.goldColumnCount;
  const np = input.predColumnCount;
  const loose = input.tolerance.value > 0;
  const tolerant = loose && (hasFractionalCells(input.goldTable) || hasFractionalCells(input.predRows));

  // Interned cell ids per column (shared between gold and prediction).
  const interner = new Map<string, number>();
  const intern = (key: string): number => {
    let id = interner.get(key);
    if (id === undefined) {
      id = interner.size;
      interner.set(key, id);
    }
    return id;
  };
  // Exact ids, and loose ids where every number is one wildcard (used for a pair of columns when
  // either holds a fractional number and a tolerance is set: tolerance may join 1 and 1.0000001).
  const looseKey = (cell: Row[number]): string => (isNumericCell(cell) ? '#' : cellKey(cell));
  const columnIds = (rows: readonly Row[], c: number, key: (cell: Row[number]) => string): Int32Array => {
    const ids = new Int32Array(rows.length);
    for (let r = 0; r < rows.length; r += 1) ids[r] = intern(key(rows[r]![c]!));
    return ids;
  };
  const fractionalColumn = (rows: readonly Row[], c: number): boolean => loose && rows.some((row) => isFractional(row[c]!));
  const goldFrac = Array.from({ length: ng }, (_, c) => fractionalColumn(input.goldTable, c));
  const predFrac = Array.from({ length: np }, (_, c) => fractionalColumn(input.predRows, c));
  const goldExact = Array.from({ length: ng }, (_, c) => columnIds(input.goldTable, c, cellKey));
  const predExact = Array.from({ length: np }, (_, c) => columnIds(input.predRows, c, cellKey));
  const goldLoose = Array.from({ length: ng }, (_, c) => (tolerant ? columnIds(input.goldTable, c, looseKey) : goldExact[c]!));
  const predLoose = Array.from({ length: np }, (_, c) => (tolerant ? columnIds(input.predRows, c, looseKey) : predExact[c]!));
  /** The id arrays to compare gold column g with predicted column p. */
  const pairColumns = (g: number, p: number): [Int32Array, Int32Array] =>
    goldFrac[g] || predFrac[p] ? [goldLoose[g]!, predLoose[p]!] : [goldExact[g]!, predExact[p]!];

  const names = (name: string | undefined): string => (name ?? '').trim().toLowerCase();
  const nameOk = (g: number, p: number): boolean => !input.matchColumnNames || names(input.goldNames[g]) === names(input.predNames[p]);

  const fullCheck = (map: readonly number[], goldIds: Int32Array, predIds: Int32Array): boolean => {
    if (!segmentsAgree(goldIds, predIds, input.segments, budget)) return false;
    if (!tolerant) return true;
    return segmentsAgreeTolerant(input.goldTable, input.predRows, map, input.segments, input.tolerance, budget);
  };

  const pairIds = new Map<string, number>();
  const combine = (prev: Int32Array | undefined, next: Int32Array): Int32Array => {
    if (prev === undefined) return next;
    const out = new Int32Array(next.length);
    for (let r = 0; r < next.length; r += 1) {
      const key = `${prev[r]},${next[r]}`;
      let id = pairIds.get(key);
      if (id === undefined) {
        id = pairIds.size;
        pairIds.set(key, id);
      }
      out[r] = id;
    }
    return out;
  };

  let candidates: number[][] = [];
  try {
    if (input.columnOrder === 'significant') {
      const map = Array.from({ length: ng }, (_, i) => i);
      if (ng > np || map.some((p, g) => !nameOk(g, p))) return { kind: 'none', bestEffort: map.map((p) => (p < np ? p : -1)), workUsed: budget.used };
      let goldIds: Int32Array | undefined;
      let predIds: Int32Array | undefined;
      for (let g = 0; g < ng; g += 1) {
        const [gc, pc] = pairColumns(g, g);
        goldIds = combine(goldIds, gc);
        predIds = combine(predIds, pc);
      }
      const ok = ng === 0 ? true : fullCheck(map, goldIds!, predIds!);
      return ok ? { kind: 'found', map, workUsed: budget.used } : { kind: 'none', bestEffort: map, workUsed: budget.used };
    }

    // 1. Candidates by single-column agreement (and names).
    // Identical columns share one check (classes of exact column vectors); this polynomial phase
    // (gold classes × predicted classes × rows) is not charged to the search budget.
    const unmetered = new WorkBudget(Number.POSITIVE_INFINITY);
    const goldClassOf = columnClasses(goldExact);
    const classOf = columnClasses(predExact);
    const agreeMemo = new Map<string, boolean>();
    candidates = Array.from({ length: ng }, (_, g) =>
      [...Array(np).keys()].filter((p) => {
        if (!nameOk(g, p)) return false;
        const key = `${goldClassOf[g]},${classOf[p]}`;
        let agree = agreeMemo.get(key);
        if (agree === undefined) {
          agree = segmentsAgree(...pairColumns(g, p), input.segments, unmetered);
          agreeMemo.set(key, agree);
        }
        return agree;
      }),
    );
    if (ng > np || candidates.some((list) => list.length === 0)) {
      return { kind: 'none', bestEffort: bestEffortMap(candidates, ng, np), workUsed: budget.used };
    }
    if (ng === 0) return { kind: 'found', map: [], workUsed: budget.used };

    // 3. Classes of identical predicted columns (exact keys).
    // 2. Backtracking, most constrained first.
    const order = [...Array(ng).keys()].sort((a, b) => candidates[a]!.length - candidates[b]!.length || a - b);
    const map = new Array<number>(ng).fill(-1);
    const used = new Uint8Array(np);
    const goldStack: Int32Array[] = [];
    const predStack: Int32Array[] = [];

    const search = (depth: number): boolean => {
      if (depth === ng) return tolerant ? fullCheck(map, goldStack[depth - 1]!, predStack[depth - 1]!) : true;
      const g = order[depth]!;
      const triedClasses = new Set<number>();
      for (const p of candidates[g]!) {
        if (used[p]) continue;
        const cls = classOf[p]!;
        if (triedClasses.has(cls)) continue;
        triedClasses.add(cls);
        const [gc, pc] = pairColumns(g, p);
        const goldIds = combine(goldStack[depth - 1], gc);
        const predIds = combine(predStack[depth - 1], pc);
        if (depth > 0 && !segmentsAgree(goldIds, predIds, input.segments, budget)) continue;
        map[g] = p;
        used[p] = 1;
        goldStack[depth] = goldIds;
        predStack[depth] = predIds;
        if (search(depth + 1)) return true;
        used[p] = 0;
        map[g] = -1;
      }
      return false;
    };
    if (search(0)) return { kind: 'found', map: [...map], workUsed: budget.used };
    return { kind: 'none', bestEffort: bestEffortMap(candidates, ng, np), workUsed: budget.used };
  } catch (error) {
    if (error instanceof BudgetExceeded) {
      return { kind: 'undecided', bestEffort: bestEffortMap(candidates, ng, np), workUsed: budget.used };
    }
    throw error;
  }
}

/** Class id per column: columns equal in every row (same exact ids) share a class. */
function columnClasses(columns: readonly Int32Array[]): number[] {
  const ids = new Map<string, number>();
  return columns.map((column) => {
    const key = column.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  });
}

/** A plausible map for the diff when no exact map exists: first unused candidate, else same position, else −1. */
function bestEffortMap(candidates: readonly (readonly number[])[], ng: number, np: number): number[] {
  const used = new Set<number>();
  const map: number[] = [];
  for (let g = 0; g < ng; g += 1) {
    const choice = (candidates[g] ?? []).find((p) => !used.has(p)) ?? (g < np && !used.has(g) ? g : [...Array(np).keys()].find((p) => !used.has(p)) ?? -1);
    if (choice >= 0) used.add(choice);
    map.push(choice);
  }
  return map;
}

function hasFractionalCells(rows: readonly Row[]): boolean {
  for (const row of rows) for (const cell of row) if (isFractional(cell)) return true;
  return false;
}
