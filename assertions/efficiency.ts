/**
 * `efficiency` assertion: L6 alone. Runs L4 first (the prediction must return a gold's result on
 * every snapshot, under `config.policy`); only then compares the predicted and gold plans on the
 * first snapshot: deterministic proxies and an estimated cost from `EXPLAIN QUERY PLAN` and
 * `sqlite_stat1` (src/efficiency), failing when the predicted estimate exceeds `budgetFactor` × the
 * gold's. After a failed L4 the rung is skipped (passes, no named score): a wrong query that
 * returns nothing fast must not look efficient. Named score: `L6_efficiency`.
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
import { checkExecution } from '../src/rungs/execution.js';
import { readEfficiencyOptions, runEfficiencyRung } from '../src/rungs/efficiency.js';
import type { EfficiencyOptions } from '../src/rungs/efficiency.js';
import { createRungResult } from '../src/rungs/rung-result.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';
import { sharedEfficiencyCache, sharedGoldCache } from '../src/promptfoo/runtime.js';

const OWN_OPTIONS = ['budgetFactor', 'failOnProxies', 'timing'] as const;
const FILE = 'assertions/efficiency.ts:efficiency';

/**
 * Reads this assertion's own options from `config`.
 * @throws LadderError('invalid_option') naming `config.<option>`.
 */
export function readEfficiencyConfig(config: Readonly<Record<string, unknown>> | undefined): EfficiencyOptions {
  const own: Record<string, unknown> = {};
  for (const key of OWN_OPTIONS) if (config?.[key] !== undefined && config[key] !== null) own[key] = config[key];
  return readEfficiencyOptions(own, { name: 'config' });
}

/** The spec (exported for tests). */
export const EFFICIENCY_ASSERTION: RungAssertionSpec = {
  file: FILE,
  rung: 'efficiency',
  options: [...COMMON_OPTIONS, 'policy', ...OWN_OPTIONS],
  needsDatabase: true,
  run: async ({ sql, item, options, engine, context }) => {
    const efficiencyOptions = readEfficiencyConfig(context.config);
    if (item.golds.length === 0) return createRungResult({ rung: 'efficiency', status: 'skipped', reason: 'no gold SQL: the item is unscored', details: null, score: 0 });
    const execution = await checkExecution({
      predictedSql: sql,
      golds: item.golds,
      snapshots: item.snapshots,
      engine,
      policy: options.policy,
      cache: sharedGoldCache(),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
    });
    const result = await runEfficiencyRung({
      sql,
      golds: item.golds,
      snapshots: item.snapshots,
      engine,
      execution,
      options: { ...efficiencyOptions, ...(options.doubleQuotes ? { doubleQuotes: options.doubleQuotes } : {}) },
      cache: sharedEfficiencyCache(),
    });
    return result.status === 'skipped' && execution.status !== 'pass' ? { ...result, reason: `${result.reason}: ${execution.reason}` } : result;
  },
};

/** promptfoo assertion: L6 efficiency (after L4) on the provider output. */
export function efficiency(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(EFFICIENCY_ASSERTION, output, context);
}
