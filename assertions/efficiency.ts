/**
 * `efficiency` assertion: L6, after the ladder's L4 (the prediction must return a gold's result on
 * every snapshot, under `config.policy`, the item's row order and `as_of_date`); only then compares
 * the predicted and gold plans (the SQL as L4 ran it) on the first snapshot: deterministic proxies and an estimated cost from `EXPLAIN QUERY PLAN` and
 * `sqlite_stat1` (src/efficiency), failing when the predicted estimate exceeds `budgetFactor` × the
 * gold's. After an L4 that did not pass (or an item without gold) the rung is skipped (passes, no
 * named score), its reason naming L4's status: a wrong query that returns nothing fast must not
 * look efficient. Named score: `L6_efficiency`.
 *
 * Options (besides src/promptfoo/config.ts's common ones and `policy`):
 * | option | type | default | meaning |
 * |---|---|---|---|
 * | `budgetFactor` | number ≥ 1 | 2 | allowed predicted / gold estimated-cost ratio |
 * | `failOnProxies` | list of `fullScans`, `scansWhereGoldUsesIndex`, `tempBTrees`, `automaticIndexes`, `correlatedSubqueries` | none | proxies that fail on their own when the prediction has more than the gold |
 * | `timing` | `true` or `{ runs, timeoutMs }` | off | BIRD timing (100 alternating runs by default); reported in metadata, never decides |
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/efficiency.ts:efficiency
 *     config: { budgetFactor: 3, failOnProxies: [scansWhereGoldUsesIndex] }
 * ```
 */
import { readEfficiencyOptions } from '../src/rungs/efficiency.js';
import type { EfficiencyOptions } from '../src/rungs/efficiency.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

const OWN_OPTIONS = ['budgetFactor', 'failOnProxies', 'timing'] as const;

/**
 * Reads this assertion's own options from `config`.
 * @throws LadderError('invalid_option') naming `config.<option>`.
 */
export function readEfficiencyConfig(config: Readonly<Record<string, unknown>> | undefined): EfficiencyOptions {
  const own: Record<string, unknown> = {};
  for (const key of OWN_OPTIONS) if (config?.[key] !== undefined && config[key] !== null) own[key] = config[key];
  return readEfficiencyOptions(own, { name: 'config' });
}

/** The spec (exported for tests): L4 and L6 of the ladder, L6 reported. */
export const EFFICIENCY_ASSERTION: RungAssertionSpec = {
  file: 'assertions/efficiency.ts:efficiency',
  rung: 'efficiency',
  only: ['execution', 'efficiency'],
  table: { efficiency: true },
  options: [...COMMON_OPTIONS, 'policy', 'gold_result_ordered', ...OWN_OPTIONS],
  needsDatabase: true,
  input: ({ context }) => ({ efficiencyOptions: readEfficiencyConfig(context.config) }),
};

/** promptfoo assertion: L6 efficiency (after L4) on the provider output. */
export function efficiency(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(EFFICIENCY_ASSERTION, output, context);
}
