/**
 * Every promptfoo assertion of the package, for `package:` references:
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: package:text2sql-ladder:assertions.ladder
 * ```
 *
 * promptfoo resolves `package:<name>:<path>` by importing the package's `<name>` entry and following
 * the dotted path, so this module re-exports each assertion under `assertions.*`. The same
 * functions load from the sources with `file://assertions/<file>.ts:<name>`.
 */
import { ladder } from './ladder.js';
import { syntax } from './syntax.js';
import { schema } from './schema.js';
import { safety } from './safety.js';
import { execution } from './execution.js';
import { components } from './components.js';
import { exactMatch } from './exact-match.js';
import { astDistance } from './ast-distance.js';
import { schemaLinking } from './schema-linking.js';
import { resultSimilarity } from './result-similarity.js';
import { reliesOnRls } from './relies-on-rls.js';
import { efficiency } from './efficiency.js';
import { answerGrounding } from './answer-grounding.js';
import type { AssertionName } from '../src/rungs/scores.js';
import type { AssertionFunction } from '../src/promptfoo/adapter.js';

/**
 * The assertion functions by name (`package:text2sql-ladder:assertions.<name>`): one per score of
 * the score table that has an assertion (src/rungs/scores.ts), checked by the compiler.
 */
export const assertions = {
  ladder,
  syntax,
  schema,
  safety,
  execution,
  components,
  exactMatch,
  astDistance,
  schemaLinking,
  resultSimilarity,
  reliesOnRls,
  efficiency,
  answerGrounding,
} as const satisfies Record<AssertionName, AssertionFunction>;

export { ladder, syntax, schema, safety, execution, components, exactMatch, astDistance, schemaLinking, resultSimilarity, reliesOnRls, efficiency, answerGrounding };
