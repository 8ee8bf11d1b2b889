/**
 * promptfoo extension hooks: `afterEach` copies the ladder's per-rung verdicts into the row
 * metadata (the viewer's Metadata tab) and moves its details there; `afterAll` prints the ladder
 * summary per provider and closes the shared engine. Implementation and docs: src/promptfoo/summary-hooks.ts.
 *
 * ```yaml
 * extensions:
 *   - file://extensions/ladder-summary.ts:afterEach
 *   - file://extensions/ladder-summary.ts:afterAll
 * ```
 * Named exports only: promptfoo resolves `file://x.ts:afterAll` through `mod.default || mod`.
 */
export { afterAll, afterEach } from '../src/promptfoo/summary-hooks.js';
