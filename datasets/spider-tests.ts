/**
 * The test generator for a Spider-format folder (`file://datasets/spider-tests.ts:spiderTests`): one
 * promptfoo test per gold item with the execution assertion. Config keys (and the SPIDER_DIR
 * environment variables) and errors: src/promptfoo/spider-tests.ts.
 */
export { executionAssertionRef, spiderTests } from '../src/promptfoo/spider-tests.js';
export type { SpiderTestsConfig } from '../src/promptfoo/spider-tests.js';
