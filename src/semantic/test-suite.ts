/**
 * Test-suite accuracy for any schema: build (or load) the distilled suites of a dataset's golds,
 * and judge a prediction on them. The `L5_semantic` rung and the CLI are thin wrappers over
 * {@link buildTestSuite} and {@link evaluateOnSuite}.
 *
 * A suite is built once per schema and gold set (not per row): neighbours of every gold
 * (neighbours.ts), value pools from the snapshots and the golds' constants (value-pools.ts),
 * databases drawn by the generator (generate-database.ts) and distilled per gold (distill.ts). It
 * is cached by content address (suite-cache.ts). An item's suite is the snapshots plus the
 * databases kept for its golds; the item passes when some gold matches the prediction on every
 * one of them under the item's policy (the L4 rule, `checkExecution`, on more databases).
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { compareResults, type Verdict } from '../compare/compare-results.js';
import { GoldResultCache } from '../compare/gold-result-cache.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { applySqlRewrites } from '../benchmarks/spider/sql-rewrites.js';
import type { DoubleQuoteMode, Engine, ExecutionOutcome } from '../engine/engine.js';
import { sqliteLibraryVersion } from '../fixtures/build.js';
import { LadderError } from '../errors.js';
import { checkExecution, type ExecutionDetails } from '../rungs/execution.js';
import type { RungResult } from '../rungs/rung-result.js';
import { DISTILL_VERSION, distillSuites, drawStream, generatedDatabaseFile, generatedName, resolveSuiteBudget, type Coverage, type ResolvedSuiteBudget, type SkippedDatabases, type StopReason, type SuiteBudget } from './distill.js';
import { createGeneratorPlan, finiteDomains, generateDatabase, GENERATOR_VERSION, type GeneratorPlan } from './generate-database.js';
import { extractGoldLiterals } from './gold-literals.js';
import { bindInvariants, canonicalInvariants, type FixtureInvariant } from './invariants.js';
import { findNeighbours, type EquivalentCounts, type NeighbourKind, type NeighbourSet } from './neighbours.js';
import { readSchema } from './schema-reader.js';
import { contentKey, createTempFolder, defaultSuiteCacheDir, fileChecksum, publishSuite, readSuiteRecord, SUITE_FORMAT, suiteFolder } from './suite-cache.js';
import type { NullPolicy } from './value-pools.js';

/** Inputs of {@link buildTestSuite}. */
export interface BuildTestSuiteInput {
  /** Runs every gold and neighbour (child processes, deadline, caps). */
  readonly engine: Engine;
  /** A SQLite file with the schema (usually the base snapshot); read-only. */
  readonly schemaDb: string;
  /**
   * The existing snapshots: their values seed the pools and what they already distinguish needs no
   * generated database; they are part of every item's suite. Default: `[{ name: 'base', path: schemaDb }]`.
   */
  readonly snapshots?: readonly Snapshot[];
  /** Every gold on this schema (duplicates are merged). */
  readonly golds: readonly string[];
  /** The fixture's declared invariants (`readFixtureInvariants`). */
  readonly invariants?: readonly FixtureInvariant[];
  /** Any string or number; default `0`. */
  readonly seed?: string | number;
  readonly budget?: SuiteBudget;
  /** The comparison policy neighbours are told apart under (default `default`); use the items' policy. */
  readonly policy?: ComparisonPolicy | PresetName | PolicyInput;
  /** NULLs wherever the schema allows them (`allowed`, default) or only where the snapshots hold some. */
  readonly nulls?: NullPolicy;
  /** Cache folder (default {@link defaultSuiteCacheDir}). */
  readonly cacheDir?: string;
  /** Deadline per statement, ms (engine default when absent). */
  readonly timeoutMs?: number;
  /** Most neighbours per gold (default 600). */
  readonly maxNeighbours?: number;
  /** Called as the build progresses. */
  readonly onProgress?: (event: SuiteProgress) => void;
}

/** Build progress. */
export type SuiteProgress =
  | { readonly phase: 'neighbours'; readonly done: number; readonly total: number }
  | { readonly phase: 'draw'; readonly index: number; readonly activeGolds: number; readonly kept: boolean };

/** A neighbour as stored in a suite. */
export interface SuiteNeighbour {
  readonly index: number;
  readonly kind: NeighbourKind;
  readonly description: string;
  readonly sql: string;
  /** The database that first distinguished it, `null` when none did. */
  readonly coverage: Coverage | null;
}

/** The suite of one gold. */
export interface GoldSuite {
  /** The gold as given. */
  readonly sql: string;
  /** The gold as it runs (after the policy's SQL rewrites). */
  readonly executedSql: string;
  /** Draw indices of the generated databases kept for this gold, ascending. */
  readonly keptIndices: readonly number[];
  readonly neighbours: readonly SuiteNeighbour[];
  /** Candidates listed / not prepared by SQLite / equivalent by spelling / left out by the cap, and those left out as provably equivalent. */
  readonly neighbourCounts: { readonly candidates: number; readonly unprepared: number; readonly equivalent: number; readonly capped: number; readonly provablyEquivalent: EquivalentCounts };
  /** Neighbours distinguished by the snapshots. */
  readonly bySnapshots: number;
  /** Neighbours distinguished only by generated databases. */
  readonly byGenerated: number;
  /** Neighbours no database distinguished (likely equivalent; listed for review). */
  readonly undistinguished: number;
  readonly drawn: number;
  readonly skipped: SkippedDatabases;
  readonly stopReason: StopReason;
  readonly elapsedMs: number;
  readonly snapshotErrors: readonly string[];
}

/** A generated database kept in a suite (usable as a {@link Snapshot}). */
export interface SuiteDatabase extends Snapshot {
  /** Draw index: regenerate with `generateDatabase(plan, { rng: drawStream(seed, index) })`. */
  readonly index: number;
  /** `gen-<index>`. */
  readonly name: string;
  /** Absolute path in the cache folder. */
  readonly path: string;
  readonly checksum: string;
  readonly rowCounts: Readonly<Record<string, number>>;
  readonly tier: string;
}

/** A built (or loaded) test suite. */
export interface TestSuite {
  /** Content address (sha256 hex). */
  readonly key: string;
  /** The cache folder holding `suite.json` and the kept databases. */
  readonly dir: string;
  readonly generatorVersion: number;
  readonly sqliteVersion: string;
  readonly seed: string;
  readonly policy: ComparisonPolicy;
  readonly budget: ResolvedSuiteBudget;
  readonly snapshots: readonly Snapshot[];
  /** One entry per distinct gold, in first-seen order. */
  readonly golds: readonly GoldSuite[];
  /** Every generated database some gold kept, by index. */
  readonly databases: readonly SuiteDatabase[];
  /** Databases drawn in all. */
  readonly draws: number;
  readonly generationFailures: readonly { readonly index: number; readonly reason: string }[];
  /** Wall time of the build, ms (of the original build when loaded from the cache). */
  readonly buildMs: number;
  readonly fromCache: boolean;
}

interface SuiteRecord {
  readonly format: number;
  readonly key: string;
  readonly generatorVersion: number;
  readonly sqliteVersion: string;
  readonly seed: string;
  readonly budget: ResolvedSuiteBudget;
  readonly snapshots: readonly { readonly name: string; readonly checksum: string }[];
  readonly golds: readonly GoldSuite[];
  readonly databases: readonly Omit<SuiteDatabase, 'path'>[];
  readonly draws: number;
  readonly generationFailures: readonly { readonly index: number; readonly reason: string }[];
  readonly buildMs: number;
}

const INPUT_KEYS = ['engine', 'schemaDb', 'snapshots', 'golds', 'invariants', 'seed', 'budget', 'policy', 'nulls', 'cacheDir', 'timeoutMs', 'maxNeighbours', 'onProgress'];

/**
 * Builds the distilled test suites of a set of golds on one schema, or loads them from the cache.
 *
 * @returns the suite: per gold its kept databases, neighbours with coverage and never-distinguished
 *   ones; every kept database as a snapshot-like file with its checksum.
 * @throws LadderError `invalid_option` for misuse (unknown option, no golds, bad budget or
 *   policy); `db_not_found` for a missing schema database; `input_invalid` for an invariant that
 *   names no table or column of the schema.
 * @example
 * const suite = await buildTestSuite({ engine, schemaDb: base.path, snapshots, golds, invariants, seed: 1 });
 * suite.golds[0].keptIndices // e.g. [0, 3, 17]
 */
export async function buildTestSuite(input: BuildTestSuiteInput): Promise<TestSuite> {
  const started = performance.now();
  // Validate arguments.
  for (const key of Object.keys(input)) {
    if (!INPUT_KEYS.includes(key)) throw new LadderError('invalid_option', `unknown buildTestSuite option "${key}" (known: ${INPUT_KEYS.join(', ')})`);
  }
  if (!Array.isArray(input.golds) || input.golds.length === 0 || input.golds.some((g) => typeof g !== 'string' || g.trim() === '')) {
    throw new LadderError('invalid_option', 'golds must be a non-empty array of SQL strings');
  }
  if (input.engine === null || typeof input.engine !== 'object' || typeof input.engine.execute !== 'function') {
    throw new LadderError('invalid_option', 'engine must implement Engine (see createSqliteEngine)');
  }
  if (!existsSync(input.schemaDb)) throw new LadderError('db_not_found', `schemaDb ${input.schemaDb} does not exist`);
  if (input.nulls !== undefined && input.nulls !== 'allowed' && input.nulls !== 'observed') {
    throw new LadderError('invalid_option', `nulls must be 'allowed' or 'observed'; received ${JSON.stringify(input.nulls)}`);
  }
  // Apply defaults and interpret.
  const policy = resolvePolicy(input.policy as PolicyInput | undefined);
  let budget: ResolvedSuiteBudget;
  try {
    budget = resolveSuiteBudget(input.budget);
  } catch (error) {
    throw new LadderError('invalid_option', (error as Error).message, { cause: error });
  }
  const seed = String(input.seed ?? 0);
  const nulls = input.nulls ?? 'allowed';
  const schemaDb = path.resolve(input.schemaDb);
  const snapshots = (input.snapshots ?? [{ name: 'base', path: schemaDb }]).map((s) => ({ ...s, path: path.resolve(s.path), checksum: s.checksum ?? fileChecksum(s.path) }));
  const schema = readSchema(schemaDb);
  const invariants = bindInvariants(schema, input.invariants ?? []);
  const golds = [...new Set(input.golds)];
  const executed = golds.map((g) => applySqlRewrites(g, 'gold', policy.rewrites));
  const sqliteVersion = sqliteLibraryVersion();
  const cacheDir = path.resolve(input.cacheDir ?? defaultSuiteCacheDir());
  const key = contentKey({
    format: SUITE_FORMAT,
    generatorVersion: GENERATOR_VERSION,
    distillVersion: DISTILL_VERSION,
    sqliteVersion,
    schema: schema.fingerprint,
    snapshots: snapshots.map((s) => [s.name, s.checksum]),
    golds: [...executed].sort(),
    invariants: canonicalInvariants(input.invariants ?? []),
    seed,
    budget,
    nulls,
    policy: { ...policy },
    maxNeighbours: input.maxNeighbours ?? 600,
  });
  const folder = suiteFolder(cacheDir, key);
  const planFor = lazy(() => createGeneratorPlan({ schema, snapshots: snapshots.map((s) => s.path), literals: executed.flatMap((g) => extractGoldLiterals(g, schema)), invariants, nulls }));

  const cached = readSuiteRecord<SuiteRecord>(folder, key);
  if (cached !== undefined && restoreDatabases(cached, folder, planFor)) return fromRecord(cached, folder, policy, snapshots, golds, true);

  // Build.
  const catalog = await input.engine.catalog(schemaDb);
  const domains = finiteDomains(planFor());
  const rewrite = (sql: string): string => applySqlRewrites(sql, 'predicted', policy.rewrites);
  const neighbourSets: NeighbourSet[] = [];
  for (let i = 0; i < executed.length; i += 1) {
    neighbourSets.push(
      await findNeighbours({ engine: input.engine, db: schemaDb, gold: executed[i]!, schema, catalog, finiteDomains: domains, rewrite, seed, maxNeighbours: input.maxNeighbours ?? 600, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) }),
    );
    input.onProgress?.({ phase: 'neighbours', done: i + 1, total: executed.length });
  }
  const temp = createTempFolder(cacheDir, key);
  try {
    const distilled = await distillSuites({
      context: { engine: input.engine, policy, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) },
      plan: planFor(),
      snapshots,
      golds: executed.map((sql, i) => ({ sql, neighbours: neighbourSets[i]!.neighbours })),
      seed,
      budget,
      dir: temp,
      ...(input.onProgress ? { onDraw: (event: { index: number; activeGolds: number; kept: boolean }) => input.onProgress!({ phase: 'draw', ...event }) } : {}),
    });
    const record: SuiteRecord = {
      format: SUITE_FORMAT,
      key,
      generatorVersion: GENERATOR_VERSION,
      sqliteVersion,
      seed,
      budget,
      snapshots: snapshots.map((s) => ({ name: s.name, checksum: s.checksum })),
      golds: golds.map((sql, g) => {
        const d = distilled.golds[g]!;
        const set = neighbourSets[g]!;
        const neighbours = set.neighbours.map((n) => ({ index: n.index, kind: n.kind, description: n.description, sql: n.sql, coverage: d.coverage[n.index] ?? null }));
        return {
          sql,
          executedSql: executed[g]!,
          keptIndices: d.keptIndices,
          neighbours,
          neighbourCounts: { candidates: set.candidates, unprepared: set.unprepared, equivalent: set.equivalent, capped: set.capped, provablyEquivalent: set.provablyEquivalent },
          bySnapshots: d.bySnapshots,
          byGenerated: d.byGenerated,
          undistinguished: neighbours.filter((n) => n.coverage === null).length,
          drawn: d.drawn,
          skipped: d.skipped,
          stopReason: d.stopReason,
          elapsedMs: d.elapsedMs,
          snapshotErrors: d.snapshotErrors,
        };
      }),
      databases: [...distilled.databases.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, db]) => ({ index, name: generatedName(index), checksum: db.checksum, rowCounts: db.rowCounts, tier: db.tier })),
      draws: distilled.draws,
      generationFailures: distilled.generationFailures,
      buildMs: Math.round(performance.now() - started),
    };
    const published = publishSuite(temp, folder, record);
    return fromRecord(record, published, policy, snapshots, golds, false);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Regenerates kept databases that are missing or altered; false when one does not match its checksum. */
function restoreDatabases(record: SuiteRecord, folder: string, planFor: () => GeneratorPlan): boolean {
  for (const db of record.databases) {
    const file = path.join(folder, generatedDatabaseFile(db.index));
    if (existsSync(file) && fileChecksum(file) === db.checksum) continue;
    const outcome = generateDatabase(planFor(), { rng: drawStream(record.seed, db.index), file });
    if (!outcome.ok || outcome.database.checksum !== db.checksum) return false;
  }
  return true;
}

function fromRecord(record: SuiteRecord, folder: string, policy: ComparisonPolicy, snapshots: readonly Snapshot[], golds: readonly string[], fromCache: boolean): TestSuite {
  const bySql = new Map(record.golds.map((g) => [g.sql, g]));
  return {
    key: record.key,
    dir: folder,
    generatorVersion: record.generatorVersion,
    sqliteVersion: record.sqliteVersion,
    seed: record.seed,
    policy,
    budget: record.budget,
    snapshots,
    golds: golds.map((sql) => bySql.get(sql) ?? record.golds.find((g) => g.executedSql === applySqlRewrites(sql, 'gold', policy.rewrites))!),
    databases: record.databases.map((db) => ({ ...db, path: path.join(folder, generatedDatabaseFile(db.index)) })),
    draws: record.draws,
    generationFailures: record.generationFailures,
    buildMs: record.buildMs,
    fromCache,
  };
}

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

/** Two golds of one item that return different results on a suite database. */
export interface GoldDisagreement {
  readonly goldA: number;
  readonly goldB: number;
  readonly database: string;
  /** The verdict's reason (gold A taken as the reference), or the error of the gold that failed. */
  readonly reason: string;
}

/** The verdict of a prediction on an item's test suite. */
export interface SuiteEvaluation {
  /** `pass` when some gold matches on every database; `unscored` when no gold runs everywhere or the comparison is undecided. */
  readonly status: 'pass' | 'fail' | 'unscored';
  /** One line, e.g. `generated database gen-17 (orders 3 rows, …): 1 missing row, 1 extra row`. */
  readonly reason: string;
  /** The L4 rule on the suite's databases, with every per-database verdict. */
  readonly execution: RungResult<ExecutionDetails>;
  /** Databases in this item's suite (snapshots included). */
  readonly databases: number;
  /** The first database where the reported gold and the prediction differ; `null` on a pass. */
  readonly failing: {
    readonly database: string;
    readonly generated: boolean;
    readonly index: number | null;
    readonly path: string;
    readonly rowCounts: Readonly<Record<string, number>> | null;
    readonly verdict: Verdict | null;
  } | null;
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
          const verdict = compareResults(ra.result, rb.result, policy, { goldSql: golds[a]! });
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
