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
import { LadderError } from '../src/errors.js';
import type { SafetyPolicy } from '../src/safety/policy.js';
import { runGate } from '../src/rungs/gates.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import type { AssertionOptions } from '../src/promptfoo/config.js';
import type { AssertionItem } from '../src/promptfoo/item.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';
import { resolveFixtureOnce } from '../src/promptfoo/runtime.js';

/**
 * The safety policy for an item: `allowedTables: role` becomes the tables the item's role may read.
 * @throws LadderError('invalid_option') when `role` is used on an item without fixture or role.
 */
export async function safetyPolicyFor(options: AssertionOptions, item: AssertionItem): Promise<SafetyPolicy | undefined> {
  const safety = options.safety;
  if (safety === undefined) return undefined;
  if (safety.allowedTables !== 'role') return safety as SafetyPolicy;
  if (item.db === undefined || item.role === undefined) {
    throw new LadderError('invalid_option', `config.safety.allowedTables: "role" needs an item with a fixture (db) and a role; item ${item.id} has ${item.db === undefined ? 'no fixture' : 'no role'}`);
  }
  const fixture = await resolveFixtureOnce(item.db, item.role);
  return { ...safety, allowedTables: fixture.roles[item.role]?.tables ?? [] };
}

/** The spec (exported for tests). */
export const SAFETY_ASSERTION: RungAssertionSpec = {
  file: 'assertions/safety.ts:safety',
  rung: 'safety',
  options: [...COMMON_OPTIONS, 'safety'],
  needsDatabase: false,
  run: async ({ item, options, gateInput }) => {
    const policy = await safetyPolicyFor(options, item);
    return runGate('safety', { ...gateInput, ...(policy !== undefined ? { safetyPolicy: policy } : {}) });
  },
};

/** promptfoo assertion: L3 read-only single-query gate on the provider output. */
export function safety(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(SAFETY_ASSERTION, output, context);
}
