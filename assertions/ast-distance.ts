/**
 * `astDistance` assertion (diagnostic, never gates): tree edit distance similarity and token
 * Jaccard against the closest gold (src/rungs/ast-distance.ts). A one-node change (`>` to `>=`)
 * can flip the meaning and still score near 1. Named scores `astDistance`, `ast_similarity`,
 * `token_jaccard`. Options: `threshold`, `dialect`, item fields.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/ast-distance.ts:astDistance
 * ```
 */
import { scoreAstDistance } from '../src/rungs/ast-distance.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';

/** The spec (exported for tests). */
export const AST_DISTANCE_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/ast-distance.ts:astDistance',
  rung: 'astDistance',
  options: [],
  needsDatabase: false,
  validate: () => undefined,
  run: async ({ sql, golds, options }) => scoreAstDistance({ predictedSql: sql, goldSqls: golds, dialect: options.dialect }),
};

/** promptfoo assertion: AST distance (diagnostic). */
export function astDistance(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(AST_DISTANCE_ASSERTION, output, context);
}
