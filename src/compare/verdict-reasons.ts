/**
 * The one-line reason of a {@link Verdict}, one function per cause, so that each cause has its own
 * sentence (a reason never stands for several causes).
 */
import { formatCell, plural, truncate } from '../format.js';
import type { ResultSides, Verdict } from './verdict.js';

/** Widest row quoted in a reason, in characters (cells as SQL literals, `[a, b]`). */
export const MAX_REASON_ROW_CHARS = 60;

/** A result row as a reason quotes it: `[415447.25]`, `['north', 12.5]`, cut to {@link MAX_REASON_ROW_CHARS}. */
export function reasonRow(row: readonly unknown[]): string {
  const text = `[${row.map(formatCell).join(', ')}]`;
  return text.length <= MAX_REASON_ROW_CHARS ? text : `${truncate(text, MAX_REASON_ROW_CHARS - 1)}]`;
}

/** The default names of the two results: the gold and the prediction. */
export const GOLD_VS_PREDICTED: ResultSides = Object.freeze({ gold: 'gold', predicted: 'predicted' });

/** The predicted side as the subject of a count: `prediction` by default, else its own name. */
function subject(sides: ResultSides): string {
  return sides.predicted === GOLD_VS_PREDICTED.predicted ? 'prediction' : sides.predicted;
}

export function rowCountReason(goldCount: number, predCount: number, sides: ResultSides = GOLD_VS_PREDICTED): string {
  return `${subject(sides)} has ${predCount} ${plural(predCount, 'row')}, ${sides.gold} has ${goldCount}`;
}

/**
 * Missing / extra rows with the values that differ: one missing and one extra row read
 * `gold [415447.25] vs predicted [1040070.25]`; more read `2 missing rows, 2 extra rows; first: gold
 * ['north', 12.5] vs predicted ['north', 13.0]`; rows come from the verdict's samples, each cut to
 * {@link MAX_REASON_ROW_CHARS} characters.
 */
export function countsReason(d: Pick<Verdict, 'missingRows' | 'extraRows'>, sides: ResultSides = GOLD_VS_PREDICTED): string {
  const parts: string[] = [];
  if (d.missingRows.count > 0) parts.push(`${d.missingRows.count} missing ${plural(d.missingRows.count, 'row')}`);
  if (d.extraRows.count > 0) parts.push(`${d.extraRows.count} extra ${plural(d.extraRows.count, 'row')}`);
  if (parts.length === 0) return 'rows differ';
  const gold = d.missingRows.rows[0];
  const predicted = d.extraRows.rows[0];
  const values = [gold !== undefined ? `${sides.gold} ${reasonRow(gold)}` : '', predicted !== undefined ? `${sides.predicted} ${reasonRow(predicted)}` : ''].filter((part) => part !== '').join(' vs ');
  if (values === '') return parts.join(', ');
  if (d.missingRows.count === 1 && d.extraRows.count === 1) return values;
  return d.missingRows.count + d.extraRows.count === 1 ? `${parts.join(', ')}: ${values}` : `${parts.join(', ')}; first: ${values}`;
}

export function matchReason(map: readonly number[], ordered: boolean): string {
  const reordered = map.some((p, g) => p !== g);
  return `results match${ordered ? ' in order' : ''}${reordered ? ` (columns mapped ${map.map((p, g) => `${g}→${p}`).join(', ')})` : ''}`;
}

/** The column counts do not fit the policy: fewer predicted columns, or extra ones not allowed. */
export function columnCountReason(predictedColumns: number, goldColumns: number, sides: ResultSides = GOLD_VS_PREDICTED): string {
  const np = predictedColumns;
  const ng = goldColumns;
  return np < ng
    ? `${subject(sides)} has ${np} ${plural(np, 'column')}, ${sides.gold} has ${ng}`
    : `${subject(sides)} has ${np - ng} extra ${plural(np - ng, 'column')} (${np} vs ${ng}; allowExtraColumns is off)`;
}

/** The column-map search ran out of budget. */
export function undecidedReason(work: number, budget: number): string {
  return `column-map search stopped after ${work} cell visits (budget ${budget})`;
}

/** Same row count, no column map matched: what the row diff found. */
export function mismatchReason(d: Pick<Verdict, 'missingRows' | 'extraRows' | 'firstDifference'>, ordered: boolean, sides: ResultSides = GOLD_VS_PREDICTED): string {
  if (d.missingRows.count > 0 || d.extraRows.count > 0) return countsReason(d, sides);
  return ordered
    ? `same rows, but row order differs${d.firstDifference ? ` at row ${d.firstDifference.goldRow}: ${sides.gold} ${formatCell(d.firstDifference.gold)} vs ${sides.predicted} ${formatCell(d.firstDifference.predicted)}` : ''}`
    : 'no single column map makes the rows match';
}

/** Both results are empty (and the policy lets empty match empty). */
export function emptyMatchReason(): string {
  return 'both results are empty';
}
