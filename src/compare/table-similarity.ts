/**
 * Partial-credit similarity between a predicted and a gold result table.
 *
 * ## Table similarity (*Redefining text-to-SQL metrics*, "Table similarity"; formula defined here)
 * The paper's formula did not survive in our copy; from its description (for each pair of
 * columns, the edit distance needed to turn one column into the other, normalized by the larger
 * row count; aggregated over columns; one minus the result, normalized by the larger column
 * count) we define, for gold columns G_1…G_m, predicted columns P_1…P_n, row counts r_G and r_P:
 *
 *     d(P_i, G_j) = lev(P_i, G_j) / max(r_P, r_G)                    (0 when both are empty)
 *     TS          = (1 / max(n, m)) · Σ_j  max_i (1 − d(P_i, G_j))
 *
 * where `lev` is the Levenshtein distance between the two columns read as sequences of cells
 * (insert, delete and replace one cell each cost 1; cells are equal when their exact keys are,
 * see ./cell-key.ts: 175 = 175.0, '175' ≠ 175, NULL ≠ 0 ≠ ''). Each gold column takes its
 * best-matching predicted column (a predicted column may serve several gold columns), the
 * per-column similarities are summed, and dividing by the larger column count penalizes both
 * missing and extra columns. TS ∈ [0, 1]. TS = 1 when every gold column equals some predicted
 * column as a sequence and the prediction has no more columns than the gold (so equal tables,
 * up to column order, score 1); an extra predicted column costs 1 / max(n, m). Both tables
 * without columns: TS = 1; exactly one without columns: TS = 0; both without rows: TS = 1.
 *
 * Row order: `as-returned` (the paper's reading) compares columns in the order the rows came;
 * `sorted` sorts each column's cells by key first, so row order does not count (use it when the
 * gold has no ORDER BY and the order is arbitrary).
 *
 * ## Scalable method
 * Exact Levenshtein costs r_P·r_G cell comparisons per column pair (the paper reports hours on
 * large tables). When n·m·r_P·r_G exceeds `maxExactCellPairs` (default 2·10^7), every column pair
 * uses the **bag distance** instead (Bartolini, Ciaccia & Patella, "String matching with metric
 * trees using an approximate distance", SPIRE 2002):
 *
 *     bag(P, G) = max(|P|, |G|) − |P ∩ G|     (multiset intersection of the cells)
 *
 * a lower bound of the Levenshtein distance computed in O(|P| + |G|) with hash counts, so the
 * result (`method: 'bag'`) is an upper bound of the exact TS and ignores row order; it equals the
 * exact value for equal columns and for columns that differ only by cells appended or removed at
 * one end, and is lower than the exact distance for reordered cells (`[1, 2]` vs `[2, 1]`: bag 0,
 * Levenshtein 2). In exact mode a shared prefix and suffix are trimmed first (exact, and linear
 * for near-identical columns). For 10^5 cells on each side the whole computation takes well under
 * a second (`npm run bench`, bench/similarity.bench.ts).
 *
 * ## Row precision / recall / F1
 * Rows as a multiset under a column map (gold column j ↔ predicted column map[j]): a predicted
 * row matches a gold row when every mapped cell has the same key; P = matched / predicted rows,
 * R = matched / gold rows, F1 = 2PR / (P + R); both empty → 1.
 */
import { CellInterner, internColumns, pairColumnsByOverlap, sharedCount, sortedCopy, type ResultTable } from './column-overlap.js';

export { overlapColumnMap, type ResultTable } from './column-overlap.js';

/** Options of {@link tableSimilarity}. */
export interface TableSimilarityOptions {
  /** `as-returned` (default) or `sorted` (see module doc). */
  readonly rowOrder?: 'as-returned' | 'sorted';
  /** Above this many cell comparisons (n·m·r_P·r_G) the bag distance is used. Default 2·10^7. */
  readonly maxExactCellPairs?: number;
}

/** Result of {@link tableSimilarity}. */
export interface TableSimilarity {
  /** TS in [0, 1]. */
  readonly score: number;
  /** `exact` (Levenshtein) or `bag` (bag distance, an upper bound of the exact score). */
  readonly method: 'exact' | 'bag';
  /** For each gold column, the predicted column that matched it best (−1 when there is none). */
  readonly bestPredictedColumn: readonly number[];
  /** For each gold column, its best similarity 1 − d. */
  readonly columnScores: readonly number[];
}

/** Default cap on exact cell comparisons (n·m·r_P·r_G). */
export const DEFAULT_MAX_EXACT_CELL_PAIRS = 20_000_000;

/**
 * Column-wise table similarity TS (see module doc for the definition).
 *
 * @param gold - the gold table (rows by position).
 * @param predicted - the predicted table.
 * @throws RangeError when `maxExactCellPairs` is not a non-negative number, TypeError for an unknown `rowOrder`.
 * @example
 * tableSimilarity({ columnCount: 1, rows: [[1], [2]] }, { columnCount: 1, rows: [[1], [3]] }).score // 0.5
 */
export function tableSimilarity(gold: ResultTable, predicted: ResultTable, options: TableSimilarityOptions = {}): TableSimilarity {
  const { rowOrder, maxExact } = readTableOptions(options);
  return tableSimilarityOf(internTables(gold, predicted), rowOrder, maxExact);
}

function readTableOptions(options: TableSimilarityOptions): { rowOrder: 'as-returned' | 'sorted'; maxExact: number } {
  const rowOrder = options.rowOrder ?? 'as-returned';
  const maxExact = options.maxExactCellPairs ?? DEFAULT_MAX_EXACT_CELL_PAIRS;
  if (rowOrder !== 'as-returned' && rowOrder !== 'sorted') {
    throw new TypeError(`rowOrder must be 'as-returned' or 'sorted'; received ${JSON.stringify(rowOrder)}`);
  }
  if (typeof maxExact !== 'number' || !(maxExact >= 0)) {
    throw new RangeError(`maxExactCellPairs must be a non-negative number of cell comparisons; received ${String(maxExact)}`);
  }
  return { rowOrder, maxExact };
}

/** Both tables with every cell interned once; sorted column copies are made on first use. */
interface InternedTables {
  readonly gold: readonly Int32Array[];
  readonly predicted: readonly Int32Array[];
  readonly goldRows: number;
  readonly predictedRows: number;
  sortedGold(): readonly Int32Array[];
  sortedPredicted(): readonly Int32Array[];
}

function internTables(gold: ResultTable, predicted: ResultTable): InternedTables {
  const interner = new CellInterner();
  const g = internColumns(gold, interner);
  const p = internColumns(predicted, interner);
  let sg: Int32Array[] | undefined;
  let sp: Int32Array[] | undefined;
  return {
    gold: g,
    predicted: p,
    goldRows: gold.rows.length,
    predictedRows: predicted.rows.length,
    sortedGold: () => (sg ??= g.map(sortedCopy)),
    sortedPredicted: () => (sp ??= p.map(sortedCopy)),
  };
}

function tableSimilarityOf(tables: InternedTables, rowOrder: 'as-returned' | 'sorted', maxExact: number): TableSimilarity {
  const m = tables.gold.length;
  const n = tables.predicted.length;
  if (m === 0 || n === 0) {
    return { score: m === n ? 1 : 0, method: 'exact', bestPredictedColumn: Array(m).fill(-1), columnScores: Array(m).fill(0) };
  }
  const rg = tables.goldRows;
  const rp = tables.predictedRows;
  const method: 'exact' | 'bag' = n * m * rp * rg <= maxExact ? 'exact' : 'bag';
  // the bag distance needs sorted columns; so does exact Levenshtein under rowOrder 'sorted'
  const useSorted = method === 'bag' || rowOrder === 'sorted';
  const goldColumns = useSorted ? tables.sortedGold() : tables.gold;
  const predColumns = useSorted ? tables.sortedPredicted() : tables.predicted;
  const denominator = Math.max(rp, rg);
  const bestPredictedColumn: number[] = [];
  const columnScores: number[] = [];
  for (let j = 0; j < m; j += 1) {
    const g = goldColumns[j]!;
    let best = -1;
    let bestScore = -1;
    for (let i = 0; i < n; i += 1) {
      const p = predColumns[i]!;
      const distance = denominator === 0 ? 0 : method === 'exact' ? levenshtein(p, g) : bagDistance(p, g);
      const similarity = denominator === 0 ? 1 : 1 - distance / denominator;
      if (similarity > bestScore) {
        bestScore = similarity;
        best = i;
      }
    }
    bestPredictedColumn.push(best);
    columnScores.push(bestScore);
  }
  const score = columnScores.reduce((sum, x) => sum + x, 0) / Math.max(n, m);
  return { score, method, bestPredictedColumn, columnScores };
}

/** Bag distance max(|a|, |b|) − |a ∩ b| of two sorted id arrays. */
function bagDistance(a: Int32Array, b: Int32Array): number {
  return Math.max(a.length, b.length) - sharedCount(a, b);
}

/**
 * Levenshtein distance between two integer sequences (unit costs), after trimming their common
 * prefix and suffix; two-row dynamic programme, O(|a|·|b|) time, O(min) memory.
 */
export function levenshtein(a: Int32Array, b: Int32Array): number {
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a[start] === b[start]) start += 1;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  let x = a.subarray(start, endA);
  let y = b.subarray(start, endB);
  if (x.length < y.length) [x, y] = [y, x];
  if (y.length === 0) return x.length;
  let previous = new Int32Array(y.length + 1);
  let current = new Int32Array(y.length + 1);
  for (let j = 0; j <= y.length; j += 1) previous[j] = j;
  for (let i = 1; i <= x.length; i += 1) {
    current[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j += 1) {
      const replace = previous[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const remove = previous[j]! + 1;
      const insert = current[j - 1]! + 1;
      current[j] = replace < remove ? (replace < insert ? replace : insert) : remove < insert ? remove : insert;
    }
    [previous, current] = [current, previous];
  }
  return previous[y.length]!;
}

/** Result of {@link rowSimilarity}. */
export interface RowSimilarity {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  /** Rows matched (multiset intersection size under the map). */
  readonly matchedRows: number;
  readonly goldRows: number;
  readonly predictedRows: number;
  /** The map used: gold column j ↔ predicted column map[j] (−1: no counterpart, never matches). */
  readonly columnMap: readonly number[];
}

/**
 * Row precision / recall / F1 on the multisets of rows under a column map (see module doc).
 *
 * @param columnMap - gold column j ↔ predicted column `columnMap[j]`; by default the
 *   injective map that pairs columns by the largest cell-multiset overlap (greedy, ties to the
 *   lower index), which is the identity for results with the same columns in the same order.
 */
export function rowSimilarity(gold: ResultTable, predicted: ResultTable, columnMap?: readonly number[]): RowSimilarity {
  return rowSimilarityOf(internTables(gold, predicted), columnMap);
}

function rowSimilarityOf(tables: InternedTables, columnMap: readonly number[] | undefined): RowSimilarity {
  const map = columnMap ?? pairColumnsByOverlap(tables.sortedGold(), tables.sortedPredicted());
  if (map.length !== tables.gold.length) {
    throw new RangeError(`columnMap must have one entry per gold column (${tables.gold.length}); received ${map.length}`);
  }
  const goldRows = tables.goldRows;
  const predictedRows = tables.predictedRows;
  if (goldRows === 0 && predictedRows === 0) {
    return { precision: 1, recall: 1, f1: 1, matchedRows: 0, goldRows, predictedRows, columnMap: map };
  }
  const usable = map.every((p) => p >= 0 && p < tables.predicted.length);
  let matchedRows = 0;
  if (usable) {
    const keys = new Map<string, number>();
    const goldRowIds = rowIds(tables.gold, goldRows, keys);
    const predRowIds = rowIds(map.map((p) => tables.predicted[p]!), predictedRows, keys);
    let maxId = keys.size;
    if (tables.gold.length === 1) for (const id of goldRowIds) if (id > maxId) maxId = id;
    if (tables.gold.length === 1) for (const id of predRowIds) if (id > maxId) maxId = id;
    const counts = new Int32Array(maxId + 1);
    for (const id of goldRowIds) counts[id]! += 1;
    for (const id of predRowIds) {
      if (counts[id]! > 0) {
        matchedRows += 1;
        counts[id]! -= 1;
      }
    }
  }
  const precision = predictedRows === 0 ? 0 : matchedRows / predictedRows;
  const recall = goldRows === 0 ? 0 : matchedRows / goldRows;
  const f1 = matchedRows === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, matchedRows, goldRows, predictedRows, columnMap: map };
}

/** Both partial-credit measures with one interning pass (see {@link tableSimilarity}, {@link rowSimilarity}). */
export function compareTables(
  gold: ResultTable,
  predicted: ResultTable,
  options: TableSimilarityOptions & { readonly columnMap?: readonly number[] } = {},
): { readonly table: TableSimilarity; readonly rows: RowSimilarity } {
  const { rowOrder, maxExact } = readTableOptions(options);
  const tables = internTables(gold, predicted);
  return { table: tableSimilarityOf(tables, rowOrder, maxExact), rows: rowSimilarityOf(tables, options.columnMap) };
}

/**
 * Interns rows given as columns of cell ids: equal rows get equal ids. A row's key is its cell ids
 * packed two UTF-16 code units each (exact for ids below 2^32); `keys` is shared between tables
 * that must agree on ids.
 */
function rowIds(columns: readonly Int32Array[], rowCount: number, keys: Map<string, number>): Int32Array {
  if (columns.length === 1) return columns[0]!; // a one-cell row is its cell (ids agree across tables)
  const ids = new Int32Array(rowCount);
  const units = new Array<number>(2 * columns.length);
  for (let r = 0; r < rowCount; r += 1) {
    for (let c = 0; c < columns.length; c += 1) {
      const id = columns[c]![r]!;
      units[2 * c] = id >>> 16;
      units[2 * c + 1] = id & 0xffff;
    }
    const key = String.fromCharCode(...units);
    let id = keys.get(key);
    if (id === undefined) {
      id = keys.size + 1;
      keys.set(key, id);
    }
    ids[r] = id;
  }
  return ids;
}
