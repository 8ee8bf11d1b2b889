/**
 * The options of the L5 semantic rung (src/semantic/check-semantic.ts), their defaults and their
 * reader. Every front end reads them, with L5 on or off (a promptfoo config block, a matcher
 * option, `spider --test-suite` flags), so this module loads only the option readers and the
 * budgets' rules: nothing of the suite builder or the counterexample search.
 */
import path from 'node:path';
import { invalidValue, isPlainRecord, optionReader } from '../options.js';
import { DEFAULT_EMPTY_VS_NULL_ROW, EMPTY_VS_NULL_ROW_VALUES, type EmptyVsNullRow } from './model/empty-vs-null-row.js';
import { DEFAULT_SEARCH_BUDGET, resolveSearchBudget, type SearchBudget } from './search/search-budget.js';
import { DEFAULT_SUITE_BUDGET, resolveSuiteBudget, type SuiteBudget } from './suite/suite-budget.js';
import type { NullPolicy } from './generation/value-pools.js';

/** Settings of the distilled test suite step; a suite is built (and cached) per distinct settings. */
export interface SuiteSettings {
  /** Per gold: databases drawn, seconds, patience ({@link SuiteBudget}; `{}` = defaults). */
  readonly budget: SuiteBudget;
  /** Seed of the generated databases (any string or number). */
  readonly seed: string | number;
  /** Where generated values may be NULL: wherever the schema allows (`allowed`) or where the snapshots hold some (`observed`). */
  readonly nulls: NullPolicy;
  /** Whether an empty result and one row of NULLs differ on a generated database ({@link EmptyVsNullRow}; the suite judges as the search does). */
  readonly emptyVsNullRow: EmptyVsNullRow;
  /** Cache folder (default: the suite cache's default folder). */
  readonly cacheDir?: string;
}

/** Settings of the counterexample search step. */
export interface SearchSettings {
  /** Per item: databases drawn, seconds, shrinking trials ({@link SearchBudget}; `{}` = defaults). */
  readonly budget: SearchBudget;
  /** Seed of the drawn databases (any string or number): the same inputs and seed find the same witness. */
  readonly seed: string | number;
  /** Where drawn values may be NULL, as in {@link SuiteSettings.nulls}. */
  readonly nulls: NullPolicy;
  /** Whether an empty result and one row of NULLs differ ({@link EmptyVsNullRow}). */
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** Settings of the verdict cache (src/semantic/verdict-cache.ts). */
export interface VerdictCacheSettings {
  /** Folder of the stored verdicts (default: `verdicts` beside the default suite cache; `<cacheDir>/verdicts` when `cacheDir` is given). */
  readonly cacheDir?: string;
}

/** The rung's options, validated (see {@link readSemanticOptions}). */
export interface SemanticOptions {
  /** The distilled test suite step, or `false` to skip it. */
  readonly suite: SuiteSettings | false;
  /** The counterexample search step, or `false` to skip it. */
  readonly search: SearchSettings | false;
  /** The verdict cache, or `false` to judge every item afresh (and store nothing). */
  readonly verdictCache: VerdictCacheSettings | false;
}

/** Both steps on, library budgets (suite: 300 databases / 600 s / patience 100 per gold; search: 100 databases / 60 s / 150 shrinking trials per item), seed 0, NULLs wherever allowed, empty vs one NULL row judged the same, the verdict cache on in its default folder. */
export const DEFAULT_SEMANTIC_OPTIONS: SemanticOptions = Object.freeze({
  suite: Object.freeze({ budget: {}, seed: 0, nulls: 'allowed' as NullPolicy, emptyVsNullRow: DEFAULT_EMPTY_VS_NULL_ROW }),
  search: Object.freeze({ budget: {}, seed: 0, nulls: 'allowed' as NullPolicy, emptyVsNullRow: DEFAULT_EMPTY_VS_NULL_ROW }),
  verdictCache: Object.freeze({}),
});

const OPTION_NAMES = ['suite', 'search', 'seed', 'nulls', 'emptyVsNullRow', 'cacheDir', 'verdictCache'] as const;

/**
 * Reads the rung's options from an unchecked value (a promptfoo config block, a matcher option,
 * CLI flags). `true` / `undefined` mean {@link DEFAULT_SEMANTIC_OPTIONS}.
 *
 * Shape: `{ suite?: true | false | { maxDatabases, maxSeconds, patience }, search?: true | false |
 * { maxDatabases, maxSeconds, maxShrinkTrials }, seed?: string | number, nulls?: 'allowed' |
 * 'observed', emptyVsNullRow?: 'same' | 'different', cacheDir?: string, verdictCache?: boolean }`.
 * `cacheDir` holds the suites, and the verdicts in its `verdicts` folder.
 * @param naming.name - how messages name the block (default `semantic`; e.g. `config.semantic`).
 * @throws LadderError('invalid_option') naming the option, the expected and the received value.
 * @example readSemanticOptions({ search: { maxSeconds: 2 } }) // suite defaults, search budget 2 s
 */
export function readSemanticOptions(value: unknown, naming: { readonly name?: string } = {}): SemanticOptions {
  const name = naming.name ?? 'semantic';
  if (value === undefined || value === null || value === true) return DEFAULT_SEMANTIC_OPTIONS;
  if (!isPlainRecord(value)) throw invalidValue(name, 'true or { suite, search, seed, nulls, emptyVsNullRow, cacheDir, verdictCache }', value);
  const read = optionReader(value, { prefix: `${name}.` });
  read.unknownKeys(OPTION_NAMES);
  const seedRaw = read.raw('seed');
  if (seedRaw !== undefined && typeof seedRaw !== 'string' && !(typeof seedRaw === 'number' && Number.isFinite(seedRaw))) throw read.invalid('seed', 'a string or a number', seedRaw);
  const seed = (seedRaw as string | number | undefined) ?? 0;
  const nulls = read.oneOf<NullPolicy>('nulls', ['allowed', 'observed']) ?? 'allowed';
  const emptyVsNullRow = read.oneOf<EmptyVsNullRow>('emptyVsNullRow', EMPTY_VS_NULL_ROW_VALUES) ?? DEFAULT_EMPTY_VS_NULL_ROW;
  const cacheDir = read.string('cacheDir', 'a folder path');
  const verdictCacheRaw = read.raw('verdictCache');
  if (verdictCacheRaw !== undefined && typeof verdictCacheRaw !== 'boolean') throw read.invalid('verdictCache', 'true or false', verdictCacheRaw);
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
    suite: suiteBudget === false ? false : { budget: suiteBudget, seed, nulls, emptyVsNullRow, ...(cacheDir === undefined ? {} : { cacheDir }) },
    search: searchBudget === false ? false : { budget: searchBudget, seed, nulls, emptyVsNullRow },
    verdictCache: verdictCacheRaw === false ? false : cacheDir === undefined ? {} : { cacheDir: path.join(cacheDir, 'verdicts') },
  };
}
