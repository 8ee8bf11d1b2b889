/**
 * One graded run, as the comparison reads it: items by id, each with a pass/fail outcome and a
 * reason per metric. Readers (read-promptfoo-run.ts, read-spider-run.ts) turn result files into
 * this shape; compare-runs.ts pairs two of them.
 *
 * Metrics are the ladder's named scores: `end_to_end` (1 for an accepted answer; failures, skipped
 * rungs and errored rows count 0, unscored items have none) and one per rung that ran
 * (the score table's names, src/rungs/scores.ts). A metric
 * an item did not reach (a skipped or unscored rung) is absent, never a fail.
 */
import type { DerivedIdentity, RunIdentity } from './run-identity.js';
import { END_TO_END, scoreNameRank } from '../rungs/scores.js';

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
  /** Trajectory metrics by name (the ladder record's `trajectory`), when the run measured them. */
  readonly process?: Readonly<Record<string, number>>;
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

/** The end-to-end metric (the release decision's score; the score table's `end_to_end`). */
export { END_TO_END };

/** Sorts metric names into display order: end_to_end first, then the ladder rungs, then the rest by name (src/rungs/scores.ts). */
export function sortMetricNames(names: Iterable<string>): string[] {
  return [...new Set(names)].sort((a, b) => scoreNameRank(a) - scoreNameRank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
