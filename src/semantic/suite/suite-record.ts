/**
 * A test suite as stored in its cache folder (`suite.json` beside the kept databases), and back:
 * the record restores a {@link TestSuite}, regenerating any kept database that is missing or
 * altered from its draw index (the generator's bytes are deterministic).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { applySqlRewrites } from '../../compare/sql-rewrites.js';
import type { ComparisonPolicy } from '../../compare/policy.js';
import type { FixtureInvariant } from '../../fixtures/fixture-invariant.js';
import type { RejectedDatabases } from '../generation/database-contract.js';
import type { NullPolicy } from '../generation/value-pools.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { drawStream, generatedDatabaseFile } from './distill.js';
import { generateDatabase } from '../generation/generate-database.js';
import type { GeneratorPlan } from '../generation/generator-plan.js';
import type { ResolvedSuiteBudget } from './suite-budget.js';
import { fileChecksum } from './suite-cache.js';
import type { GoldSuite, SuiteDatabase, TestSuite } from './suite-types.js';

/** `suite.json`: the suite without its absolute paths and policy object. */
export interface SuiteRecord {
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
  readonly rejectedDatabases: RejectedDatabases;
  readonly nulls: NullPolicy;
  readonly buildMs: number;
}

/** Regenerates kept databases that are missing or altered; false when one does not match its checksum. */
export function restoreDatabases(record: SuiteRecord, folder: string, planFor: () => GeneratorPlan): boolean {
  for (const db of record.databases) {
    const file = path.join(folder, generatedDatabaseFile(db.index));
    if (existsSync(file) && fileChecksum(file) === db.checksum) continue;
    const outcome = generateDatabase(planFor(), { rng: drawStream(record.seed, db.index), file });
    if (!outcome.ok || outcome.database.checksum !== db.checksum) return false;
  }
  return true;
}

/** The suite a record describes, its databases in `folder`; `invariants` are the ones it was built with. */
export function fromRecord(
  record: SuiteRecord,
  folder: string,
  policy: ComparisonPolicy,
  snapshots: readonly Snapshot[],
  golds: readonly string[],
  invariants: readonly FixtureInvariant[],
  fromCache: boolean,
): TestSuite {
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
    rejectedDatabases: record.rejectedDatabases,
    nulls: record.nulls,
    invariants,
    buildMs: record.buildMs,
    fromCache,
  };
}
