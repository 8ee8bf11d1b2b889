/**
 * `syntax` assertion: L1 alone. For SQLite with a database (the item's `db` fixture or `db_path`),
 * SQLite's own `prepare` on the item's first snapshot is the authority; otherwise the dialect
 * parser decides. Options: src/promptfoo/config.ts (`dialect`, `timeoutMs`, `doubleQuotes`, item fields).
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/syntax.ts:syntax          # or package:text2sql-ladder:assertions.syntax
 * ```
 */
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

/** The spec (exported for tests and for the ladder's documentation). */
export const SYNTAX_ASSERTION: RungAssertionSpec = {
  file: 'assertions/syntax.ts:syntax',
  rung: 'syntax',
  options: COMMON_OPTIONS,
  needsDatabase: false,
};

/** promptfoo assertion: L1 syntax on the provider output. */
export function syntax(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(SYNTAX_ASSERTION, output, context);
}
