/**
 * The replay provider: grades recorded predictions (a notebook's, an agent framework's, a Spider or
 * BIRD submission) instead of calling a model. promptfoo loads it as `file://providers/replay.ts`
 * (installed: `file://node_modules/text2sql-ladder/dist/providers/replay.js`) and needs the class
 * as the default export. Options, formats and errors: src/promptfoo/replay-provider.ts.
 */
export { default, loadRecording, missingPredictionMessage } from '../src/promptfoo/replay-provider.js';
export type { Recording, ReplayCallContext, ReplayConfig, ReplayFormat, ReplayMetadata, ReplayProviderOptions } from '../src/promptfoo/replay-provider.js';
