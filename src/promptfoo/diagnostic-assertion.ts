/**
 * The shared flow of the diagnostic assertions (`components`, `exactMatch`, `astDistance`,
 * `schemaLinking`, `resultSimilarity`). Diagnostics never gate: the assertion passes whatever the
 * score, unless the config sets `threshold` (then it passes when score ≥ threshold). Its
 * `namedScores` carry the diagnostic's scores for promptfoo's metrics.
 *
 * 1. Read and validate `config` (misuse → ERROR row naming `config.<option>` and the file).
 * 2. Read the item (src/promptfoo/item.ts): gold SQL, optional database.
 * 3. Nothing to diagnose → `skipped` with the reason: a missing replay prediction, a clarify /
 *    refuse item, an item without gold SQL, or a provider that declined.
 * 4. Run the diagnostic on the extracted SQL (and the provider's retrieved `tables`) and map its
 *    RungResult with the adapter; anything else the output provokes becomes a failing result.
 */
import type { Engine } from '../engine/engine.js';
import { createSkippedResult } from '../rungs/rung-result.js';
import type { RungId, RungResult } from '../rungs/rung-result.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import type { SqlAnswer } from '../sql/provider-output.js';
import { guardAssertion, toGradingResult } from './adapter.js';
import type { AssertionContext, GradingResult } from './adapter.js';
import { COMMON_OPTIONS, configReader, readAssertionOptions } from './config.js';
import type { AssertionOptions, ConfigBlock } from './config.js';
import { itemDialect, itemEngine, missingOutputOf, readItem } from './item.js';
import type { AssertionItem } from './item.js';
import { withRequestDefaults } from './runtime.js';

/** What a diagnostic's runner receives. */
export interface DiagnosticRunArgs {
  readonly sql: string;
  /** The provider's answer (with `tables` when it reported retrieved schema elements). */
  readonly answer: SqlAnswer;
  readonly item: AssertionItem;
  readonly golds: readonly string[];
  readonly options: AssertionOptions;
  readonly config: ConfigBlock;
  /** The shared engine with `timeoutMs` / `doubleQuotes` applied, and the first snapshot; absent without a database. */
  readonly database: { readonly engine: Engine; readonly db: string } | undefined;
}

/** How one diagnostic assertion is defined. */
export interface DiagnosticAssertionSpec {
  /** `assertions/<file>.ts:<export>`. */
  readonly file: string;
  readonly rung: RungId;
  /** Options of this diagnostic beyond COMMON_OPTIONS and `threshold`. */
  readonly options: readonly string[];
  /** True when the diagnostic needs a database (then an answer item must name `db` or `db_path`). */
  readonly needsDatabase: boolean;
  /** Validates this diagnostic's own options (throws LadderError naming `config.<option>`). */
  readonly validate: (config: ConfigBlock) => void;
  readonly run: (args: DiagnosticRunArgs) => Promise<RungResult>;
}

/** A number option in [0, 1], or `undefined` when absent. */
export function readUnitInterval(config: ConfigBlock, option: string): number | undefined {
  return configReader(config).number(option, { min: 0, max: 1 });
}

/**
 * Runs one diagnostic assertion (see the module doc).
 * @throws misuse only (LadderError naming `config.<option>` or the dataset field, plus the file).
 */
export function runDiagnosticAssertion(spec: DiagnosticAssertionSpec, output: unknown, context: AssertionContext): Promise<GradingResult> {
  return guardAssertion(spec.file, async () => {
    const config = context?.config;
    const options = readAssertionOptions(config, [...COMMON_OPTIONS, 'threshold', ...spec.options]);
    const threshold = readUnitInterval(config, 'threshold');
    spec.validate(config);
    const item = await readItem(context ?? {}, spec.needsDatabase);
    // An item on a PostgreSQL fixture is read and run as PostgreSQL.
    const result = await diagnose(spec, output, context ?? {}, item, { ...options, dialect: itemDialect(item, options) }, config);
    const graded = toGradingResult(result, { assertionValue: spec.file });
    const pass = threshold === undefined || result.status === 'skipped' || result.status === 'unscored' || result.score >= threshold;
    return { ...graded, pass, componentResults: graded.componentResults?.map((c) => ({ ...c, pass })) };
  });
}

async function diagnose(
  spec: DiagnosticAssertionSpec,
  output: unknown,
  context: AssertionContext,
  item: AssertionItem,
  options: AssertionOptions,
  config: ConfigBlock,
): Promise<RungResult> {
  const missing = missingOutputOf(context);
  if (missing !== undefined) return createSkippedResult(spec.rung, missing);
  if (item.expectedBehavior !== 'answer') return createSkippedResult(spec.rung, `${item.expectedBehavior} item: diagnostics compare SQL answers only`);
  if (item.golds.length === 0) return createSkippedResult(spec.rung, 'the item has no gold_sql to compare with');
  const answer = parseProviderOutput(output);
  if (answer.kind === 'declined') return createSkippedResult(spec.rung, `the provider declined (${answer.action}): no SQL to diagnose`);
  const db = item.snapshots[0]?.path;
  const database =
    db === undefined
      ? undefined
      : {
          db,
          engine: withRequestDefaults(await itemEngine(item), {
            ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
            ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
          }),
        };
  return spec.run({ sql: answer.sql, answer, item, golds: item.golds, options, config, database });
}
