/**
 * `execution` assertion: L4 alone — the prediction must return a gold's result on every
 * snapshot of the item, under the comparison policy (`config.policy`: a preset — `default`,
 * `spider`, `bird` — or options, src/compare/policy.ts), with the item's row order
 * (`gold_result_ordered`) and `as_of_date` — the ladder's L4, run alone. An item without gold is
 * unscored (passes with no named score; the prediction still runs, as on the ladder); a gold that
 * fails on a snapshot is reported (`gold_error`), never blamed on the prediction. Needs `db`
 * (fixture) or `db_path`.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/execution.ts:execution    # or package:text2sql-ladder:assertions.execution
 *     config: { policy: spider }
 * ```
 */
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

/** The spec (exported for tests). */
export const EXECUTION_ASSERTION: RungAssertionSpec = {
  file: 'assertions/execution.ts:execution',
  rung: 'execution',
  options: [...COMMON_OPTIONS, 'policy', 'gold_result_ordered'],
  needsDatabase: true,
};

/** promptfoo assertion: L4 execution match on the provider output. */
export function execution(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(EXECUTION_ASSERTION, output, context);
}
