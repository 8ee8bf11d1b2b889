/**
 * One promptfoo row through the ladder: the input every promptfoo assertion that runs rungs gives
 * `runLadder` (the `ladder` assertion with every rung, a single-rung assertion with its subset),
 * built once here from the item, the assertion's options and the provider output, on the
 * process's shared engine of the item's databases (PostgreSQL for an item on a PostgreSQL fixture,
 * judged in its dialect), gold and L6 caches.
 */
import type { LadderInput, LadderResult } from '../rungs/ladder.js';
import { runLadder } from '../rungs/ladder.js';
import type { LadderRungTable } from '../rungs/ladder-rungs.js';
import { withCachedCatalogs } from '../runtime/catalog-cache.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { LadderError } from '../errors.js';
import { readTrajectory } from '../trajectory/steps.js';
import type { AssertionContext } from './adapter.js';
import type { AssertionOptions } from './config.js';
import { itemDialect, itemEngine, missingOutputOf } from './item.js';
import type { AssertionItem } from './item.js';
import { resolveFixtureOnce, sharedCatalogCache, sharedEfficiencyCache, sharedGoldCache, withRequestDefaults } from './runtime.js';

/** What {@link runItemLadder} runs. */
export interface ItemLadderRun {
  /** The provider output. */
  readonly output: unknown;
  readonly context: AssertionContext;
  readonly item: AssertionItem;
  readonly options: AssertionOptions;
  /** The rung table (the optional rungs the assertion reports, switched on). */
  readonly rungs: LadderRungTable;
  /** The subset to run (`LadderInput.only`); absent: every rung of the table. */
  readonly only?: LadderInput['only'];
  /** Inputs beyond the item and the common options (L6's and L7's options, the fixture's invariants). */
  readonly extra?: Partial<LadderInput>;
}

/**
 * Runs the ladder on one promptfoo row (see the module doc).
 * @throws LadderError for misuse only (a bad option, an item without the database it needs); the
 *   model's output never throws.
 */
export async function runItemLadder(run: ItemLadderRun): Promise<LadderResult> {
  const { item, options } = run;
  const missing = missingOutputOf(run.context);
  // A malformed trajectory is the harness's fault, not the model's: an ERROR row naming the item and step.
  const trajectory = missing === undefined ? (readTrajectory(run.output, `item ${item.id}`) ?? null) : null;
  const safety = item.expectedBehavior === 'answer' ? await safetyPolicyFor(options, item) : undefined;
  // L2 reads the first snapshot's catalog on every row: the process reads it once per file.
  const engine = withCachedCatalogs(
    withRequestDefaults(await itemEngine(item), {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
    }),
    sharedCatalogCache(),
  );
  return runLadder(
    {
      output: run.output,
      expectedBehavior: item.expectedBehavior,
      golds: item.golds,
      snapshots: item.snapshots,
      dialect: itemDialect(item, options),
      engine,
      comparisonPolicy: options.policy,
      executionCache: sharedGoldCache(),
      efficiencyCache: sharedEfficiencyCache(),
      ...(missing !== undefined ? { missingOutput: missing } : {}),
      ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
      ...(safety !== undefined ? { safetyPolicy: safety } : {}),
      ...(item.goldOrdered !== undefined ? { goldOrdered: item.goldOrdered } : {}),
      ...(item.question !== undefined ? { question: item.question } : {}),
      ...(item.asOfDate !== undefined ? { asOfDate: item.asOfDate } : {}),
      ...(run.only !== undefined ? { only: run.only } : {}),
      trajectory,
      ...(options.trajectory !== undefined && run.only === undefined ? { trajectoryOptions: options.trajectory } : {}),
      ...run.extra,
    },
    run.rungs,
  );
}

/**
 * The safety policy for an item: `allowedTables: role` becomes the tables the item's role may read,
 * and so does an absent `allowedTables` on an item that has a fixture and a role (L3's allowed
 * tables default to the role's).
 * @throws LadderError('invalid_option') when `role` is used on an item without fixture or role.
 */
export async function safetyPolicyFor(options: AssertionOptions, item: AssertionItem): Promise<SafetyPolicy | undefined> {
  const safety = options.safety;
  if (safety?.allowedTables === undefined && item.db !== undefined && item.role !== undefined) {
    const fixture = await resolveFixtureOnce(item.db, item.role);
    return { ...(safety as SafetyPolicy | undefined), allowedTables: fixture.roles[item.role]?.tables ?? [] };
  }
  if (safety === undefined) return undefined;
  if (safety.allowedTables !== 'role') return safety as SafetyPolicy;
  if (item.db === undefined || item.role === undefined) {
    throw new LadderError('invalid_option', `config.safety.allowedTables: "role" needs an item with a fixture (db) and a role; item ${item.id} has ${item.db === undefined ? 'no fixture' : 'no role'}`);
  }
  const fixture = await resolveFixtureOnce(item.db, item.role);
  return { ...safety, allowedTables: fixture.roles[item.role]?.tables ?? [] };
}
