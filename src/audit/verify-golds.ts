/**
 * Runs every gold query of dataset items on every snapshot they name, through the Engine (the same
 * read-only, killable SQLite children as the ladder, exact integers), and checks what reviewers
 * must know before trusting a dataset (*How to evaluate SQL queries that run successfully but return the wrong answer*, "Review after data or schema changes"):
 * - each gold runs without error on each snapshot;
 * - several golds of one item agree on every snapshot: each later gold matches the first under the
 *   item's comparison policy exactly as L4 would judge a prediction (`checkExecution`: the policy's
 *   column map, float tolerance and row order, the item's `gold_result_ordered`);
 * - which snapshots give an empty gold result (to be paired with a non-empty twin).
 */
import { resolvePolicy } from '../compare/policy.js';
import type { ComparisonPolicy, PolicyInput, PresetName } from '../compare/policy.js';
import type { Cell, ExecutionOutcome } from '../engine/engine.js';
import type { ResolveFixtureOptions } from '../fixtures/registry.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { checkExecution, type ExecutionDetails } from '../rungs/execution.js';
import { runDefaults } from './audit-result.js';
import type { RungResult } from '../rungs/rung-result.js';
import { createLadderRuntime } from '../runtime/ladder-runtime.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import type { DatasetItem } from '../dataset/item.js';

/** A result read by position: column names apart from rows of cells. */
export interface GoldRows {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

/** One gold on one snapshot. */
export type GoldRun = { readonly ok: true; readonly result: GoldRows } | { readonly ok: false; readonly error: string };

/** One item on one snapshot. */
export interface SnapshotCheck {
  readonly snapshot: string;
  /** Absolute path of the database the golds ran on (role-scoped when the item has a role). */
  readonly path: string;
  /** One entry per gold, in the item's order. */
  readonly runs: readonly GoldRun[];
  /** True when every gold ran and each later gold matches the first under the policy. */
  readonly agree: boolean;
  /** True when the (first) gold ran and returned no rows. */
  readonly empty: boolean;
}

/** The checks of one item. */
export interface ItemCheck {
  readonly id: string;
  readonly snapshots: readonly SnapshotCheck[];
  /** Human-readable problems (gold errors, disagreeing golds, unknown snapshots); empty when fine. */
  readonly problems: readonly string[];
}

/** Options of {@link verifyDatasetGolds}. */
export interface VerifyGoldsOptions extends Omit<ResolveFixtureOptions, 'role'> {
  /**
   * The runtime whose engine, gold cache and fixtures to use. Default: one of its own (fixtures
   * from `fixturesDir` / `cacheDir`), closed at the end.
   */
  readonly runtime?: LadderRuntime;
  /** The comparison policy golds must agree under (default `default`, as the ladder's). */
  readonly policy?: PresetName | PolicyInput | ComparisonPolicy;
}

/**
 * Checks the golds of `items` on their snapshots (every snapshot of the fixture when an item
 * names none; role-scoped snapshots when it has a role). Items without gold are skipped.
 *
 * @returns one {@link ItemCheck} per item with gold SQL, in input order.
 * @throws LadderError from the fixture registry for an unknown fixture or role; `invalid_option`
 *   for a bad policy.
 */
export async function verifyDatasetGolds(items: readonly DatasetItem[], options: VerifyGoldsOptions = {}): Promise<ItemCheck[]> {
  // Apply defaults.
  const { runtime: given, policy: policyInput, ...fixtureOptions } = options;
  const runtime = given ?? createLadderRuntime({ fixtures: fixtureOptions });
  // Validate and interpret the options.
  const policy = resolvePolicy(policyInput);
  try {
    const checks: ItemCheck[] = [];
    for (const item of items) {
      if (item.gold_sql.length > 0) checks.push(await verifyItem(item, runtime, policy));
    }
    return checks;
  } finally {
    if (given === undefined) await runtime.close();
  }
}

async function verifyItem(item: DatasetItem, runtime: LadderRuntime, policy: ComparisonPolicy): Promise<ItemCheck> {
  const fixture = await runtime.resolveFixture(item.db, item.role);
  const problems: string[] = [];
  const wanted = item.snapshots ?? fixture.snapshots.map((s) => s.name);
  const snapshots: Snapshot[] = [];
  for (const name of wanted) {
    const snapshot = fixture.snapshots.find((s) => s.name === name);
    if (snapshot) snapshots.push(snapshot);
    else problems.push(`snapshot "${name}" is not one of ${fixture.snapshots.map((s) => s.name).join(', ')}`);
  }
  const snapshotRuns = await runGoldsOnSnapshots({ golds: item.gold_sql, snapshots, runtime, policy, ...(item.gold_result_ordered !== undefined ? { goldOrdered: item.gold_result_ordered } : {}) });
  const snapshotChecks = snapshotRuns.map(({ snapshot, outcomes, agreement }): SnapshotCheck => {
    const runs = outcomes.map(toGoldRun);
    runs.forEach((run, index) => {
      if (!run.ok) problems.push(`gold ${index + 1} fails on ${snapshot.name}: ${run.error}`);
    });
    const agree = runs.every((run) => run.ok) && agreement.every((verdict) => verdict === undefined || verdict.status === 'pass');
    if (runs.every((run) => run.ok) && !agree) problems.push(`golds disagree on ${snapshot.name}`);
    const first = runs[0];
    return { snapshot: snapshot.name, path: snapshot.path, runs, agree, empty: first !== undefined && first.ok && first.result.rows.length === 0 };
  });
  return { id: item.id, snapshots: snapshotChecks, problems };
}

/** Every gold of one item on one snapshot. */
export interface GoldSnapshotRuns {
  readonly snapshot: Snapshot;
  /** One outcome per gold, in the item's order (from the runtime's gold cache). */
  readonly outcomes: readonly ExecutionOutcome[];
  /**
   * By gold index: the L4 verdict of that gold judged against gold 0 on this snapshot
   * (`checkExecution`, gold 0 as the gold); `undefined` for gold 0 and when either did not run.
   */
  readonly agreement: readonly (RungResult<ExecutionDetails> | undefined)[];
}

/** What {@link runGoldsOnSnapshots} reads. */
export interface GoldRunsInput {
  /** The item's golds, in its order. */
  readonly golds: readonly string[];
  /** Where to run them (already role-scoped). */
  readonly snapshots: readonly Snapshot[];
  readonly runtime: LadderRuntime;
  readonly policy: ComparisonPolicy;
  /** The item's `gold_result_ordered`. */
  readonly goldOrdered?: boolean;
}

/**
 * Runs every gold on every snapshot through the runtime's engine and gold cache (keyed as L4 keys
 * them: the engine's double-quote mode and row cap), and judges each later gold against the first
 * on each snapshot as L4 would judge a prediction.
 *
 * @returns one entry per snapshot, in the order given.
 */
export async function runGoldsOnSnapshots(input: GoldRunsInput): Promise<GoldSnapshotRuns[]> {
  const { golds, runtime, policy } = input;
  // Every snapshot of one item runs on one engine (a fixture's dialect).
  const engine = await runtime.engineForSnapshot(input.snapshots[0] ?? {});
  const { doubleQuotes, maxRows } = runDefaults(engine);
  const results: GoldSnapshotRuns[] = [];
  for (const snapshot of input.snapshots) {
    const outcomes = await Promise.all(
      golds.map((sql) => runtime.goldCache.getOrRun({ snapshot, sql, doubleQuotes, maxRows }, () => engine.execute({ db: snapshot.path, sql, doubleQuotes, maxRows })).outcome),
    );
    const agreement: (RungResult<ExecutionDetails> | undefined)[] = [undefined];
    for (let g = 1; g < golds.length; g += 1) {
      if (!outcomes[0]!.ok || !outcomes[g]!.ok) {
        agreement.push(undefined);
        continue;
      }
      agreement.push(
        await checkExecution({
          predictedSql: golds[g]!,
          golds: [golds[0]!],
          snapshots: [snapshot],
          engine,
          policy,
          cache: runtime.goldCache,
          sides: { gold: 'gold 0', predicted: `gold ${g}` },
          ...(input.goldOrdered !== undefined ? { goldOrdered: input.goldOrdered } : {}),
        }),
      );
    }
    results.push({ snapshot, outcomes, agreement });
  }
  return results;
}

function toGoldRun(outcome: ExecutionOutcome): GoldRun {
  return outcome.ok ? { ok: true, result: { columns: outcome.result.columns, rows: outcome.result.rows } } : { ok: false, error: outcome.error.message };
}
