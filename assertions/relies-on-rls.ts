/**
 * `reliesOnRls` assertion (diagnostic, never gates): flags a prediction whose rows for its role
 * come from row-level security rather than its own filter — it would answer with rows the role may
 * not see on a connection that is not role-scoped (src/diagnostics/relies-on-rls.ts). Runs on
 * every snapshot of an item with a `role`; skipped without one.
 *
 * Options: `threshold`, `dialect`, `timeoutMs`, item fields.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/relies-on-rls.ts:reliesOnRls
 * ```
 */
import { checkReliesOnRls } from '../src/diagnostics/relies-on-rls.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { runDiagnosticAssertion } from '../src/promptfoo/diagnostic-assertion.js';
import type { DiagnosticAssertionSpec } from '../src/promptfoo/diagnostic-assertion.js';

/** The spec (exported for tests). */
export const RELIES_ON_RLS_ASSERTION: DiagnosticAssertionSpec = {
  file: 'assertions/relies-on-rls.ts:reliesOnRls',
  rung: 'reliesOnRls',
  options: [],
  needsDatabase: true,
  validate: () => undefined,
  run: async ({ sql, item, database }) => checkReliesOnRls({ predictedSql: sql, engine: database!.engine, snapshots: item.snapshots }),
};

/** promptfoo assertion: does the prediction rely on row-level security for its role's answer? (diagnostic). */
export function reliesOnRls(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runDiagnosticAssertion(RELIES_ON_RLS_ASSERTION, output, context);
}
