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
import { applySqlRewrites } from '../../compare/sql-rewrites.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../../compare/policy.js';
import type { Engine } from '../../engine/engine.js';
import { LadderError } from '../../errors.js';
import { sqliteLibraryVersion } from '../../fixtures/build.js';
import type { FixtureInvariant } from '../../fixtures/fixture-invariant.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { DISTILL_VERSION, distillSuites, generatedName } from './distill.js';
import { finiteDomains } from '../generation/finite-domains.js';
import { GENERATOR_VERSION, releaseGeneratorPlan } from '../generation/generate-database.js';
import { remotePlan } from '../generation/draw-children.js';
import { createGeneratorPlan } from '../generation/generator-plan.js';
import { extractGoldLiterals } from '../model/gold-literals.js';
import { bindInvariants, canonicalInvariants } from '../model/invariants.js';
import { findNeighbours, mapConcurrent, type NeighbourSet } from '../neighbours/neighbours.js';
import { readSchema } from '../model/schema-reader.js';
import { contentKey, createTempFolder, defaultSuiteCacheDir, fileChecksum, publishSuite, readSuiteRecord, SUITE_FORMAT, suiteFolder } from './suite-cache.js';
import { resolveSuiteBudget, type ResolvedSuiteBudget, type SuiteBudget } from './suite-budget.js';
import { fromRecord, restoreDatabases, type SuiteRecord } from './suite-record.js';
import type { TestSuite } from './suite-types.js';
import type { NullPolicy } from '../generation/value-pools.js';

// Test-suite accuracy's entry: build the suites, then judge predictions on them.
export { evaluateOnSuite, findGold, suiteDatabasesFor, type EvaluateOnSuiteInput, type SuiteEvaluation } from './evaluate-on-suite.js';
export type { GoldSuite, SuiteDatabase, SuiteNeighbour, TestSuite } from './suite-types.js';

/** Golds whose neighbours are found at the same time while a suite is built. */
const NEIGHBOUR_GOLDS_AT_ONCE = 4;

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
  const planInput = lazy(() => ({ schema, snapshots: snapshots.map((s) => s.path), literals: executed.flatMap((g) => extractGoldLiterals(g, schema)), invariants, nulls }));
  const planFor = lazy(() => createGeneratorPlan(planInput()));

  const cached = readSuiteRecord<SuiteRecord>(folder, key);
  if (cached !== undefined && restoreDatabases(cached, folder, planFor)) return fromRecord(cached, folder, policy, snapshots, golds, input.invariants ?? [], true);

  // Build.
  const catalog = await input.engine.catalog(schemaDb);
  const domains = finiteDomains(planFor());
  const rewrite = (sql: string): string => applySqlRewrites(sql, 'predicted', policy.rewrites);
  // A few golds at a time: each prepares its candidates in the engine's children.
  let found = 0;
  const neighbourSets: NeighbourSet[] = await mapConcurrent(executed, NEIGHBOUR_GOLDS_AT_ONCE, async (gold) => {
    const set = await findNeighbours({ engine: input.engine, db: schemaDb, gold, schema, catalog, finiteDomains: domains, rewrite, seed, maxNeighbours: input.maxNeighbours ?? 600, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) });
    input.onProgress?.({ phase: 'neighbours', done: (found += 1), total: executed.length });
    return set;
  });
  const temp = createTempFolder(cacheDir, key);
  try {
    const distilled = await distillSuites({
      context: { engine: input.engine, policy, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) },
      plan: planFor(),
      // The draw children build the same plan from its inputs, with the snapshots' values read here.
      remote: remotePlan({ ...planInput(), observed: planFor().observed }),
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
      rejectedDatabases: distilled.rejectedDatabases,
      nulls,
      buildMs: Math.round(performance.now() - started),
    };
    const published = publishSuite(temp, folder, record);
    return fromRecord(record, published, policy, snapshots, golds, input.invariants ?? [], false);
  } finally {
    rmSync(temp, { recursive: true, force: true });
    releaseGeneratorPlan(planFor());
  }
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

