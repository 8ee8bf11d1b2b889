/**
 * The promptfoo extension hooks under their older path (`dist/assertions/summary-hooks.js:afterAll`
 * keeps working); the documented entry is extensions/ladder-summary.ts. Implementation:
 * src/promptfoo/summary-hooks.ts.
 */
export { afterAll, afterEach } from '../src/promptfoo/summary-hooks.js';
