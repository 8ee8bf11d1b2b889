/**
 * `schema` assertion: L2 alone — every table and column the query names exists in the item's
 * database as its role sees it (role-scoped snapshot). Needs `db` (fixture) or `db_path`.
 * Options: src/promptfoo/config.ts (`dialect`, `doubleQuotes`, item fields).
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/schema.ts:schema          # or package:text2sql-ladder:assertions.schema
 * ```
 */
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

/** The spec (exported for tests). */
export const SCHEMA_ASSERTION: RungAssertionSpec = {
  file: 'assertions/schema.ts:schema',
  rung: 'schema',
  options: COMMON_OPTIONS,
  needsDatabase: true,
};

/** promptfoo assertion: L2 schema existence on the provider output. */
export function schema(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(SCHEMA_ASSERTION, output, context);
}
