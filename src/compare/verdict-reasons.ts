/**
 * The one-line reason of a {@link Verdict}, one function per cause, so that each cause has its own
 * sentence (a reason never stands for several causes).
 */
import type { Verdict } from './verdict.js';

/** `row` / `rows`. */
export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

export function rowCountReason(goldCount: number, predCount: number): string {
  return `prediction has ${predCount} ${plural(predCount, 'row')}, gold has ${goldCount}`;
}

export function countsReason(d: Pick<Verdict, 'missingRows' | 'extraRows'>): string {
  const parts: string[] = [];
  if (d.missingRows.count > 0) parts.push(`${d.missingRows.count} missing ${plural(d.missingRows.count, 'row')}`);
  if (d.extraRows.count > 0) parts.push(`${d.extraRows.count} extra ${plural(d.extraRows.count, 'row')}`);
  return parts.length > 0 ? parts.join(', ') : 'rows differ';
}

export function matchReason(map: readonly number[], ordered: boolean): string {
  const reordered = map.some((p, g) => p !== g);
  return `results match${ordered ? ' in order' : ''}${reordered ? ` (columns mapped ${map.map((p, g) => `${g}→${p}`).join(', ')})` : ''}`;
}

/** The column counts do not fit the policy: fewer predicted columns, or extra ones not allowed. */
export function columnCountReason(predictedColumns: number, goldColumns: number): string {
  const np = predictedColumns;
  const ng = goldColumns;
  return np < ng
    ? `prediction has ${np} ${plural(np, 'column')}, gold has ${ng}`
    : `prediction has ${np - ng} extra ${plural(np - ng, 'column')} (${np} vs ${ng}; allowExtraColumns is off)`;
}

/** The column-map search ran out of budget. */
export function undecidedReason(work: number, budget: number): string {
  return `column-map search stopped after ${work} cell visits (budget ${budget})`;
}

/** Same row count, no column map matched: what the row diff found. */
export function mismatchReason(d: Pick<Verdict, 'missingRows' | 'extraRows' | 'firstDifference'>, ordered: boolean): string {
  if (d.missingRows.count > 0 || d.extraRows.count > 0) return countsReason(d);
  return ordered
    ? `same rows, but row order differs${d.firstDifference ? ` at row ${d.firstDifference.goldRow}` : ''}`
    : 'no single column map makes the rows match';
}

/** Both results are empty (and the policy lets empty match empty). */
export function emptyMatchReason(): string {
  return 'both results are empty';
}
