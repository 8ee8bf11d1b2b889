/**
 * The process side of `compare`: how the agents' trajectories changed between a baseline and a
 * candidate run, beside the correctness metrics. Over the items both runs measured (paired by id),
 * per trajectory metric (src/trajectory/metrics.ts): each run's mean per item, the difference, and
 * on how many items it went up and down; then the error-recovery rate of each run and the items over
 * a trajectory budget. Counts are not pass / fail, so no McNemar test: the up / down counts show
 * whether a change is broad or carried by a few items.
 */
import type { RunItem } from './run-record.js';

/** The per-item trajectory metrics compared, in display order. */
export const PROCESS_METRICS = ['executions', 'schemaCalls', 'failedExecutions', 'steps', 'clarifications', 'rowsScanned', 'bytesScanned'] as const;

/** One trajectory metric compared over the paired items. */
export interface ProcessMetricComparison {
  readonly metric: (typeof PROCESS_METRICS)[number];
  /** Mean per paired item (a metric an item lacks counts 0). */
  readonly baseline: number;
  readonly candidate: number;
  /** candidate − baseline. */
  readonly difference: number;
  /** Paired items where the candidate's value is higher / lower. */
  readonly increased: number;
  readonly decreased: number;
}

/** What {@link compareProcess} returns. */
export interface ProcessComparison {
  /** Items both runs measured. */
  readonly paired: number;
  readonly metrics: readonly ProcessMetricComparison[];
  /** Error recovery of each run over the paired items: recovered / runs with an initial execution error. */
  readonly errorRecovery: { readonly baseline: { readonly recovered: number; readonly n: number }; readonly candidate: { readonly recovered: number; readonly n: number } };
  /** Paired items over a trajectory budget in each run. */
  readonly overBudget: { readonly baseline: number; readonly candidate: number };
}

/**
 * Compares the trajectories of paired items.
 * @param pairs - baseline and candidate items with the same id.
 * @param endToEnd - the item's end_to_end status (`pass` counts as recovered).
 * @returns `undefined` when no pair has trajectory metrics in both runs.
 * @example
 * compareProcess(pairs, (item) => item.metrics.end_to_end?.status)?.metrics[0]
 * // { metric: 'executions', baseline: 2.27, candidate: 0.96, difference: -1.31, increased: 1, decreased: 64 }
 */
export function compareProcess(pairs: ReadonlyArray<{ readonly base: RunItem; readonly cand: RunItem }>, endToEnd: (item: RunItem) => string | undefined): ProcessComparison | undefined {
  const measured = pairs.filter((pair) => pair.base.process !== undefined && pair.cand.process !== undefined);
  if (measured.length === 0) return undefined;
  const value = (item: RunItem, metric: string): number => item.process?.[metric] ?? 0;
  const metrics = PROCESS_METRICS.map((metric): ProcessMetricComparison => {
    const baseline = measured.reduce((sum, pair) => sum + value(pair.base, metric), 0) / measured.length;
    const candidate = measured.reduce((sum, pair) => sum + value(pair.cand, metric), 0) / measured.length;
    return {
      metric,
      baseline,
      candidate,
      difference: candidate - baseline,
      increased: measured.filter((pair) => value(pair.cand, metric) > value(pair.base, metric)).length,
      decreased: measured.filter((pair) => value(pair.cand, metric) < value(pair.base, metric)).length,
    };
  });
  const recovery = (pick: (pair: { base: RunItem; cand: RunItem }) => RunItem) => {
    const erred = measured.map(pick).filter((item) => value(item, 'initialError') > 0 && endToEnd(item) !== undefined);
    return { recovered: erred.filter((item) => endToEnd(item) === 'pass').length, n: erred.length };
  };
  return {
    paired: measured.length,
    metrics,
    errorRecovery: { baseline: recovery((pair) => pair.base), candidate: recovery((pair) => pair.cand) },
    overBudget: { baseline: measured.filter((pair) => value(pair.base, 'overBudget') > 0).length, candidate: measured.filter((pair) => value(pair.cand, 'overBudget') > 0).length },
  };
}
