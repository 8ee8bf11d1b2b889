/**
 * `exactMatch` assertion (diagnostic, never gates): raw and normalized exact match against any gold
 * (src/rungs/exact-match.ts). Named scores `exactMatch`, `exact_match_raw`, `exact_match_normalized`.
 * Options: `threshold`, `dialect`, item fields (src/promptfoo/config.ts).
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/exact-match.ts:exactMatch
 * ```
 */
import { scoreExactMatch } from '../src/rungs/exact-match.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';

/** The spec (exported for tests). */
export const EXACT_MATCH_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/exact-match.ts:exactMatch',
  rung: 'exactMatch',
  options: [],
  needsDatabase: false,
  validate: () => undefined,
  run: async ({ sql, golds, options }) => scoreExactMatch({ predictedSql: sql, goldSqls: golds, dialect: options.dialect }),
};

/** promptfoo assertion: exact match, raw and normalized (diagnostic). */
export function exactMatch(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(EXACT_MATCH_ASSERTION, output, context);
}
