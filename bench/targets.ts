/**
 * How the benches print a target beside a figure, with its verdict, so that a reader sees at once
 * which figures meet their targets: `target ≤ 2: met`, `target < 1000 ms: met`,
 * `target within 0.9–1.1: NOT MET`.
 */

/**
 * A target: an upper bound (`max`, included unless `exclusive`), or a range (`min` to `max`, both
 * ends included). The caller keeps `min ≤ max`; nothing checks it.
 */
export type Target = { readonly max: number; readonly min?: number; readonly exclusive?: boolean };

/**
 * The note for `value` against `target`. Never throws; a `NaN` value is `NOT MET`.
 * @param value - the figure as printed (a ratio or a size, rounded as shown; the target's unit).
 * @param target - `{ max }` for "at most", `{ max, exclusive: true }` for "below",
 *   `{ min, max }` for "within".
 * @param unit - printed after the bound (`ms`, `MiB`); none for a ratio.
 * @returns `target ≤ 1.3: met` / `target ≤ 1.3: NOT MET`, `target < 1000 ms: …` for an exclusive
 *   bound with a unit, `target within 0.9–1.1: …` for a range.
 */
export function targetNote(value: number, target: Target, unit?: string): string {
  const underMax = target.exclusive === true ? value < target.max : value <= target.max;
  const met = underMax && (target.min === undefined || value >= target.min);
  const bound = target.min !== undefined ? `within ${target.min}–${target.max}` : `${target.exclusive === true ? '<' : '≤'} ${target.max}`;
  return `target ${bound}${unit === undefined ? '' : ` ${unit}`}: ${met ? 'met' : 'NOT MET'}`;
}
