/**
 * Judging a prediction on an item's test suite: the L4 rule (`checkExecution`) on the item's
 * snapshots, then the databases kept for its golds judged as the counterexample search judges a
 * database (the item's policy and `emptyVsNullRow`, order independence, the contract of generated
 * databases); the first failing database named, and golds of one item that disagree on the suite
 * reported as gold ambiguity (never silently resolved).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applySqlRewrites } from '../../compare/sql-rewrites.js';
import { compareResults } from '../../compare/compare-results.js';
import { GoldResultCache } from '../../compare/gold-result-cache.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../../compare/policy.js';
import type { DoubleQuoteMode, Engine, ExecutionOutcome } from '../../engine/engine.js';
import { LadderError } from '../../errors.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { checkExecution, type ExecutionDetails } from '../../rungs/execution.js';
import type { RungResult } from '../../rungs/rung-result.js';
import type { GoldDisagreement, SuiteFailure, SuiteStepDetails } from '../../rungs/semantic-details.js';
import { parseSql, type ParseResult } from '../../sql/parse.js';
import { countRejection, type DatabaseContract, type RejectedDatabases } from '../generation/database-contract.js';
import { DEFAULT_EMPTY_VS_NULL_ROW, type EmptyVsNullRow } from '../model/empty-vs-null-row.js';
import { createGeneratorPlan } from '../generation/generator-plan.js';
import { bindInvariants } from '../model/invariants.js';
import { readSchema } from '../model/schema-reader.js';
import type { GoldSuite, SuiteDatabase, TestSuite } from './suite-types.js';
import { judgeGeneratedDatabase, type DatabaseJudgement, type GoldJudgement, type JudgeContext } from './witness-check.js';

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
  /** How an empty result against one row of NULLs is judged on a generated database (default `same`: it refutes nothing), as in the counterexample search. */
  readonly emptyVsNullRow?: EmptyVsNullRow;
  /** Shared gold-result cache (one per run is typical). */
  readonly cache?: GoldResultCache;
}

/** The verdict of a prediction on an item's test suite. */
export interface SuiteEvaluation {
  /** `pass` when some gold matches on every database; `unscored` when no gold runs on every snapshot or the comparison is undecided there. */
  readonly status: SuiteStepDetails['status'];
  /** One line, e.g. `generated database gen-17 (orders 3, …): 1 missing row, 1 extra row` or `snapshot base: gold [3] vs predicted [4]`. */
  readonly reason: string;
  /** The L4 rule on the item's snapshots, with every per-snapshot verdict. */
  readonly execution: RungResult<ExecutionDetails>;
  /** Databases in this item's suite (snapshots included). */
  readonly databases: number;
  /** The first database where the reported gold and the prediction differ; `null` on a pass. */
  readonly failing: SuiteFailure | null;
  /** Pairs of the item's golds that disagree on some database (gold ambiguity, reported, not resolved). */
  readonly goldAmbiguity: readonly GoldDisagreement[];
  /** Kept databases dropped because they broke the contract of generated databases when judged (database-contract.ts), by rule. */
  readonly rejectedDatabases: RejectedDatabases;
}

/**
 * Judges a prediction on an item's test suite: the snapshots under the L4 rule (one gold must
 * match on every snapshot), then the generated databases kept for its golds the way the
 * counterexample search judges a database (witness-check.ts): the item's comparison policy and
 * `emptyVsNullRow`, a gold whose answer is not determined there tells nothing, a distinction must
 * survive every reordering of the rows, and the database must keep the contract of generated
 * databases. The item passes when some gold that matches on every snapshot is refuted by no
 * generated database. All SQL runs through the engine; databases are opened read-only.
 *
 * @throws LadderError `invalid_option` when a gold is not in the suite or the policy is invalid.
 */
export async function evaluateOnSuite(input: EvaluateOnSuiteInput): Promise<SuiteEvaluation> {
  const policy = input.policy === undefined ? input.suite.policy : resolvePolicy(input.policy as PolicyInput);
  const cache = input.cache ?? new GoldResultCache();
  const onSnapshots = await judgeOnSnapshots({ ...input, policy, cache });
  return evaluateAfterSnapshots({ ...input, policy, cache }, onSnapshots);
}

/** The L4 rule on the suite's snapshots ({@link judgeOnSnapshots}'s result). */
export type SnapshotJudgement = Awaited<ReturnType<typeof judgeOnSnapshots>>;

/**
 * {@link evaluateOnSuite} once the snapshots are judged (`checkSemantic` judges them first, to name a
 * snapshot that already refutes, and does not run them twice).
 */
export async function evaluateAfterSnapshots(
  input: EvaluateOnSuiteInput & { readonly policy: ComparisonPolicy; readonly cache: GoldResultCache },
  onSnapshots: SnapshotJudgement,
): Promise<SuiteEvaluation> {
  const { policy, cache } = input;
  const databases = suiteDatabasesFor(input.suite, input.golds);
  const generated = databases.slice(input.suite.snapshots.length) as SuiteDatabase[];
  const goldAmbiguity = input.golds.length > 1 ? await findGoldDisagreements(input, databases, cache, policy) : [];
  const base = { execution: onSnapshots.execution, databases: databases.length, goldAmbiguity };
  if (onSnapshots.execution.status !== 'pass') {
    return { ...base, status: onSnapshots.execution.status === 'fail' ? 'fail' : 'unscored', reason: onSnapshots.execution.reason, failing: onSnapshots.failing, rejectedDatabases: {} };
  }
  const step = await judgeGeneratedDatabases({ ...input, policy, databases: generated, matchingGolds: onSnapshots.matchingGolds });
  if (step.refutation === null) {
    const snapshotCount = databases.length - generated.length;
    const gold = input.golds.length > 1 ? `, gold ${step.standing[0]}` : '';
    const reason = `matches on all ${databases.length} databases of the test suite (${snapshotCount} snapshot${snapshotCount === 1 ? '' : 's'}, ${generated.length} generated)${gold}`;
    return { ...base, status: 'pass', reason, failing: null, rejectedDatabases: step.rejectedDatabases };
  }
  return { ...base, status: 'fail', reason: step.refutation.reason, failing: step.refutation.failing, rejectedDatabases: step.rejectedDatabases };
}

/**
 * The L4 rule (`checkExecution`) on the suite's snapshots.
 * @returns L4's result, the first failing snapshot (`null` unless the status is `fail`), and the
 *   indices of the golds that match on every snapshot (each gold on its own when there are several;
 *   empty unless the status is `pass`).
 * @throws LadderError as `checkExecution` (a missing snapshot, a bad policy).
 */
export async function judgeOnSnapshots(
  input: Pick<EvaluateOnSuiteInput, 'engine' | 'golds' | 'predictedSql' | 'timeoutMs' | 'goldOrdered' | 'asOfDate'> & {
    readonly suite: Pick<TestSuite, 'snapshots'>;
    readonly policy: ComparisonPolicy;
    readonly cache: GoldResultCache;
  },
): Promise<{ readonly execution: RungResult<ExecutionDetails>; readonly failing: SuiteFailure | null; readonly matchingGolds: readonly number[] }> {
  const run = (golds: readonly string[]): Promise<RungResult<ExecutionDetails>> =>
    checkExecution({
      predictedSql: input.predictedSql,
      golds,
      snapshots: input.suite.snapshots,
      engine: input.engine,
      policy: input.policy,
      cache: input.cache,
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
      ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
      ...(input.asOfDate === undefined ? {} : { asOfDate: input.asOfDate }),
    });
  const execution = await run(input.golds);
  let failing: SuiteFailure | null = null;
  if (execution.status === 'fail' && execution.details.firstFailingSnapshot !== null) {
    const name = execution.details.firstFailingSnapshot;
    const snapshot = input.suite.snapshots.find((s) => s.name === name)!;
    const verdict = execution.details.snapshots.find((v) => v.snapshot === name)?.verdict ?? null;
    failing = { database: name, generated: false, index: null, path: snapshot.path, rowCounts: null, verdict };
  }
  if (execution.status !== 'pass') return { execution, failing, matchingGolds: [] };
  // The L4 rule names one matching gold; with several golds, the others may match too.
  const matchingGolds: number[] = [];
  for (let g = 0; g < input.golds.length; g += 1) {
    if (g === execution.details.goldIndex || (input.golds.length > 1 && (await run([input.golds[g]!])).status === 'pass')) matchingGolds.push(g);
  }
  return { execution, failing, matchingGolds };
}

/** What the generated databases of a suite showed for the golds that matched on the snapshots. */
export interface GeneratedStep {
  /** Golds no database refuted (ascending); empty when the prediction is refuted. */
  readonly standing: readonly number[];
  /** The refutation reported when every gold is refuted: of the first gold, on the first database that refutes it. */
  readonly refutation: { readonly reason: string; readonly failing: SuiteFailure } | null;
  readonly rejectedDatabases: RejectedDatabases;
}

/**
 * Judges the suite's generated databases for the golds that matched on every snapshot (the
 * search's judgement; see {@link evaluateOnSuite}), ascending by draw index, until every gold is
 * refuted or the databases run out.
 */
export async function judgeGeneratedDatabases(
  input: Pick<EvaluateOnSuiteInput, 'engine' | 'golds' | 'predictedSql' | 'timeoutMs' | 'goldOrdered' | 'emptyVsNullRow'> & {
    readonly suite: TestSuite;
    readonly policy: ComparisonPolicy;
    /** The suite's generated databases to judge (the ones kept for the item's golds). */
    readonly databases: readonly SuiteDatabase[];
    readonly matchingGolds: readonly number[];
  },
): Promise<GeneratedStep> {
  const standing = new Set(input.matchingGolds);
  let rejectedDatabases: RejectedDatabases = {};
  const refutations = new Map<number, { reason: string; failing: SuiteFailure }>();
  if (input.databases.length === 0 || standing.size === 0) return { standing: [...standing], refutation: null, rejectedDatabases };
  const golds = input.golds.map((g) => applySqlRewrites(g, 'gold', input.policy.rewrites));
  const predicted = applySqlRewrites(input.predictedSql, 'predicted', input.policy.rewrites);
  const parses = new Map<string, ParseResult>();
  const judge: JudgeContext = {
    engine: input.engine,
    policy: input.policy,
    emptyVsNullRow: input.emptyVsNullRow ?? DEFAULT_EMPTY_VS_NULL_ROW,
    parse: (sql) => parses.get(sql) ?? parses.set(sql, parseSql(sql, 'sqlite')).get(sql)!,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
  };
  const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-suite-judge-'));
  try {
    for (const db of input.databases) {
      if (standing.size === 0) break;
      const outcome = await judgeGeneratedDatabase(judge, contractOf(input.suite), db.path, path.join(scratchDir, 'reordered.sqlite'), golds, predicted, standing);
      if (outcome.kind === 'rejected') {
        rejectedDatabases = countRejection(rejectedDatabases, outcome.violation.rule);
        continue;
      }
      for (const g of outcome.refuted) {
        standing.delete(g);
        refutations.set(g, describeRefutation(db, outcome.judgement, g, input.golds.length));
      }
    }
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
  const first = input.matchingGolds.find((g) => refutations.has(g));
  return { standing: [...standing].sort((a, b) => a - b), refutation: standing.size === 0 && first !== undefined ? refutations.get(first)! : null, rejectedDatabases };
}

/** `generated database gen-3 (customers 6, orders 10): gold [6] vs predicted [10]` and the failing database. */
function describeRefutation(db: SuiteDatabase, judgement: DatabaseJudgement, gold: number, goldCount: number): { reason: string; failing: SuiteFailure } {
  const judged = judgement.golds[gold] as Extract<GoldJudgement, { kind: 'distinguished' }>;
  const sizes = Object.entries(db.rowCounts).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(', ');
  const goldNote = goldCount > 1 ? ` gold ${gold}:` : '';
  const predicted = judgement.predicted;
  const detail = judged.how === 'error' && !predicted.ok ? `prediction failed (${predicted.error.code}): ${predicted.error.message}` : judged.detail;
  return {
    reason: `generated database ${db.name}${sizes === '' ? '' : ` (${sizes})`}:${goldNote} ${detail}`,
    failing: { database: db.name, generated: true, index: db.index, path: db.path, rowCounts: db.rowCounts, verdict: judged.verdict },
  };
}

/** The contract a suite's databases were drawn under (its schema, invariants and NULL policy), built once per suite. */
const contracts = new WeakMap<TestSuite, DatabaseContract>();
function contractOf(suite: TestSuite): DatabaseContract {
  let contract = contracts.get(suite);
  if (contract === undefined) {
    const schemaDb = suite.snapshots[0]!.path;
    const schema = readSchema(schemaDb);
    contract = createGeneratorPlan({ schema, snapshots: suite.snapshots.map((s) => s.path), invariants: bindInvariants(schema, suite.invariants), nulls: suite.nulls }).contract;
    contracts.set(suite, contract);
  }
  return contract;
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
