/**
 * One graded run, as the comparison reads it: items by id, each with a pass/fail outcome and a
 * reason per metric. Readers (read-promptfoo-run.ts, read-spider-run.ts) turn result files into
 * this shape; compare-runs.ts pairs two of them.
 *
 * Metrics are the ladder's named scores: `end_to_end` (1 for an accepted answer; failures, skipped
 * rungs and errored rows count 0, unscored items have none) and one per rung that ran
 * (`L1_syntax`, `L2_schema`, `L3_safety`, `L4_execution`, `L6_efficiency`, `L7_answer`). A metric
 * an item did not reach (a skipped or unscored rung) is absent, never a fail.
 */
import type { DerivedIdentity, RunIdentity } from './run-identity.js';

/** An item's outcome on one metric. */
export interface MetricOutcome {
  readonly status: 'pass' | 'fail';
  /** One line for a person: why it passed or failed. */
  readonly reason: string;
}

/** One item of a run. */
export interface RunItem {
  readonly id: string;
  /** `key:value` or bare tags, for slices. */
  readonly tags: readonly string[];
  /** Metric name → outcome; a metric the item did not reach is absent. */
  readonly metrics: Readonly<Record<string, MetricOutcome>>;
}

/** A run read from a file. */
export interface RunRecord {
  /** What the user wrote, e.g. `out/eval.json#weak`. */
  readonly spec: string;
  /** A short name for tables: the column's provider label, or the file name. */
  readonly label: string;
  readonly format: 'promptfoo' | 'spider-jsonl';
  /** The identity recorded with the run, when there is one. */
  readonly identity: RunIdentity | undefined;
  /** Identity facts computed from the items themselves. */
  readonly derived: DerivedIdentity;
  /** Items in file order, ids unique. */
  readonly items: readonly RunItem[];
}

/** The end-to-end metric (the release decision's score). */
export const END_TO_END = 'end_to_end';

/** Display order of metrics: end_to_end first, then the ladder rungs, then the rest by name. */
const METRIC_ORDER = [END_TO_END, 'L1_syntax', 'L2_schema', 'L3_safety', 'L4_execution', 'L5_semantic', 'L6_efficiency', 'L7_answer'];

/** Sorts metric names into display order. */
export function sortMetricNames(names: Iterable<string>): string[] {
  const rank = (name: string): number => {
    const index = METRIC_ORDER.indexOf(name);
    return index < 0 ? METRIC_ORDER.length : index;
  };
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
