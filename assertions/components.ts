/**
 * `components` assertion (diagnostic, never gates): clause F1 of the predicted query against the
 * item's gold SQL (*Text-to-SQL Evals* §4.2) plus Spider's partial-match components
 * (src/rungs/components.ts). Named scores `components` (mean clause F1), `components_<clause>`,
 * `spider_<component>`.
 *
 * Options: `aliasResolution` (`resolve` default | `seed`), `threshold` (pass when score ≥ it;
 * default: always pass), `dialect` and the item fields of src/promptfoo/config.ts.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/components.ts:components
 * ```
 */
import { scoreComponents } from '../src/rungs/components.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';
import { configReader } from '../src/promptfoo/config.js';

/** The spec (exported for tests). */
export const COMPONENTS_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/components.ts:components',
  rung: 'components',
  options: ['aliasResolution'],
  needsDatabase: false,
  validate: (config) => void configReader(config).oneOf('aliasResolution', ['resolve', 'seed'] as const),
  run: async ({ sql, golds, options, config }) => {
    const aliasResolution = configReader(config).oneOf('aliasResolution', ['resolve', 'seed'] as const);
    return scoreComponents({ predictedSql: sql, goldSqls: golds, dialect: options.dialect, ...(aliasResolution ? { aliasResolution } : {}) });
  },
};

/** promptfoo assertion: clause component F1 (diagnostic). */
export function components(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(COMPONENTS_ASSERTION, output, context);
}
