/**
 * The shared flow of the single-rung assertions (syntax, schema, safety, execution), so each rung
 * file only says how to call its rung:
 * 1. read and validate `config` (misuse → ERROR row naming the option and the assertion file);
 * 2. read the item from the vars (src/promptfoo/item.ts);
 * 3. read the output: a replay without a prediction fails; for `clarify` / `refuse` items the rung
 *    does not run — a decline gives a `skipped` rung (passes, no named score), SQL fails;
 *    an `answer` item answered with a decline fails the rung;
 * 4. run the rung on the SQL and map its RungResult with the adapter.
 */
import type { Engine } from '../engine/engine.js';
import type { GateInput } from '../rungs/gates.js';
import { judgeDecline } from '../rungs/ladder.js';
import { createRungResult } from '../rungs/rung-result.js';
import type { RungId, RungResult } from '../rungs/rung-result.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import { guardAssertion, toGradingResult } from './adapter.js';
import type { AssertionContext, GradingResult } from './adapter.js';
import { readAssertionOptions } from './config.js';
import type { AssertionOptions } from './config.js';
import { missingOutputOf, readItem } from './item.js';
import type { AssertionItem } from './item.js';
import { getSharedEngine, withRequestDefaults } from './runtime.js';

/** What a rung's runner receives. */
export interface RungRunArgs {
  readonly sql: string;
  readonly item: AssertionItem;
  readonly options: AssertionOptions;
  /** The shared engine with this assertion's `timeoutMs` / `doubleQuotes` applied. */
  readonly engine: Engine;
  readonly context: AssertionContext;
  /** The gate runner's input for this item (SQL, dialect, engine, first snapshot, double quotes). */
  readonly gateInput: GateInput;
}

/** How one rung assertion is defined. */
export interface RungAssertionSpec {
  /** `assertions/<file>.ts:<export>`, named in errors and as the component's assertion value. */
  readonly file: string;
  readonly rung: RungId;
  /** Options accepted (COMMON_OPTIONS plus the rung's own). */
  readonly options: readonly string[];
  /** True when the rung reads a database (then an answer item must name `db` or `db_path`). */
  readonly needsDatabase: boolean;
  readonly run: (args: RungRunArgs) => Promise<RungResult>;
}

/**
 * Runs one rung assertion (see the module doc).
 * @throws misuse only (LadderError naming `config.<option>` or the dataset field, plus the file).
 */
export function runRungAssertion(spec: RungAssertionSpec, output: unknown, context: AssertionContext): Promise<GradingResult> {
  return guardAssertion(spec.file, async () => {
    const options = readAssertionOptions(context?.config, spec.options);
    const item = await readItem(context ?? {}, spec.needsDatabase);
    const missing = missingOutputOf(context ?? {});
    const grade = (result: RungResult) => toGradingResult(result, { assertionValue: spec.file });

    if (item.expectedBehavior !== 'answer') {
      const decline = judgeDecline(item.expectedBehavior, missing !== undefined ? { kind: 'missing', message: missing } : parseProviderOutput(output));
      return grade(createRungResult({ rung: spec.rung, status: decline.verdict === 'pass' ? 'skipped' : 'fail', reason: decline.reason, details: { expectedBehavior: item.expectedBehavior } }));
    }
    if (missing !== undefined) return grade(createRungResult({ rung: spec.rung, status: 'fail', reason: missing, details: { output: 'missing' } }));

    const answer = parseProviderOutput(output);
    if (answer.kind === 'declined') {
      const reason = `expected an answer, but the provider declined (${answer.action})${answer.message ? `: ${answer.message}` : ''}`;
      return grade(createRungResult({ rung: spec.rung, status: 'fail', reason, details: { output: `declined:${answer.action}` } }));
    }
    const engine = withRequestDefaults(getSharedEngine(), {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
    });
    const db = firstDatabase(item);
    const gateInput: GateInput = {
      sql: answer.sql,
      dialect: options.dialect,
      engine,
      ...(db !== undefined ? { db } : {}),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
      ...(answer.probes !== undefined && answer.probes.length > 0 ? { probes: answer.probes } : {}),
    };
    return grade(await spec.run({ sql: answer.sql, item, options, engine, context: context ?? {}, gateInput }));
  });
}

/** The first snapshot's path, when the item has one. */
export function firstDatabase(item: AssertionItem): string | undefined {
  return item.snapshots[0]?.path;
}
