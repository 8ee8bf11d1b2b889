/**
 * The prompt for real providers (`file://providers/prompt.ts:text2sqlPrompt`): the question with the
 * schema rendered from the fixture, the frozen date, the business rules and the output protocol.
 * Vars read and caching: src/promptfoo/prompt-function.ts.
 */
export { OUTPUT_PROTOCOL, renderSchema, SAMPLE_ROWS_PER_TABLE, SAMPLE_VALUES_PER_COLUMN, text2sqlPrompt } from '../src/promptfoo/prompt-function.js';
export type { PromptContext } from '../src/promptfoo/prompt-function.js';
