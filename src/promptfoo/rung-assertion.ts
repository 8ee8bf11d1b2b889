/**
 * The shared flow of the single-rung assertions (syntax, schema, safety, execution, efficiency,
 * answerGrounding): each is the ladder run on its own subset of rungs (`runLadder` with `only`),
 * so its verdict and reason are the ladder's for that rung. A rung file only says which rung it
 * reports, which rungs it runs, and what it adds to the ladder's input:
 * 1. read and validate `config` (misuse → ERROR row naming the option and the assertion file);
 * 2. read the item from the vars (src/promptfoo/item.ts);
 * 3. run the ladder on the subset (src/promptfoo/item-ladder.ts), on the shared engine and caches;
 * 4. report the rung's result: for a `clarify` / `refuse` item the ladder's verdict on the decline
 *    (a decline: `skipped`, passes with no named score; SQL: fails with the ladder's reason); for
 *    an `answer` item the rung's own result, or `skipped` naming why the rung was not listed (L7
 *    without a prose answer); an output without SQL (missing, a decline) fails the rung with the
 *    reason the ladder gives its first rung.
 */
import type { LadderInput, LadderResult } from '../rungs/ladder.js';
import { createLadderRungs } from '../rungs/ladder-rungs.js';
import type { LadderRungOptions, LadderRungTable } from '../rungs/ladder-rungs.js';
import { createRungResult, createSkippedResult } from '../rungs/rung-result.js';
import type { LadderRungId, RungResult } from '../rungs/rung-result.js';
import { guardAssertion, toGradingResult } from './adapter.js';
import type { AssertionContext, GradingResult } from './adapter.js';
import { readAssertionOptions } from './config.js';
import type { AssertionOptions } from './config.js';
import { readItem } from './item.js';
import type { AssertionItem } from './item.js';
import { runItemLadder } from './item-ladder.js';

/** What a rung assertion's hooks receive. */
export interface RungRunArgs {
  readonly item: AssertionItem;
  readonly options: AssertionOptions;
  readonly context: AssertionContext;
  readonly output: unknown;
}

/** How one rung assertion is defined. */
export interface RungAssertionSpec {
  /** `assertions/<file>.ts:<export>`, named in errors and as the component's assertion value. */
  readonly file: string;
  /** The rung the assertion reports. */
  readonly rung: LadderRungId;
  /** The rungs it runs (default: its rung alone); a rung that reads another's result runs with it. */
  readonly only?: readonly LadderRungId[];
  /** Options accepted (COMMON_OPTIONS plus the rung's own). */
  readonly options: readonly string[];
  /** True when the rung reads a database (then an answer item must name `db` or `db_path`). */
  readonly needsDatabase: boolean;
  /** The optional rungs the run switches on (the reported one when it is optional). */
  readonly table?: LadderRungOptions;
  /** What the rung adds to the ladder's input from its own options (L6's, L7's). Throws for misuse. */
  readonly input?: (args: RungRunArgs) => Partial<LadderInput>;
  /** A last step on the rung's result with the whole run at hand (L7's optional judge). */
  readonly after?: (result: RungResult, ladder: LadderResult, args: RungRunArgs) => Promise<RungResult>;
}

/**
 * The rung's result in a ladder run of its subset (see the module doc, step 4).
 * @param ladder - the run.
 * @param rung - the rung the assertion reports.
 */
export function rungResultOf(ladder: LadderResult, rung: LadderRungId): RungResult {
  if (ladder.expectedBehavior !== 'answer') {
    return createRungResult({ rung, status: ladder.verdict === 'pass' ? 'skipped' : 'fail', reason: ladder.reason, details: { expectedBehavior: ladder.expectedBehavior } });
  }
  // No SQL to grade (a missing output, a decline): the rung fails with the reason the run's first
  // rung gave, whichever rung the assertion reports.
  if (ladder.answer.kind !== 'sql') return createRungResult({ rung, status: 'fail', reason: ladder.rungs[0]?.reason ?? ladder.reason, details: null });
  const result: RungResult | undefined = ladder.results[rung];
  if (result !== undefined) return result;
  return createSkippedResult(rung, rung === 'answer' ? 'the output has no prose answer' : 'not listed for this item');
}

/**
 * Runs one rung assertion (see the module doc).
 * @throws misuse only (LadderError naming `config.<option>` or the dataset field, plus the file).
 */
export function runRungAssertion(spec: RungAssertionSpec, output: unknown, context: AssertionContext): Promise<GradingResult> {
  return guardAssertion(spec.file, async () => {
    const ctx = context ?? {};
    const options = readAssertionOptions(ctx.config, spec.options);
    const item = await readItem(ctx, spec.needsDatabase);
    const args: RungRunArgs = { item, options, context: ctx, output };
    const rungs: LadderRungTable = createLadderRungs(spec.table ?? {});
    const ladder = await runItemLadder({ output, context: ctx, item, options, rungs, only: spec.only ?? [spec.rung], extra: spec.input?.(args) ?? {} });
    const result = rungResultOf(ladder, spec.rung);
    const final = spec.after !== undefined && ladder.expectedBehavior === 'answer' ? await spec.after(result, ladder, args) : result;
    return toGradingResult(final, { assertionValue: spec.file });
  });
}
