/**
 * What the L5 semantic rung shares across the items of one run: the distilled test suites (one per
 * schema, policy and suite options, built with every gold the front end announced) and the
 * counterexample searchers (one per schema and value sources). A front end holds one, in its runtime
 * (src/runtime/ladder-runtime.ts), and closes it when the run ends.
 *
 * Suites are built once per dataset when the front end announces the dataset's golds first
 * ({@link SemanticService.prepareSuite}, as `spider --test-suite` does); otherwise the first item
 * of a schema builds a suite for its own golds, and a later item whose golds are not in any built
 * suite builds one for its golds. Either way a suite is content-addressed on disk, so the next run
 * reads it from the cache.
 */
import path from 'node:path';
import { applySqlRewrites } from '../benchmarks/spider/sql-rewrites.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { createCounterexampleSearcher, type CounterexampleSearcher } from './counterexample-search.js';
import type { SuiteBudget } from './distill.js';
import { canonicalInvariants } from './invariants.js';
import { readSchema } from './schema-reader.js';
import type { TestSuite } from './suite-types.js';
import { buildTestSuite } from './test-suite.js';
import type { NullPolicy } from './value-pools.js';

/** The options a suite is built under (the rung's `suite` options). */
export interface SuiteSettings {
  readonly budget: SuiteBudget;
  readonly seed: string | number;
  readonly nulls: NullPolicy;
  /** Cache folder (default: the suite cache's default folder). */
  readonly cacheDir?: string;
}

/** One schema's databases as the rung sees them. */
export interface SemanticFixture {
  /** The item's snapshots; the first holds the schema. */
  readonly snapshots: readonly Snapshot[];
  /** The fixture's declared invariants (empty when it declares none). */
  readonly invariants: readonly FixtureInvariant[];
}

/** Suites and searchers shared by the items of one run. */
export interface SemanticService {
  /**
   * Builds (or reads from the cache) the suite of a dataset's golds on one schema, so that each
   * item's suite comes from one build. Optional: without it, items build suites for their golds.
   */
  prepareSuite(input: { readonly engine: Engine; readonly fixture: SemanticFixture; readonly golds: readonly string[]; readonly policy: ComparisonPolicy; readonly settings: SuiteSettings; readonly timeoutMs?: number }): Promise<TestSuite>;
  /** A suite that holds every gold of the item: a prepared one, else one built for these golds. */
  suiteFor(input: { readonly engine: Engine; readonly fixture: SemanticFixture; readonly golds: readonly string[]; readonly policy: ComparisonPolicy; readonly settings: SuiteSettings; readonly timeoutMs?: number }): Promise<TestSuite>;
  /** The searcher of a schema (created on first use). */
  searcherFor(input: { readonly engine: Engine; readonly fixture: SemanticFixture; readonly nulls: NullPolicy }): CounterexampleSearcher;
  /** Removes the searchers' scratch folders (suites stay in their cache). Idempotent. */
  close(): void;
}

/**
 * Creates an empty service.
 * @example
 * const service = createSemanticService();
 * const suite = await service.suiteFor({ engine, fixture: { snapshots, invariants: [] }, golds, policy, settings: { budget: {}, seed: 0, nulls: 'allowed' } });
 * service.close();
 */
export function createSemanticService(): SemanticService {
  /** Suites by settings key; each entry lists the executed golds it holds. */
  const suites = new Map<string, { golds: Set<string>; suite: Promise<TestSuite> }[]>();
  const searchers = new Map<string, CounterexampleSearcher>();
  const invariantsIn = new Map<string, readonly FixtureInvariant[]>();

  const settingsKey = (fixture: SemanticFixture, policy: ComparisonPolicy, settings: SuiteSettings): string =>
    JSON.stringify([
      fixture.snapshots.map((s) => [s.name, path.resolve(s.path), s.checksum ?? '']),
      canonicalInvariants(fixture.invariants),
      { ...policy },
      settings.budget,
      String(settings.seed),
      settings.nulls,
      settings.cacheDir ?? '',
    ]);

  /** Invariants on tables the schema database has (a role-scoped copy lacks the forbidden ones). */
  const applicableInvariants = (fixture: SemanticFixture): readonly FixtureInvariant[] => {
    if (fixture.invariants.length === 0) return fixture.invariants;
    const schemaDb = path.resolve(fixture.snapshots[0]!.path);
    const key = `${schemaDb}\u0000${canonicalInvariants(fixture.invariants)}`;
    let kept = invariantsIn.get(key);
    if (kept === undefined) {
      const tables = new Set(readSchema(schemaDb).tables.map((t) => t.name.toLowerCase()));
      kept = fixture.invariants.filter((i) => tables.has(invariantTable(i).toLowerCase()));
      invariantsIn.set(key, kept);
    }
    return kept;
  };

  const build = (input: Parameters<SemanticService['prepareSuite']>[0]): { golds: Set<string>; suite: Promise<TestSuite> } => {
    const invariants = applicableInvariants(input.fixture);
    const suite = buildTestSuite({
      engine: input.engine,
      schemaDb: input.fixture.snapshots[0]!.path,
      snapshots: input.fixture.snapshots,
      golds: input.golds,
      policy: input.policy,
      budget: input.settings.budget,
      seed: input.settings.seed,
      nulls: input.settings.nulls,
      ...(invariants.length > 0 ? { invariants } : {}),
      ...(input.settings.cacheDir === undefined ? {} : { cacheDir: input.settings.cacheDir }),
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    });
    return { golds: new Set(input.golds.map((g) => applySqlRewrites(g, 'gold', input.policy.rewrites))), suite };
  };

  const remember = (key: string, entry: { golds: Set<string>; suite: Promise<TestSuite> }): Promise<TestSuite> => {
    const list = suites.get(key) ?? [];
    list.push(entry);
    suites.set(key, list);
    // A failed build is not remembered: the next item tries again and reports its own error.
    entry.suite.catch(() => suites.set(key, (suites.get(key) ?? []).filter((e) => e !== entry)));
    return entry.suite;
  };

  return {
    prepareSuite(input) {
      return remember(settingsKey(input.fixture, input.policy, input.settings), build(input));
    },
    suiteFor(input) {
      const key = settingsKey(input.fixture, input.policy, input.settings);
      const wanted = input.golds.map((g) => applySqlRewrites(g, 'gold', input.policy.rewrites));
      const holding = (suites.get(key) ?? []).find((entry) => wanted.every((g) => entry.golds.has(g)));
      return holding?.suite ?? remember(key, build(input));
    },
    searcherFor(input) {
      const invariants = applicableInvariants(input.fixture);
      const key = JSON.stringify([input.fixture.snapshots.map((s) => path.resolve(s.path)), canonicalInvariants(invariants), input.nulls]);
      let searcher = searchers.get(key);
      if (searcher === undefined) {
        searcher = createCounterexampleSearcher({
          engine: input.engine,
          schemaDb: input.fixture.snapshots[0]!.path,
          snapshots: input.fixture.snapshots,
          nulls: input.nulls,
          ...(invariants.length > 0 ? { invariants } : {}),
        });
        searchers.set(key, searcher);
      }
      return searcher;
    },
    close() {
      for (const searcher of searchers.values()) searcher.close();
      searchers.clear();
    },
  };
}

/** The table an invariant is declared on (`table`, or the table part of `table.column`). */
function invariantTable(invariant: FixtureInvariant): string {
  return 'table' in invariant ? invariant.table : invariant.column.slice(0, Math.max(0, invariant.column.lastIndexOf('.')));
}
