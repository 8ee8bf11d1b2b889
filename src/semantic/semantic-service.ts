/**
 * What the L5 semantic rung shares across the items of one run: the distilled test suites (one per
 * schema, policy and suite options, built with every gold the front end announced) and the
 * counterexample searchers (one per schema and value sources). A front end holds one, in its runtime
 * (src/runtime/ladder-runtime.ts), and closes it when the run ends.
 *
 * Suites are built once per dataset when the front end announces the dataset's golds first
 * ({@link SemanticService.announceSuite}, as `spider --test-suite` does: the build starts when the
 * first item needs it, so a run whose verdicts all come from the verdict cache builds nothing);
 * otherwise the first item of a schema builds a suite for its own golds, and a later item whose
 * golds are not in any suite builds one for its golds. Rows that ask at once wait on one build. Either way a suite is content-addressed on disk, so the next run
 * reads it from the cache.
 *
 * Every front end's runtime holds a service, with L5 on or off; the suite builder, the
 * counterexample search and the schema reader (the database generator, yaml, better-sqlite3 in the
 * parent process) are imported on the service's first use, so a run with L5 off loads none of them.
 */
import path from 'node:path';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { CounterexampleSearcher } from './search/counterexample-search.js';
import type { SuiteSettings } from './semantic-options.js';
import type { TestSuite } from './suite/suite-types.js';
import type { NullPolicy } from './generation/value-pools.js';

/** One schema's databases as the rung sees them. */
export interface SemanticFixture {
  /** The item's snapshots; the first holds the schema. */
  readonly snapshots: readonly Snapshot[];
  /** The fixture's declared invariants (empty when it declares none). */
  readonly invariants: readonly FixtureInvariant[];
}

/** What one suite is built from: the schema's databases, the golds, the policy and the settings. */
export interface SuiteRequest {
  /** The engine the golds and their neighbours run on. */
  readonly engine: Engine;
  /** The schema's snapshots and declared invariants. */
  readonly fixture: SemanticFixture;
  /** The golds, as written (the policy's SQL rewrites are applied). */
  readonly golds: readonly string[];
  /** The comparison policy neighbours are told apart under (part of the suite's key). */
  readonly policy: ComparisonPolicy;
  /** Budget, seed, NULL policy and cache folder of the build (part of the suite's key). */
  readonly settings: SuiteSettings;
  /** Deadline per statement while building, ms (default: the suite builder's). */
  readonly timeoutMs?: number;
}

/** Suites and searchers shared by the items of one run. */
export interface SemanticService {
  /**
   * Builds (or reads from the cache) the suite of a dataset's golds on one schema, so that each
   * item's suite comes from one build. Optional: without it, items build suites for their golds.
   * @throws (rejects) LadderError from the suite builder (a missing database, a bad budget); a
   *   failed build is not remembered.
   */
  prepareSuite(input: SuiteRequest): Promise<TestSuite>;
  /**
   * Announces the suite of a dataset's golds on one schema without building it: the first item
   * that needs a suite holding its golds ({@link SemanticService.suiteFor}) starts the one build,
   * and a run whose every verdict comes from the verdict cache builds nothing.
   * @throws (rejects) only when the service's code cannot be imported.
   */
  announceSuite(input: SuiteRequest): Promise<void>;
  /**
   * A suite that holds every gold of the item: a prepared one, else one built for these golds.
   * @throws (rejects) as {@link SemanticService.prepareSuite}.
   */
  suiteFor(input: SuiteRequest): Promise<TestSuite>;
  /**
   * The searcher of a schema and NULL policy, created on first use (asynchronous: the search is
   * imported then).
   * @throws (rejects) LadderError when the schema database cannot be read.
   */
  searcherFor(input: { readonly engine: Engine; readonly fixture: SemanticFixture; readonly nulls: NullPolicy }): Promise<CounterexampleSearcher>;
  /**
   * Removes the scratch folders of the searchers created so far (suites stay in their cache);
   * a later `searcherFor` creates a new searcher. Idempotent.
   */
  close(): void;
}

/** A suite the service knows of: the executed golds it holds, and its build, started on first call. */
interface SuiteEntry {
  readonly golds: ReadonlySet<string>;
  suite(): Promise<TestSuite>;
}

/** The modules that build suites and searchers, imported on a service's first use. */
interface Machinery {
  readonly buildTestSuite: typeof import('./suite/test-suite.js').buildTestSuite;
  readonly createCounterexampleSearcher: typeof import('./search/counterexample-search.js').createCounterexampleSearcher;
  readonly canonicalInvariants: typeof import('./model/invariants.js').canonicalInvariants;
  readonly readSchema: typeof import('./model/schema-reader.js').readSchema;
  readonly applySqlRewrites: typeof import('../compare/sql-rewrites.js').applySqlRewrites;
}

/** Imports the suite builder, the search, the invariant and schema readers and the SQL rewrites. */
async function loadMachinery(): Promise<Machinery> {
  const [suite, search, invariants, schema, rewrites] = await Promise.all([
    import('./suite/test-suite.js'),
    import('./search/counterexample-search.js'),
    import('./model/invariants.js'),
    import('./model/schema-reader.js'),
    import('../compare/sql-rewrites.js'),
  ]);
  return {
    buildTestSuite: suite.buildTestSuite,
    createCounterexampleSearcher: search.createCounterexampleSearcher,
    canonicalInvariants: invariants.canonicalInvariants,
    readSchema: schema.readSchema,
    applySqlRewrites: rewrites.applySqlRewrites,
  };
}

/**
 * Creates an empty service (it loads nothing until its first suite or searcher).
 * @example
 * const service = createSemanticService();
 * const suite = await service.suiteFor({ engine, fixture: { snapshots, invariants: [] }, golds, policy, settings: { budget: {}, seed: 0, nulls: 'allowed', emptyVsNullRow: 'same' } });
 * service.close();
 */
export function createSemanticService(): SemanticService {
  /** Suites by settings key; each entry lists the executed golds it holds and builds (or reads) the suite on first `suite()`. */
  const suites = new Map<string, SuiteEntry[]>();
  const searchers = new Map<string, CounterexampleSearcher>();
  const invariantsIn = new Map<string, readonly FixtureInvariant[]>();
  let machinery: Promise<Machinery> | undefined;
  const load = (): Promise<Machinery> => {
    if (machinery === undefined) {
      machinery = loadMachinery();
      // An import that failed (a broken install) is tried again by the next call.
      machinery.catch(() => {
        machinery = undefined;
      });
    }
    return machinery;
  };

  const settingsKey = (m: Machinery, fixture: SemanticFixture, policy: ComparisonPolicy, settings: SuiteSettings): string =>
    JSON.stringify([
      fixture.snapshots.map((s) => [s.name, path.resolve(s.path), s.checksum ?? '']),
      m.canonicalInvariants(fixture.invariants),
      { ...policy },
      settings.budget,
      String(settings.seed),
      settings.nulls,
      settings.cacheDir ?? '',
    ]);

  /** Invariants on tables the schema database has (a role-scoped copy lacks the forbidden ones). */
  const applicableInvariants = (m: Machinery, fixture: SemanticFixture): readonly FixtureInvariant[] => {
    if (fixture.invariants.length === 0) return fixture.invariants;
    const schemaDb = path.resolve(fixture.snapshots[0]!.path);
    const key = `${schemaDb}\u0000${m.canonicalInvariants(fixture.invariants)}`;
    let kept = invariantsIn.get(key);
    if (kept === undefined) {
      const tables = new Set(m.readSchema(schemaDb).tables.map((t) => t.name.toLowerCase()));
      kept = fixture.invariants.filter((i) => tables.has(invariantTable(i).toLowerCase()));
      invariantsIn.set(key, kept);
    }
    return kept;
  };

  const build = (m: Machinery, input: SuiteRequest): SuiteEntry => {
    const invariants = applicableInvariants(m, input.fixture);
    let started: Promise<TestSuite> | undefined;
    const entry: SuiteEntry = {
      golds: new Set(input.golds.map((g) => m.applySqlRewrites(g, 'gold', input.policy.rewrites))),
      suite: () => {
        started ??= m.buildTestSuite({
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
        // A failed build is not remembered: the next item tries again and reports its own error.
        started.catch(() => suites.set(key, (suites.get(key) ?? []).filter((e) => e !== entry)));
        return started;
      },
    };
    const key = settingsKey(m, input.fixture, input.policy, input.settings);
    const list = suites.get(key) ?? [];
    list.push(entry);
    suites.set(key, list);
    return entry;
  };

  // Each method looks up and records its entry in one synchronous step after the import, so two
  // items that ask at once still share one suite or searcher.
  return {
    async prepareSuite(input) {
      return build(await load(), input).suite();
    },
    async announceSuite(input) {
      build(await load(), input);
    },
    async suiteFor(input) {
      const m = await load();
      const key = settingsKey(m, input.fixture, input.policy, input.settings);
      const wanted = input.golds.map((g) => m.applySqlRewrites(g, 'gold', input.policy.rewrites));
      const holding = (suites.get(key) ?? []).find((entry) => wanted.every((g) => entry.golds.has(g)));
      return (holding ?? build(m, input)).suite();
    },
    async searcherFor(input) {
      const m = await load();
      const invariants = applicableInvariants(m, input.fixture);
      const key = JSON.stringify([input.fixture.snapshots.map((s) => path.resolve(s.path)), m.canonicalInvariants(invariants), input.nulls]);
      let searcher = searchers.get(key);
      if (searcher === undefined) {
        searcher = m.createCounterexampleSearcher({
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
