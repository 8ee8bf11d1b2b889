/**
 * How the benches print a target beside a figure, with its verdict, so that a reader sees at once
 * which figures meet their targets: `target ≤ 2: met`, `target within 0.9–1.1: NOT MET`.
 */

/** A target: an upper bound, or a range (both ends included). */
export type Target = { readonly max: number; readonly min?: number };

/**
 * The note for `value` against `target`.
 * @param value - the figure as printed (a ratio or a size; the same unit as the target).
 * @param target - `{ max }` for "at most", `{ min, max }` for "within".
 * @param unit - printed after the bound (`ms`, `MiB`); none for a ratio.
 * @returns `target ≤ 1.3: met` / `target ≤ 1.3: NOT MET`, `target within 0.9–1.1: …` with a range,
 *   `target ≤ 250 ms: met` with a unit.
 */
export function targetNote(value: number, target: Target, unit?: string): string {
  const met = value <= target.max && (target.min === undefined || value >= target.min);
  const bound = target.min === undefined ? `≤ ${target.max}` : `within ${target.min}–${target.max}`;
  return `target ${bound}${unit === undefined ? '' : ` ${unit}`}: ${met ? 'met' : 'NOT MET'}`;
}
