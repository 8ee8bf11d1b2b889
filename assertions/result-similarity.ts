/**
 * `resultSimilarity` assertion (diagnostic, never gates): partial credit for a wrong answer — row
 * precision / recall / F1, the column-wise table similarity of *Redefining text-to-SQL metrics* and the query
 * affinity `w · AST similarity + (1 − w) · table similarity` (src/rungs/result-similarity.ts).
 * Executes the prediction and every gold on the item's first snapshot and keeps the best gold.
 *
 * Options: `weight` (in [0, 1], default 0.5), `threshold`, `dialect`, `timeoutMs`, item fields.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/result-similarity.ts:resultSimilarity
 *     config: { weight: 0.5 }
 * ```
 */
import { resultSimilarityWithEngine } from '../src/diagnostics/diagnose.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { readUnitInterval, runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';

/** The spec (exported for tests). */
export const RESULT_SIMILARITY_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/result-similarity.ts:resultSimilarity',
  rung: 'resultSimilarity',
  options: ['weight'],
  needsDatabase: true,
  validate: (config) => void readUnitInterval(config, 'weight'),
  run: async ({ sql, golds, options, config, database }) => {
    const weight = readUnitInterval(config, 'weight');
    return resultSimilarityWithEngine({
      predictedSql: sql,
      goldSqls: golds,
      dialect: options.dialect,
      engine: database!.engine,
      db: database!.db,
      ...(weight !== undefined ? { weight } : {}),
    });
  },
};

/** promptfoo assertion: partial-credit result similarity (diagnostic). */
export function resultSimilarity(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(RESULT_SIMILARITY_ASSERTION, output, context);
}
