/**
 * The L5 semantic rung (`L5_semantic`): after L4 accepted a prediction on the fixture's snapshots,
 * ask whether it is right on databases chosen to tell it apart from the gold.
 *
 * 0. **The snapshots** under the L4 rule, first: when one of the fixture's own snapshots already
 *    shows the difference (L4 would fail under the same policy; `checkSemantic` may be called
 *    without L4), the rung fails with `rejectedBy: 'snapshot'` (`refuted on snapshot jan: …`) and
 *    nothing is generated: the user's own data is the witness.
 * 0b. **The gold's own text**: a prediction that is a gold up to formatting (same-as-gold.ts: case,
 *    `AS`, `ASC`, `INNER`/`OUTER`, spacing) cannot be told apart from it by any database:
 *    `details.sameAsGold` is set, the search does not run, and with one gold neither does the
 *    suite (the rung passes); with several, the suite still reports golds that disagree.
 * 1. **Test suite** (test-suite accuracy; Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL
 *    with Distilled Test Suites", EMNLP 2020): the item passes this step when some gold matches the
 *    prediction on every database of its distilled suite (its snapshots plus the generated
 *    databases kept for its golds). A generated database is judged as the search judges one (the
 *    item's comparison policy and `emptyVsNullRow`, order independence, the contract of generated
 *    databases; evaluate-on-suite.ts). Golds of one item that disagree among themselves on the
 *    suite are reported (`goldAmbiguity`, issues of kind `gold_ambiguity`), never silently resolved.
 * 2. **Counterexample search** (when on; after a suite rejection it runs too, to add a small
 *    witness to the reason): small databases are drawn and
 *    judged until one refutes the prediction against every gold; a refutation fails the rung with
 *    the shrunk, re-run witness in its reason (`refuted on a 2-row database: gold returns [3],
 *    prediction [2]; INSERT INTO orders …`). Finding nothing within the budget proves nothing: the
 *    reason says `not refuted within budget`, never "equivalent".
 *
 * Every generated database — suite draws, search draws, shrinking edits, witnesses — keeps one
 * contract (database-contract.ts: the schema, the fixture's invariants, the NULL policy) before it
 * may refute anything; a database that breaks it is dropped and counted in
 * `details.rejectedDatabases`. `details.rejectedBy` names the step that rejected the prediction.
 *
 * A finished verdict is stored in the verdict cache (verdict-cache.ts: keyed by everything that can
 * change it; never when a time budget, a deadline or a timeout shaped it), so that a rerun of an
 * unchanged item costs one file read; `details.verdictCache` says `hit`, `stored`, `not_stored`
 * (why) or `off`, and is the only part of a verdict that differs with the cache on or off. A row
 * whose key another row is judging at that moment waits for it and reads the stored verdict.
 *
 * The rung is off by default (a release-candidate check: building suites costs seconds per gold,
 * the search up to its budget per item); it runs only after a passed L4, on SQLite, and counts in
 * `end_to_end` when it is on. The suites and searchers live in a {@link SemanticService} the front
 * end shares across items. The rung's entry in the ladder (semantic-rung.ts) loads this module on
 * its first run, so a front end with L5 off never loads it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { applySqlRewrites } from '../compare/sql-rewrites.js';
import { GoldResultCache } from '../compare/gold-result-cache.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { sqliteLibraryVersion } from '../fixtures/build.js';
import { findPackageRoot } from '../fixtures/package-root.js';
import { LadderError } from '../errors.js';
import { createRungResult, type RungIssue, type RungResult } from '../rungs/rung-result.js';
import type { GoldDisagreement, SearchStepDetails, SemanticDetails, SuiteStepDetails } from '../rungs/semantic-details.js';
import { addRejections } from './generation/database-contract.js';
import { DISTILL_VERSION } from './suite/distill.js';
import { evaluateAfterSnapshots, judgeOnSnapshots } from './suite/evaluate-on-suite.js';
import { DEFAULT_SEMANTIC_OPTIONS, type SearchSettings, type SemanticOptions } from './semantic-options.js';
import { GENERATOR_VERSION } from './generation/generate-database.js';
import { canonicalInvariants } from './model/invariants.js';
import { sameAsGold } from './same-as-gold.js';
import { createSemanticService, type SemanticService } from './semantic-service.js';
import { defaultVerdictCacheDir, SUITE_FORMAT } from './suite/suite-cache.js';
import type { TestSuite } from './suite/suite-types.js';
import { countTransientFailures } from './model/transient-failures.js';
import { asCacheHit, machineBoundCause, readVerdict, storeVerdict, verdictKey, withCacheStatus } from './verdict-cache.js';

/** Inputs of {@link checkSemantic}. */
export interface CheckSemanticInput {
  /** The prediction, as the model wrote it (the policy's SQL rewrites are applied). */
  readonly predictedSql: string;
  /** The item's golds (at least one); any one may match. */
  readonly golds: readonly string[];
  /** The item's snapshots (the first holds the schema). */
  readonly snapshots: readonly Snapshot[];
  /** The fixture's declared invariants, kept by every generated database (default none). */
  readonly invariants?: readonly FixtureInvariant[];
  /** The engine every gold and prediction runs on. */
  readonly engine: Engine;
  /** The item's comparison policy, resolved (L4's). */
  readonly policy: ComparisonPolicy;
  /** L5's options (default {@link DEFAULT_SEMANTIC_OPTIONS}: both steps, library budgets). */
  readonly options?: SemanticOptions;
  /** Shared suites and searchers (default: a service made for this call and closed after it). */
  readonly service?: SemanticService;
  /** Gold results on the suite's databases, shared with L4. */
  readonly goldCache?: GoldResultCache;
  /** The item's `gold_result_ordered` override. */
  readonly goldOrdered?: boolean;
  /** The item's `as_of_date` (`YYYY-MM-DD`), passed to `checkExecution` for its gold checks. */
  readonly asOfDate?: string;
}

/**
 * Runs L5 on one prediction (the module doc gives the rule). Call it after L4 passed.
 * @returns `pass`, `fail` (a snapshot, the suite or the search refutes it; the reason names the
 *   database and `details.rejectedBy` the step), or `unscored` (no gold runs on every snapshot, or
 *   the comparison is undecided there).
 * @throws LadderError for misuse (no gold, a missing database, a bad option), and when the item's
 *   suite cannot be built (`L5 could not build the test suite of the item's golds: <cause>`; the
 *   code of the builder's LadderError, else `fixture_cache`); the model's SQL never
 *   throws.
 */
export async function checkSemantic(input: CheckSemanticInput): Promise<RungResult<SemanticDetails>> {
  const options = input.options ?? DEFAULT_SEMANTIC_OPTIONS;
  const own = input.service === undefined;
  const service = input.service ?? createSemanticService();
  try {
    if (options.verdictCache === false) return withCacheStatus((await judge(input, options, service)).result, { status: 'off' });
    const folder = options.verdictCache.cacheDir ?? defaultVerdictCacheDir();
    const executedGolds = input.golds.map((g) => applySqlRewrites(g, 'gold', input.policy.rewrites));
    const key = verdictKey({
      snapshots: input.snapshots,
      invariants: canonicalInvariants(input.invariants ?? []),
      executedGolds,
      executedPrediction: applySqlRewrites(input.predictedSql, 'predicted', input.policy.rewrites),
      policy: input.policy,
      options,
      goldOrdered: input.goldOrdered,
      asOfDate: input.asOfDate,
      engine: input.engine,
      versions: verdictVersions(),
    });
    const stored = readVerdict(folder, key);
    if (stored !== undefined) return asCacheHit(stored);
    // A row with the same key judged right now (two models giving the same prediction, rows run
    // at once): wait for it and read what it stored, as a later run would.
    const slot = `${folder}\u0000${key}`;
    const running = judging.get(slot);
    if (running !== undefined) {
      await running.catch(() => undefined);
      const now = readVerdict(folder, key);
      if (now !== undefined) return asCacheHit(now);
    }
    const work = (async (): Promise<RungResult<SemanticDetails>> => {
      const judged = await judge(input, options, service);
      const cause = machineBoundCause(judged.result.details, judged.transientFailures, judged.suite, executedGolds);
      if (cause !== null) return withCacheStatus(judged.result, { status: 'not_stored', reason: cause });
      const result = withCacheStatus(judged.result, { status: 'stored' });
      const failed = storeVerdict(folder, key, result);
      return failed === null ? result : withCacheStatus(judged.result, { status: 'not_stored', reason: `the cache could not be written: ${failed}` });
    })();
    judging.set(slot, work);
    try {
      return await work;
    } finally {
      if (judging.get(slot) === work) judging.delete(slot);
    }
  } finally {
    if (own) service.close();
  }
}

/** Verdicts being judged in this process, by cache folder and key. */
const judging = new Map<string, Promise<RungResult<SemanticDetails>>>();

/** A verdict as judged (before the cache), with what decides whether it may be stored. */
interface Judged {
  readonly result: RungResult<SemanticDetails>;
  /** Transient failures of the snapshot and suite steps (the search counts its own). */
  readonly transientFailures: number;
  /** The suite the item was judged on, when the step ran. */
  readonly suite: TestSuite | null;
}

/** Judges one prediction (the module doc's steps); `details.verdictCache` is set by the caller. */
async function judge(input: CheckSemanticInput, options: SemanticOptions, service: SemanticService): Promise<Judged> {
  const counting = countTransientFailures(input.engine);
  const engine = counting.engine;
  let built: TestSuite | null = null;
  const fixture = { snapshots: input.snapshots, invariants: input.invariants ?? [] };
  const cache = input.goldCache ?? new GoldResultCache();
  const optional = {
    ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
    ...(input.asOfDate === undefined ? {} : { asOfDate: input.asOfDate }),
  };
  const result = (status: 'pass' | 'fail' | 'unscored', reason: string, details: Omit<SemanticDetails, 'rejectedDatabases' | 'verdictCache'>, issues: RungIssue[] = []): Judged => ({
    result: createRungResult({
      rung: 'semantic',
      status,
      reason,
      issues,
      details: { ...details, rejectedDatabases: addRejections(details.suite?.rejectedDatabases ?? {}, details.search?.rejectedDatabases ?? {}), verdictCache: { status: 'off' } },
    }),
    transientFailures: counting.count(),
    suite: built,
  });

  // The fixture's own snapshots first: when one already shows the difference (L4 would fail),
  // the user's data is the witness, and nothing is generated.
  const onSnapshots = await judgeOnSnapshots({ engine, golds: input.golds, predictedSql: input.predictedSql, suite: fixture, policy: input.policy, cache, ...optional });
  if (onSnapshots.execution.status === 'fail') {
    return result('fail', `refuted on ${onSnapshots.execution.reason}`, { rejectedBy: 'snapshot', suite: null, goldAmbiguity: [], search: null });
  }
  if (onSnapshots.execution.status !== 'pass') {
    return result('unscored', `snapshots: ${onSnapshots.execution.reason}`, { rejectedBy: null, suite: null, goldAmbiguity: [], search: null });
  }

  // A prediction that is a gold's text up to formatting returns that gold's result on every
  // database: no search can find a witness, and with one gold no suite needs building. With
  // several, the suite still runs: it reports golds that disagree among themselves.
  const sameAs = sameAsGold(input.predictedSql, input.golds, input.policy.rewrites);
  const same = sameAs < 0 ? null : { sameAsGold: sameAs };
  const sameText = `the prediction is ${input.golds.length === 1 ? 'the gold' : `gold ${sameAs}`} up to formatting (case, AS, ASC, INNER/OUTER, spacing)`;
  if (same !== null && input.golds.length === 1 && (options.suite !== false || options.search !== false)) {
    return result('pass', `${sameText}: the same result on every database, nothing generated`, { rejectedBy: null, suite: null, goldAmbiguity: [], search: null, ...same });
  }

  let suite: SuiteStepDetails | null = null;
  let goldAmbiguity: readonly GoldDisagreement[] = [];
  const issues: RungIssue[] = [];
  if (options.suite !== false) {
    built = await service.suiteFor({ engine: input.engine, fixture, golds: input.golds, policy: input.policy, settings: options.suite }).catch((error: unknown) => {
      // Every row waiting on this build gets the cause; the service forgets the failed build.
      const message = error instanceof Error ? error.message : String(error);
      throw new LadderError(error instanceof LadderError ? error.code : 'fixture_cache', `L5 could not build the test suite of the item's golds: ${message}`, { cause: error });
    });
    const evaluation = await evaluateAfterSnapshots(
      { engine, suite: built, golds: input.golds, predictedSql: input.predictedSql, policy: input.policy, emptyVsNullRow: options.suite.emptyVsNullRow, cache, ...optional },
      onSnapshots,
    );
    const generated = evaluation.databases - built.snapshots.length;
    suite = {
      status: evaluation.status,
      reason: evaluation.reason,
      databases: evaluation.databases,
      generated,
      failing: evaluation.failing,
      key: built.key,
      rejectedDatabases: addRejections(built.rejectedDatabases, evaluation.rejectedDatabases),
    };
    goldAmbiguity = evaluation.goldAmbiguity;
    for (const d of goldAmbiguity) issues.push({ kind: 'gold_ambiguity', message: `golds ${d.goldA} and ${d.goldB} disagree on ${d.database}: ${d.reason}` });
    if (evaluation.status === 'unscored') return result('unscored', `test suite: ${evaluation.reason}`, { rejectedBy: null, suite, goldAmbiguity, search: null }, issues);
    if (evaluation.status === 'fail') {
      // The suite's database can hold hundreds of rows: the search, when on, adds a small witness.
      const search = options.search === false ? null : await runSearch(service, input, fixture, options.search);
      const witness = search?.verdict === 'refuted' ? `; ${search.reason}` : '';
      const rejectedBy = evaluation.failing?.generated === false ? 'snapshot' : 'suite';
      return result('fail', `refuted on ${evaluation.reason}${witness}`, { rejectedBy, suite, goldAmbiguity, search }, issues);
    }
  }
  let search: SearchStepDetails | null = null;
  if (options.search !== false && same === null) {
    search = await runSearch(service, input, fixture, options.search);
    if (search.verdict === 'refuted') return result('fail', search.reason, { rejectedBy: 'search', suite, goldAmbiguity, search }, issues);
  }
  const skipped = options.search !== false && same !== null ? `search not run: ${sameText}` : null;
  const parts = [suite === null ? null : suite.reason, search === null ? skipped : search.verdict === 'not_searched' ? `search not run: ${search.reason}` : search.reason];
  const ambiguity = goldAmbiguity.length > 0 ? `; gold ambiguity: ${goldAmbiguity.length} pair${goldAmbiguity.length === 1 ? '' : 's'} of golds disagree` : '';
  return result('pass', `${parts.filter((p) => p !== null).join('; ') || 'no step enabled'}${ambiguity}`, { rejectedBy: null, suite, goldAmbiguity, search, ...(same ?? {}) }, issues);
}

let versions: Readonly<Record<string, string | number>> | undefined;

/** The versions a stored verdict is keyed on (read once per process). */
function verdictVersions(): Readonly<Record<string, string | number>> {
  versions ??= {
    generator: GENERATOR_VERSION,
    distill: DISTILL_VERSION,
    suiteFormat: SUITE_FORMAT,
    sqlite: sqliteLibraryVersion(),
    package: packageVersion(),
  };
  return versions;
}

/** This package's version (package.json at the package root). */
function packageVersion(): string {
  try {
    return String((JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

/** Runs the counterexample search for the item on the fixture's searcher. */
async function runSearch(service: SemanticService, input: CheckSemanticInput, fixture: { readonly snapshots: readonly Snapshot[]; readonly invariants: readonly FixtureInvariant[] }, settings: SearchSettings): Promise<SearchStepDetails> {
  const searcher = await service.searcherFor({ engine: input.engine, fixture, nulls: settings.nulls });
  const outcome = await searcher.search({
    golds: input.golds,
    predictedSql: input.predictedSql,
    policy: input.policy,
    budget: settings.budget,
    seed: settings.seed,
    emptyVsNullRow: settings.emptyVsNullRow,
    ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
  });
  return {
    verdict: outcome.verdict,
    reason: outcome.reason,
    witnesses: outcome.verdict === 'refuted' ? outcome.witnesses : [],
    databases: outcome.tried.databases,
    elapsedMs: outcome.tried.elapsedMs,
    stoppedBy: outcome.verdict === 'not_refuted_within_budget' ? outcome.stoppedBy : null,
    transientFailures: outcome.tried.transientFailures,
    rejectedDatabases: outcome.tried.rejectedDatabases,
  };
}

