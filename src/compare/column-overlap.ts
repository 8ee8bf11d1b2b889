/**
 * Which predicted column stands for which gold column when no exact column map exists: cells are
 * interned to dense ids (equal exact keys, ./cell-key.ts, get equal ids), and columns are paired by
 * the size of their shared cell multiset. One rule for every caller, so L4's diff and the
 * similarity diagnostic never pair columns differently.
 */
import type { Cell, Row } from '../engine/engine.js';
import { cellKey, doubleOfCell } from './cell-key.js';

/** A result table: rows by position (column names are not compared). */
export interface ResultTable {
  /** Number of columns (needed when there are no rows). */
  readonly columnCount: number;
  readonly rows: readonly Row[];
}

/**
 * Gives every distinct cell a dense integer id, so that equal cells (equal exact keys, see
 * ./cell-key.ts) get equal ids. Numbers and strings use their own maps (no key strings built);
 * bigints, blobs and integral numbers beyond 2^53 go through `cellKey`.
 */
export class CellInterner {
  private readonly numbers = new Map<number, number>();
  private readonly strings = new Map<string, number>();
  private readonly others = new Map<string, number>();
  private next = 1; // 0 is NULL

  /** Number of ids handed out so far (including NULL's 0). */
  get size(): number {
    return this.next;
  }

  id(cell: Cell): number {
    if (cell === null || cell === undefined) return 0;
    if (typeof cell === 'string') return this.lookup(this.strings, cell);
    const double = doubleOfCell(cell);
    if (double !== undefined) return this.lookup(this.numbers, double);
    return this.lookup(this.others, cellKey(cell));
  }

  private lookup<K>(map: Map<K, number>, key: K): number {
    let id = map.get(key);
    if (id === undefined) {
      id = this.next;
      this.next += 1;
      map.set(key, id);
    }
    return id;
  }
}

/** The table as one column of cell ids per column (ids from `interner`, shared between tables to compare). */
export function internColumns(table: ResultTable, interner: CellInterner): Int32Array[] {
  const columns: Int32Array[] = [];
  for (let c = 0; c < table.columnCount; c += 1) columns.push(new Int32Array(table.rows.length));
  const rows = table.rows;
  for (let r = 0; r < rows.length; r += 1) {
    const row = rows[r]!;
    for (let c = 0; c < table.columnCount; c += 1) columns[c]![r] = interner.id(row[c] as Cell);
  }
  return columns;
}

/** Sorted copy of a column (for multiset intersections by merging). */
export function sortedCopy(column: Int32Array): Int32Array {
  return Int32Array.from(column).sort();
}

/** Size of the multiset intersection of two sorted id arrays (merge, O(|a| + |b|)). */
export function sharedCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (x < y) {
      i += 1;
    } else {
      j += 1;
    }
  }
  return shared;
}


/**
 * The one overlap column map: an injective map gold column j → predicted column `map[j]` that
 * repeatedly pairs the (gold, predicted) columns with the largest shared cell count (cell
 * multisets, exact keys) among unpaired ones; ties: equal-position pairs first, then lower gold,
 * then lower predicted index. Gold columns left over map to −1. Used where no exact column map
 * exists: L4's row diff and reasons (compare-results.ts) and the row-similarity diagnostic.
 * @example overlapColumnMap({ columnCount: 2, rows: [[1, 'x'], [2, 'y']] }, { columnCount: 2, rows: [['y', 2], ['x', 1]] }) // [1, 0]
 */
export function overlapColumnMap(gold: ResultTable, predicted: ResultTable): number[] {
  const interner = new CellInterner();
  const g = internColumns(gold, interner).map(sortedCopy);
  const p = internColumns(predicted, interner).map(sortedCopy);
  return pairColumnsByOverlap(g, p);
}

/** {@link overlapColumnMap} on columns of cell ids that are already sorted. */
export function pairColumnsByOverlap(g: readonly Int32Array[], p: readonly Int32Array[]): number[] {
  const pairs: { j: number; i: number; shared: number }[] = [];
  for (let j = 0; j < g.length; j += 1) {
    for (let i = 0; i < p.length; i += 1) {
      pairs.push({ j, i, shared: sharedCount(g[j]!, p[i]!) });
    }
  }
  pairs.sort((a, b) => b.shared - a.shared || Number(a.i !== a.j) - Number(b.i !== b.j) || a.j - b.j || a.i - b.i);
  const map = Array<number>(g.length).fill(-1);
  const used = new Set<number>();
  for (const { j, i } of pairs) {
    if (map[j] !== -1 || used.has(i)) continue;
    map[j] = i;
    used.add(i);
  }
  return map;
}
