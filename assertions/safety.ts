/**
 * `safety` assertion: L3 alone — one read-only query and nothing else anywhere in its tree
 * (src/rungs/safety.ts). No database needed. Options: src/promptfoo/config.ts; `safety` holds the
 * opt-in policies (off by default): `maxLimit` (LIMIT required, at most n rows), `allowedTables`
 * (a list, or `role` for the tables the item's role may read in its fixture), `allowedFunctions`,
 * `allowTableFunctions`, `allowSystemTables`.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/safety.ts:safety          # or package:text2sql-ladder:assertions.safety
 *     config: { safety: { maxLimit: 1000, allowedTables: role } }
 * ```
 */
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

/** The safety policy for an item (`allowedTables: role` expanded); kept here for its older import path. */
export { safetyPolicyFor } from '../src/promptfoo/item-ladder.js';

/** The spec (exported for tests). */
export const SAFETY_ASSERTION: RungAssertionSpec = {
  file: 'assertions/safety.ts:safety',
  rung: 'safety',
  options: [...COMMON_OPTIONS, 'safety'],
  needsDatabase: false,
};

/** promptfoo assertion: L3 read-only single-query gate on the provider output. */
export function safety(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(SAFETY_ASSERTION, output, context);
}
