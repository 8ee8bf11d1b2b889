/**
 * The row diff behind a non-matching verdict: which gold rows have no predicted counterpart, which
 * predicted rows are extra, and the first cell that differs.
 */
import type { Cell, Row } from '../engine/engine.js';
import { cellKey, cellsEqual } from './cell-key.js';
import type { ComparisonPolicy } from './policy.js';
import type { CellDifference, RowSample, Verdict } from './verdict.js';

/**
 * Missing / extra rows and the first differing cell under `map` (gold column j ↔ predicted column
 * `map[j]`; −1 entries never match). Rows are multisets keyed by exact cell keys; with a float
 * tolerance, leftovers that agree within it are paired greedily (enough for reporting: the verdict
 * itself uses a maximum matching). When `ordered` and the multisets agree, the first differing
 * position is reported.
 */
export function diffRows(
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
