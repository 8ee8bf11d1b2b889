/**
 * BIRD's timing scores, computed as BIRD's scripts compute them (facts read from
 * bird-bench `evaluation/evaluation_ves.py`; *Text-to-SQL Evals* §5.3):
 * - per item, when the results match: run the pair alternately N times (default 100), predicted
 *   first then gold in each round (`iterated_execute_sql`); each round gives gold_time / pred_time;
 * - `clean_abnormal`: keep ratios strictly inside (mean − 3σ, mean + 3σ), σ the population standard
 *   deviation (`np.std`, ddof = 0); the item's ratio is the mean of the kept ratios;
 * - VES (BIRD paper, §5.3): mean over items of 1[correct] · √ratio, × 100;
 * - R-VES (BIRD mini-dev): reward by ratio ≥ 2 → 1.25, [1, 2) → 1, [0.5, 1) → 0.75,
 *   [0.25, 0.5) → 0.5, < 0.25 → 0.25, incorrect → 0; score = mean over items of √reward, × 100.
 *
 * One deliberate difference: when every ratio is identical (σ = 0), BIRD's strict inequalities keep
 * none, its mean divides by zero and its catch-all gives the item 0. Here σ = 0 keeps every ratio.
 *
 * The timing source is injectable so that tests use fixed synthetic timings.
 */
import { LadderError } from '../errors.js';
import type { Engine } from '../engine/engine.js';

/** BIRD's default number of alternating runs per query pair. */
export const DEFAULT_TIMING_RUNS = 100;

/**
 * Times one run of one query of the pair, in milliseconds (any positive unit works: only ratios
 * are used). Called in BIRD's order: predicted, gold, predicted, gold, …
 */
export type TimingSource = (role: 'predicted' | 'gold', run: number) => Promise<number>;

/** Outlier removal as BIRD's `clean_abnormal`. */
export interface CleanedRatios {
  readonly kept: readonly number[];
  readonly removed: readonly number[];
  readonly mean: number;
  /** Population standard deviation of all ratios. */
  readonly std: number;
}

/**
 * Keeps values strictly within mean ± 3σ (σ = population standard deviation); all of them when
 * σ = 0 (see the module doc).
 * @throws RangeError on an empty list.
 */
export function removeOutliers(values: readonly number[]): CleanedRatios {
  if (values.length === 0) throw new RangeError('removeOutliers: values must not be empty');
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const std = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
  if (std === 0) return { kept: [...values], removed: [], mean, std };
  const kept: number[] = [];
  const removed: number[] = [];
  for (const value of values) (value < mean + 3 * std && value > mean - 3 * std ? kept : removed).push(value);
  return { kept, removed, mean, std };
}

/** One item's timing: the rounds and the averaged ratio. */
export interface TimeRatio {
  /** gold_time / predicted_time after outlier removal, averaged. */
  readonly ratio: number;
  readonly runs: number;
  /** Per-round ratios, in order. */
  readonly ratios: readonly number[];
  readonly removed: readonly number[];
}

/**
 * BIRD's per-item time ratio from paired timings.
 * @param timings - one `{ predictedMs, goldMs }` per round.
 * @throws LadderError('invalid_option') when a timing is not a positive finite number.
 */
export function timeRatio(timings: readonly { readonly predictedMs: number; readonly goldMs: number }[]): TimeRatio {
  if (timings.length === 0) throw new LadderError('invalid_option', 'timing runs must be at least 1, received 0 rounds');
  const ratios = timings.map(({ predictedMs, goldMs }, index) => {
    for (const [role, value] of [['predicted', predictedMs], ['gold', goldMs]] as const) {
      if (!(Number.isFinite(value) && value > 0)) {
        throw new LadderError('invalid_option', `timing source must return a positive number of ms; round ${index + 1} ${role} gave ${String(value)}`);
      }
    }
    return goldMs / predictedMs;
  });
  const cleaned = removeOutliers(ratios);
  const ratio = cleaned.kept.reduce((sum, value) => sum + value, 0) / cleaned.kept.length;
  return { ratio, runs: timings.length, ratios, removed: cleaned.removed };
}

/**
 * Runs the pair `runs` times alternately (predicted then gold each round) and returns BIRD's ratio.
 * @param runs - rounds (default {@link DEFAULT_TIMING_RUNS}); a positive integer.
 */
export async function measureTimeRatio(source: TimingSource, runs: number = DEFAULT_TIMING_RUNS): Promise<TimeRatio> {
  if (!Number.isInteger(runs) || runs < 1) throw new LadderError('invalid_option', `timing runs must be a positive integer, received ${String(runs)}`);
  const timings: { predictedMs: number; goldMs: number }[] = [];
  for (let run = 0; run < runs; run += 1) {
    const predictedMs = await source('predicted', run);
    const goldMs = await source('gold', run);
    timings.push({ predictedMs, goldMs });
  }
  return timeRatio(timings);
}

/**
 * A timing source that runs the queries through the engine and reads `elapsedMs` (measured inside
 * the child around the statement, so process round trips are not timed). The connection keeps a
 * prepared text, so from the second run of a query on, as in BIRD's own timing loop (Python's
 * `sqlite3` statement cache), a run is its steps alone; gold and prediction are timed alike.
 * @throws Error when a run fails: a query that ran once to match results must keep running.
 */
export function createEngineTimingSource(engine: Engine, db: string, sql: { readonly predicted: string; readonly gold: string }, timeoutMs?: number): TimingSource {
  return async (role) => {
    const outcome = await engine.execute({ db, sql: sql[role], ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    if (!outcome.ok) throw new Error(`${role} query failed during timing: ${outcome.error.code}: ${outcome.error.message}`);
    return outcome.result.elapsedMs;
  };
}

/** R-VES reward of one item (BIRD mini-dev `iterated_execute_sql`): 0 when incorrect. */
export function rvesReward(correct: boolean, ratio: number): number {
  if (!correct || ratio === 0) return 0;
  if (ratio >= 2) return 1.25;
  if (ratio >= 1) return 1;
  if (ratio >= 0.5) return 0.75;
  if (ratio >= 0.25) return 0.5;
  return 0.25;
}

/** One item for the aggregate scores: whether the results matched and its time ratio (ignored when incorrect). */
export interface TimedItem {
  readonly correct: boolean;
  readonly ratio: number;
}

/** VES = (1/N) Σ 1[correct] · √ratio · 100 (BIRD paper; *Text-to-SQL Evals* §5.3). 0 for no items. */
export function computeVes(items: readonly TimedItem[]): number {
  if (items.length === 0) return 0;
  return (items.reduce((sum, item) => sum + (item.correct ? Math.sqrt(item.ratio) : 0), 0) / items.length) * 100;
}

/** R-VES = (1/N) Σ √reward · 100 (BIRD mini-dev `compute_ves`). 0 for no items. */
export function computeRves(items: readonly TimedItem[]): number {
  if (items.length === 0) return 0;
  return (items.reduce((sum, item) => sum + Math.sqrt(rvesReward(item.correct, item.ratio)), 0) / items.length) * 100;
}
