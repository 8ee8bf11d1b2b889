/** Small run builders for the comparison tests. */
import type { MetricOutcome, RunItem, RunRecord } from '../../src/report/run-record.js';
import type { DerivedIdentity, RunIdentity } from '../../src/report/run-identity.js';

/** `'pass'` / `'fail'` per metric; a missing metric is "not reached". */
export type Outcomes = Readonly<Record<string, 'pass' | 'fail'>>;

/** One item: id, outcomes per metric, tags. */
export function item(id: string, outcomes: Outcomes, tags: readonly string[] = []): RunItem {
  const metrics: Record<string, MetricOutcome> = {};
  for (const [name, status] of Object.entries(outcomes)) metrics[name] = { status, reason: `${name} ${status} (${id})` };
  return { id, tags, metrics };
}

/** A run from items (promptfoo format, no identity unless given). */
export function run(label: string, items: readonly RunItem[], identity?: RunIdentity, derived: DerivedIdentity = {}): RunRecord {
  return { spec: `${label}.json`, label, format: 'promptfoo', identity, derived, items };
}

/** A run of end_to_end outcomes only: `statuses[i]` for item `q<i>`. */
export function endToEndRun(label: string, statuses: readonly ('pass' | 'fail')[]): RunRecord {
  return run(label, statuses.map((status, index) => item(`q${index}`, { end_to_end: status })));
}
