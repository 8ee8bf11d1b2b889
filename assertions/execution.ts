/**
 * `execution` assertion: L4 alone — the prediction must return a gold's result on every
 * snapshot of the item, under the comparison policy (`config.policy`: a preset — `default`,
 * `spider`, `bird` — or options, src/compare/policy.ts). An item without gold is unscored (passes
 * with no named score); a gold that fails on a snapshot is reported (`gold_error`), never blamed on
 * the prediction. Needs `db` (fixture) or `db_path`, and `gold_sql`.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/execution.ts:execution    # or package:text2sql-ladder:assertions.execution
 *     config: { policy: spider }
 * ```
 *
 * `metadata.text2sqlLadder.details` also carries `executed`, `goldError` and `emptyGoldMatch` for
 * the ladder summary.
 */
import { checkExecution } from '../src/rungs/execution.js';
import { executionFacts } from '../src/rungs/ladder-rungs.js';
import { createRungResult } from '../src/rungs/rung-result.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';
import { sharedGoldCache } from '../src/promptfoo/runtime.js';

/** The spec (exported for tests). */
export const EXECUTION_ASSERTION: RungAssertionSpec = {
  file: 'assertions/execution.ts:execution',
  rung: 'execution',
  options: [...COMMON_OPTIONS, 'policy', 'gold_result_ordered'],
  needsDatabase: true,
  run: async ({ sql, item, options, engine }) => {
    if (item.golds.length === 0) {
      return createRungResult({ rung: 'execution', status: 'unscored', reason: 'no gold SQL: the item is unscored', details: { executed: false, goldError: false, emptyGoldMatch: false } });
    }
    const result = await checkExecution({
      predictedSql: sql,
      golds: item.golds,
      snapshots: item.snapshots,
      engine,
      policy: options.policy,
      cache: sharedGoldCache(),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
      ...(item.asOfDate !== undefined ? { asOfDate: item.asOfDate } : {}),
      ...(item.goldOrdered !== undefined ? { goldOrdered: item.goldOrdered } : {}),
    });
    return { ...result, details: { ...result.details, ...executionFacts(result) } };
  },
};

/** promptfoo assertion: L4 execution match on the provider output. */
export function execution(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(EXECUTION_ASSERTION, output, context);
}
