/**
 * Judging a prediction on an item's test suite: the L4 rule (`checkExecution`) on the item's
 * snapshots plus the databases kept for its golds, the first failing database named, and golds of
 * one item that disagree on the suite reported as gold ambiguity (never silently resolved).
 */
import { applySqlRewrites } from '../benchmarks/spider/sql-rewrites.js';
import { compareResults } from '../compare/compare-results.js';
import { GoldResultCache } from '../compare/gold-result-cache.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../compare/policy.js';
import type { DoubleQuoteMode, Engine, ExecutionOutcome } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { checkExecution, type ExecutionDetails } from '../rungs/execution.js';
import type { RungResult } from '../rungs/rung-result.js';
import type { GoldDisagreement, SuiteFailure, SuiteStepDetails } from '../rungs/semantic-details.js';
import type { GoldSuite, TestSuite } from './suite-types.js';

/**
 * The databases an item is judged on: the snapshots, then the generated databases kept for any of
 * its golds (ascending index).
 * @throws LadderError `invalid_option` when a gold is not in the suite.
 */
export function suiteDatabasesFor(suite: TestSuite, golds: readonly string[]): Snapshot[] {
  const indices = new Set<number>();
  for (const gold of golds) {
    const entry = findGold(suite, gold);
    for (const index of entry.keptIndices) indices.add(index);
  }
  const byIndex = new Map(suite.databases.map((db) => [db.index, db]));
  return [...suite.snapshots, ...[...indices].sort((a, b) => a - b).map((i) => byIndex.get(i)!)];
}

/** The suite entry of a gold (matched as given, or as it runs). */
export function findGold(suite: TestSuite, gold: string): GoldSuite {
  const executed = applySqlRewrites(gold, 'gold', suite.policy.rewrites);
  const entry = suite.golds.find((g) => g.sql === gold) ?? suite.golds.find((g) => g.executedSql === executed);
  if (entry === undefined) throw new LadderError('invalid_option', `gold is not in the test suite (build it with this gold): ${gold.slice(0, 120)}`);
  return entry;
}

/** Inputs of {@link evaluateOnSuite}. */
export interface EvaluateOnSuiteInput {
  readonly engine: Engine;
  readonly suite: TestSuite;
  /** The item's golds (each must be in the suite); any one may match. */
  readonly golds: readonly string[];
  readonly predictedSql: string;
  /** Default: the suite's policy (the one its neighbours were told apart under). */
  readonly policy?: ComparisonPolicy | PresetName | PolicyInput;
  readonly timeoutMs?: number;
  /** The item's `gold_result_ordered` override. */
  readonly goldOrdered?: boolean;
  /** The item's `as_of_date` (`YYYY-MM-DD`), passed to `checkExecution` for its gold checks. */
  readonly asOfDate?: string;
  /** Shared gold-result cache (one per run is typical). */
  readonly cache?: GoldResultCache;
}

/** The verdict of a prediction on an item's test suite. */
export interface SuiteEvaluation {
  /** `pass` when some gold matches on every database; `unscored` when no gold runs everywhere or the comparison is undecided. */
  readonly status: SuiteStepDetails['status'];
  /** One line, e.g. `generated database gen-17 (orders 3 rows, …): 1 missing row, 1 extra row`. */
  readonly reason: string;
  /** The L4 rule on the suite's databases, with every per-database verdict. */
  readonly execution: RungResult<ExecutionDetails>;
  /** Databases in this item's suite (snapshots included). */
  readonly databases: number;
  /** The first database where the reported gold and the prediction differ; `null` on a pass. */
  readonly failing: SuiteFailure | null;
  /** Pairs of the item's golds that disagree on some database (gold ambiguity, reported, not resolved). */
  readonly goldAmbiguity: readonly GoldDisagreement[];
}

/**
 * Judges a prediction on an item's test suite (its snapshots plus the databases kept for its golds).
 * All SQL runs through the engine; generated databases are opened read-only like snapshots.
 *
 * @throws LadderError `invalid_option` when a gold is not in the suite or the policy is invalid.
 */
export async function evaluateOnSuite(input: EvaluateOnSuiteInput): Promise<SuiteEvaluation> {
  const policy = input.policy === undefined ? input.suite.policy : resolvePolicy(input.policy as PolicyInput);
  const databases = suiteDatabasesFor(input.suite, input.golds);
  const cache = input.cache ?? new GoldResultCache();
  const execution = await checkExecution({
    predictedSql: input.predictedSql,
    golds: input.golds,
    snapshots: databases,
    engine: input.engine,
    policy,
    cache,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
    ...(input.asOfDate === undefined ? {} : { asOfDate: input.asOfDate }),
  });
  const generated = new Map(input.suite.databases.map((db) => [db.name, db]));
  let failing: SuiteEvaluation['failing'] = null;
  let reason = execution.reason;
  if (execution.status === 'fail' && execution.details.firstFailingSnapshot !== null) {
    const name = execution.details.firstFailingSnapshot;
    const db = databases.find((d) => d.name === name)!;
    const gen = generated.get(name);
    const verdict = execution.details.snapshots.find((v) => v.snapshot === name)?.verdict ?? null;
    failing = { database: name, generated: gen !== undefined, index: gen?.index ?? null, path: db.path, rowCounts: gen?.rowCounts ?? null, verdict };
    if (gen !== undefined) {
      const sizes = Object.entries(gen.rowCounts).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(', ');
      reason = `${execution.reason.replace(/^snapshot /, 'generated database ').replace(`${name}:`, `${name} (${sizes}):`)}`;
    }
  }
  if (execution.status === 'pass') {
    const generatedCount = databases.filter((d) => generated.has(d.name)).length;
    const snapshotCount = databases.length - generatedCount;
    reason = `matches on all ${databases.length} databases of the test suite (${snapshotCount} snapshot${snapshotCount === 1 ? '' : 's'}, ${generatedCount} generated)${execution.details.goldIndex !== null && input.golds.length > 1 ? `, gold ${execution.details.goldIndex}` : ''}`;
  }
  const goldAmbiguity = input.golds.length > 1 ? await findGoldDisagreements(input, databases, cache, policy) : [];
  return { status: execution.status === 'skipped' ? 'unscored' : execution.status, reason, execution, databases: databases.length, failing, goldAmbiguity };
}

async function findGoldDisagreements(input: EvaluateOnSuiteInput, databases: readonly Snapshot[], cache: GoldResultCache, policy: ComparisonPolicy): Promise<GoldDisagreement[]> {
  const golds = input.golds.map((g) => applySqlRewrites(g, 'gold', policy.rewrites));
  // The same cache key as checkExecution's (the engine's double-quote mode and row cap), so the
  // golds' runs of the verdict are reused.
  const options = (input.engine as { readonly options?: { readonly doubleQuotes?: unknown; readonly maxRows?: unknown } }).options;
  const doubleQuotes: DoubleQuoteMode = options?.doubleQuotes === 'strict' ? 'strict' : 'legacy';
  const maxRows = typeof options?.maxRows === 'number' ? options.maxRows : undefined;
  const run = (db: Snapshot, sql: string): Promise<ExecutionOutcome> =>
    cache.getOrRun({ snapshot: db, sql, doubleQuotes, maxRows }, () =>
      input.engine.execute({ db: db.path, sql, doubleQuotes, ...(maxRows === undefined ? {} : { maxRows }), ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) }),
    ).outcome;
  const out: GoldDisagreement[] = [];
  for (let a = 0; a < golds.length; a += 1) {
    for (let b = a + 1; b < golds.length; b += 1) {
      for (const db of databases) {
        const [ra, rb] = await Promise.all([run(db, golds[a]!), run(db, golds[b]!)]);
        let reason: string | null = null;
        if (!ra.ok || !rb.ok) {
          if (ra.ok !== rb.ok) reason = `gold ${ra.ok ? b : a} fails: ${(!ra.ok ? ra : (rb as { ok: false; error: { message: string } })).error.message}`;
        } else {
          const verdict = compareResults(ra.result, rb.result, policy, { goldSql: golds[a]!, sides: { gold: `gold ${a}`, predicted: `gold ${b}` } });
          if (verdict.match === false) reason = verdict.reason;
        }
        if (reason !== null) {
          out.push({ goldA: a, goldB: b, database: db.name, reason });
          break;
        }
      }
    }
  }
  return out;
}
