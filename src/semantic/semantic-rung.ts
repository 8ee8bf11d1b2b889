/**
 * The L5 semantic rung (`L5_semantic`): after L4 accepted a prediction on the fixture's snapshots,
 * ask whether it is right on databases chosen to tell it apart from the gold.
 *
 * 1. **Test suite** (test-suite accuracy; Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL
 *    with Distilled Test Suites", EMNLP 2020): the item passes this step when some gold matches the
 *    prediction on every database of its distilled suite (its snapshots plus the generated
 *    databases kept for its golds) under the item's comparison policy. Golds of one item that
 *    disagree among themselves on the suite are reported (`goldAmbiguity`, issues of kind
 *    `gold_ambiguity`), never silently resolved.
 * 2. **Counterexample search** (when on; after a suite rejection it runs too, to add a small
 *    witness to the reason): small databases are drawn and
 *    judged until one refutes the prediction against every gold; a refutation fails the rung with
 *    the shrunk, re-run witness in its reason (`refuted on a 2-row database: gold returns [3],
 *    prediction [2]; INSERT INTO orders …`). Finding nothing within the budget proves nothing: the
 *    reason says `not refuted within budget`, never "equivalent".
 *
 * The rung is off by default (a release-candidate check: building suites costs seconds per gold,
 * the search up to its budget per item); it runs only after a passed L4, on SQLite, and counts in
 * `end_to_end` when it is on. The suites and searchers live in a {@link SemanticService} the front
 * end shares across items.
 */
import type { GoldResultCache } from '../compare/gold-result-cache.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { invalidValue, isPlainRecord, optionReader } from '../options.js';
import type { ExecutingRung, LadderContext, LadderResults } from '../rungs/ladder-rungs.js';
import { createRungResult, createSkippedResult, scoreNameOf, type RungIssue, type RungResult } from '../rungs/rung-result.js';
import type { GoldDisagreement, SearchStepDetails, SemanticDetails, SuiteStepDetails } from '../rungs/semantic-details.js';
import { DEFAULT_SUITE_BUDGET, resolveSuiteBudget, type SuiteBudget } from './distill.js';
import { evaluateOnSuite } from './evaluate-on-suite.js';
import { DEFAULT_SEARCH_BUDGET, resolveSearchBudget, type SearchBudget } from './search-budget.js';
import { createSemanticService, type SemanticService, type SuiteSettings } from './semantic-service.js';
import type { NullPolicy } from './value-pools.js';
import { DEFAULT_EMPTY_VS_NULL_ROW, EMPTY_VS_NULL_ROW_VALUES, type EmptyVsNullRow } from './witness-check.js';

/** Settings of the counterexample search step. */
export interface SearchSettings {
  readonly budget: SearchBudget;
  readonly seed: string | number;
  readonly nulls: NullPolicy;
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** The rung's options, validated (see {@link readSemanticOptions}). */
export interface SemanticOptions {
  /** The distilled test suite step, or `false` to skip it. */
  readonly suite: SuiteSettings | false;
  /** The counterexample search step, or `false` to skip it. */
  readonly search: SearchSettings | false;
}

/** Both steps on, library budgets (suite: 300 databases / 60 s / patience 100 per gold; search: 100 databases / 10 s / 150 shrinking trials per item), seed 0, NULLs wherever allowed, empty vs one NULL row judged the same. */
export const DEFAULT_SEMANTIC_OPTIONS: SemanticOptions = Object.freeze({
  suite: Object.freeze({ budget: {}, seed: 0, nulls: 'allowed' as NullPolicy }),
  search: Object.freeze({ budget: {}, seed: 0, nulls: 'allowed' as NullPolicy, emptyVsNullRow: DEFAULT_EMPTY_VS_NULL_ROW }),
});

const OPTION_NAMES = ['suite', 'search', 'seed', 'nulls', 'emptyVsNullRow', 'cacheDir'] as const;

/**
 * Reads the rung's options from an unchecked value (a promptfoo config block, a matcher option,
 * CLI flags). `true` / `undefined` mean {@link DEFAULT_SEMANTIC_OPTIONS}.
 *
 * Shape: `{ suite?: true | false | { maxDatabases, maxSeconds, patience }, search?: true | false |
 * { maxDatabases, maxSeconds, maxShrinkTrials }, seed?: string | number, nulls?: 'allowed' |
 * 'observed', emptyVsNullRow?: 'same' | 'different', cacheDir?: string }`.
 * @param naming.name - how messages name the block (default `semantic`; e.g. `config.semantic`).
 * @throws LadderError('invalid_option') naming the option, the expected and the received value.
 * @example readSemanticOptions({ search: { maxSeconds: 2 } }) // suite defaults, search budget 2 s
 */
export function readSemanticOptions(value: unknown, naming: { readonly name?: string } = {}): SemanticOptions {
  const name = naming.name ?? 'semantic';
  if (value === undefined || value === null || value === true) return DEFAULT_SEMANTIC_OPTIONS;
  if (!isPlainRecord(value)) throw invalidValue(name, 'true or { suite, search, seed, nulls, emptyVsNullRow, cacheDir }', value);
  const read = optionReader(value, { prefix: `${name}.` });
  read.unknownKeys(OPTION_NAMES);
  const seedRaw = read.raw('seed');
  if (seedRaw !== undefined && typeof seedRaw !== 'string' && !(typeof seedRaw === 'number' && Number.isFinite(seedRaw))) throw read.invalid('seed', 'a string or a number', seedRaw);
  const seed = (seedRaw as string | number | undefined) ?? 0;
  const nulls = read.oneOf<NullPolicy>('nulls', ['allowed', 'observed']) ?? 'allowed';
  const emptyVsNullRow = read.oneOf<EmptyVsNullRow>('emptyVsNullRow', EMPTY_VS_NULL_ROW_VALUES) ?? DEFAULT_EMPTY_VS_NULL_ROW;
  const cacheDir = read.string('cacheDir', 'a folder path');
  const step = <B>(key: 'suite' | 'search', resolve: (budget: B) => unknown, fields: string): B | false => {
    const raw = read.raw(key);
    if (raw === false) return false;
    if (raw === undefined || raw === true) return {} as B;
    if (!isPlainRecord(raw)) throw read.invalid(key, `true, false or { ${fields} }`, raw);
    try {
      resolve(raw as B);
    } catch (error) {
      // Both budget readers name the field `budget.<field>`; name it where the user wrote it.
      const message = (error as Error).message.replace(/\bbudget\./g, `${name}.${key}.`);
      throw invalidValue(`${name}.${key}`, `{ ${fields} } with valid values (${message})`, raw);
    }
    return raw as B;
  };
  const suiteBudget = step<SuiteBudget>('suite', resolveSuiteBudget, Object.keys(DEFAULT_SUITE_BUDGET).join(', '));
  const searchBudget = step<SearchBudget>('search', resolveSearchBudget, Object.keys(DEFAULT_SEARCH_BUDGET).join(', '));
  return {
    suite: suiteBudget === false ? false : { budget: suiteBudget, seed, nulls, ...(cacheDir === undefined ? {} : { cacheDir }) },
    search: searchBudget === false ? false : { budget: searchBudget, seed, nulls, emptyVsNullRow },
  };
}

/** Inputs of {@link checkSemantic}. */
export interface CheckSemanticInput {
  readonly predictedSql: string;
  readonly golds: readonly string[];
  /** The item's snapshots (the first holds the schema) and the fixture's declared invariants. */
  readonly snapshots: readonly Snapshot[];
  readonly invariants?: readonly FixtureInvariant[];
  readonly engine: Engine;
  /** The item's comparison policy, resolved (L4's). */
  readonly policy: ComparisonPolicy;
  readonly options?: SemanticOptions;
  /** Shared suites and searchers (default: a service made for this call and closed after it). */
  readonly service?: SemanticService;
  readonly goldCache?: GoldResultCache;
  readonly goldOrdered?: boolean;
  readonly asOfDate?: string;
}

/**
 * Runs L5 on one prediction (the module doc gives the rule). Call it after L4 passed.
 * @returns `pass`, `fail` (suite rejection or refutation, the difference in the reason), or
 *   `unscored` (no gold runs on every database of the suite).
 * @throws LadderError for misuse (no gold, a missing database, a bad option); the model's SQL never
 *   throws.
 */
export async function checkSemantic(input: CheckSemanticInput): Promise<RungResult<SemanticDetails>> {
  const options = input.options ?? DEFAULT_SEMANTIC_OPTIONS;
  const own = input.service === undefined;
  const service = input.service ?? createSemanticService();
  try {
    const fixture = { snapshots: input.snapshots, invariants: input.invariants ?? [] };
    let suite: SuiteStepDetails | null = null;
    let goldAmbiguity: readonly GoldDisagreement[] = [];
    const issues: RungIssue[] = [];
    if (options.suite !== false) {
      const built = await service.suiteFor({ engine: input.engine, fixture, golds: input.golds, policy: input.policy, settings: options.suite });
      const evaluation = await evaluateOnSuite({
        engine: input.engine,
        suite: built,
        golds: input.golds,
        predictedSql: input.predictedSql,
        policy: input.policy,
        ...(input.goldCache === undefined ? {} : { cache: input.goldCache }),
        ...(input.goldOrdered === undefined ? {} : { goldOrdered: input.goldOrdered }),
        ...(input.asOfDate === undefined ? {} : { asOfDate: input.asOfDate }),
      });
      const generated = evaluation.databases - built.snapshots.length;
      suite = { status: evaluation.status, reason: evaluation.reason, databases: evaluation.databases, generated, failing: evaluation.failing, key: built.key };
      goldAmbiguity = evaluation.goldAmbiguity;
      for (const d of goldAmbiguity) issues.push({ kind: 'gold_ambiguity', message: `golds ${d.goldA} and ${d.goldB} disagree on ${d.database}: ${d.reason}` });
      if (evaluation.status === 'unscored') {
        return createRungResult({ rung: 'semantic', status: 'unscored', reason: `test suite: ${evaluation.reason}`, issues, details: { suite, goldAmbiguity, search: null } });
      }
      if (evaluation.status === 'fail') {
        // The suite's database can hold hundreds of rows: the search, when on, adds a small witness.
        const search = options.search === false ? null : await runSearch(service, input, fixture, options.search);
        const witness = search?.verdict === 'refuted' ? `; ${search.reason}` : '';
        return createRungResult({ rung: 'semantic', status: 'fail', reason: `test suite: ${evaluation.reason}${witness}`, issues, details: { suite, goldAmbiguity, search } });
      }
    }
    let search: SearchStepDetails | null = null;
    if (options.search !== false) {
      search = await runSearch(service, input, fixture, options.search);
      if (search.verdict === 'refuted') {
        return createRungResult({ rung: 'semantic', status: 'fail', reason: search.reason, issues, details: { suite, goldAmbiguity, search } });
      }
    }
    const parts = [suite === null ? null : suite.reason, search === null ? null : search.verdict === 'not_searched' ? `search not run: ${search.reason}` : search.reason];
    const ambiguity = goldAmbiguity.length > 0 ? `; gold ambiguity: ${goldAmbiguity.length} pair${goldAmbiguity.length === 1 ? '' : 's'} of golds disagree` : '';
    return createRungResult({ rung: 'semantic', status: 'pass', reason: `${parts.filter((p) => p !== null).join('; ') || 'no step enabled'}${ambiguity}`, issues, details: { suite, goldAmbiguity, search } });
  } finally {
    if (own) service.close();
  }
}

/** Runs the counterexample search for the item on the fixture's searcher. */
async function runSearch(service: SemanticService, input: CheckSemanticInput, fixture: { readonly snapshots: readonly Snapshot[]; readonly invariants: readonly FixtureInvariant[] }, settings: SearchSettings): Promise<SearchStepDetails> {
  const outcome = await service.searcherFor({ engine: input.engine, fixture, nulls: settings.nulls }).search({
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
  };
}

/**
 * The ladder's L5 entry: listed when created (front ends create it only when L5 is on), counts in
 * `end_to_end`, runs after a passed L4 on SQLite, `skipped` otherwise.
 * @param service - the front end's shared suites and searchers (its runtime's `semantic()`).
 * @example createLadderRungs({ semantic: createSemanticRung(readSemanticOptions(true), runtime.semantic()) })
 */
export function createSemanticRung(options: SemanticOptions, service: SemanticService): ExecutingRung<'semantic'> {
  return {
    listed: () => true,
    endToEnd: true,
    async run(context: Pick<LadderContext, 'sql' | 'golds' | 'dialect' | 'fixture' | 'engine' | 'goldCache' | 'policy' | 'asOfDate'>, earlier: Pick<LadderResults, 'execution'>) {
      const execution = earlier.execution;
      if (execution === undefined || execution.status !== 'pass') return createSkippedResult('semantic', `${scoreNameOf('execution')} ${execution?.status ?? 'skipped'}`);
      if (context.dialect !== 'sqlite') return createSkippedResult('semantic', `the semantic rung runs on SQLite only (dialect ${context.dialect})`);
      return checkSemantic({
        predictedSql: context.sql,
        golds: context.golds,
        snapshots: context.fixture.snapshots,
        invariants: context.fixture.invariants ?? [],
        engine: context.engine,
        policy: context.policy.comparison,
        options,
        service,
        goldCache: context.goldCache,
        ...(context.policy.goldOrdered === undefined ? {} : { goldOrdered: context.policy.goldOrdered }),
        ...(context.asOfDate === undefined ? {} : { asOfDate: context.asOfDate }),
      });
    },
  };
}
