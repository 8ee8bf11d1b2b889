/**
 * The test generator for a dataset file: one promptfoo test per item with the ladder assertion.
 *
 * ```yaml
 * tests:
 *   - path: file://datasets/promptfoo-tests.ts:loadTests        # from a clone (TypeScript via tsx)
 *   # - path: file://node_modules/text2sql-ladder/dist/datasets/promptfoo-tests.js:loadTests   # installed
 *     config: { file: datasets/warehouse.yaml, ladder: { policy: default } }
 * ```
 * Config keys and errors: src/promptfoo/dataset-tests.ts.
 */
export { flattenTags, ladderAssertionRef, loadTests, resolveDatasetFile, toTestCase } from '../src/promptfoo/dataset-tests.js';
export type { LoadTestsConfig, PromptfooAssertion, PromptfooTestCase } from '../src/promptfoo/dataset-tests.js';
