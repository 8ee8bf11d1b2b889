/**
 * `ComparisonPolicy`: the explicit rules under which a predicted result counts as equal to a gold
 * result. Every verdict carries the policy it was decided under, so that a number can always be
 * traced to its rules. Three presets:
 *
 * | option                 | `default` (ours)          | `spider` (test-suite)       | `bird`                |
 * |------------------------|---------------------------|-----------------------------|-----------------------|
 * | `rowOrder`             | `gold-order-by` (parsed)  | `gold-text-order-by`        | `ignore`              |
 * | `tieAware`             | true                      | false                       | false                 |
 * | `duplicates`           | `multiset`                | `multiset`                  | `set`                 |
 * | `columnOrder`          | `ignore` (one column map) | `ignore` (permutation)      | `significant`         |
 * | `matchColumnNames`     | false                     | false                       | false                 |
 * | `allowExtraColumns`    | false                     | false                       | false                 |
 * | `floatTolerance`       | relative 1e-6             | exact (0)                   | exact (0)             |
 * | `coerceNumericStrings` | false                     | false                       | false                 |
 * | `emptyMatchesEmpty`    | `same-columns`            | `always`                    | `always`              |
 * | `rewrites`             | none                      | Spider's text rewrites      | none                  |
 *
 * Sources: Spider test-suite `exec_eval.py` (`result_eq`, `eval_exec_match`, `postprocess`,
 * `replace_cur_year`) and `parse.py` (`remove_distinct`), `evaluation.py` (`evaluate`: the
 * `" value "` replacement); BIRD `evaluation.py` (`calculate_ex`: `set(predicted_res) ==
 * set(ground_truth_res)`).
 */
import { LadderError } from '../errors.js';
import { describeReceived, invalidValue, isPlainRecord, rejectUnknownKeys } from '../options.js';
import { BIRD_PRESET } from '../benchmarks/bird/preset.js';
import { NO_REWRITES, type SqlRewrites } from './sql-rewrites.js';
import { SPIDER_PRESET } from '../benchmarks/spider/preset.js';

export type { SqlRewrites } from './sql-rewrites.js';

/** The named presets. */
export type PresetName = 'default' | 'spider' | 'bird';

/** Every preset name, for option validation. */
export const PRESET_NAMES: readonly PresetName[] = ['default', 'spider', 'bird'];

/**
 * How two non-integer numbers are compared. Integers (and bigint) always compare exactly; the
 * tolerance applies as soon as one side is a non-integral number.
 * - `relative`: equal when `|a − b| ≤ value × max(|a|, |b|)`.
 * - `absolute`: equal when `|a − b| ≤ value`.
 * `value: 0` means exact equality of the two doubles.
 */
export interface FloatTolerance {
  readonly kind: 'relative' | 'absolute';
  /** Non-negative; unit-less for `relative`, the value's own unit for `absolute`. */
  readonly value: number;
}

/** The comparison rules; see the module table for the presets. All fields are required once resolved. */
export interface ComparisonPolicy {
  /** The preset this policy started from (options may have been overridden). */
  readonly preset: PresetName;
  /**
   * When row order matters:
   * - `gold-order-by`: when the gold's outermost query has ORDER BY, found by parsing (an ORDER BY
   *   inside `OVER (…)`, a subquery or a CTE does not count); a careful depth-0 token scan when the
   *   parser cannot read the gold (flag `order_by_token_scan`).
   * - `gold-text-order-by`: when the lower-cased gold text contains `order by` anywhere (Spider
   *   `eval_exec_match`: `order_matters = 'order by' in g_str.lower()`).
   * - `ignore`: never.
   */
  readonly rowOrder: 'gold-order-by' | 'gold-text-order-by' | 'ignore';
  /**
   * When order matters, rows tied on the gold's sort keys may come in any order, and a LIMIT that
   * cuts through a tie group accepts any valid tie choice (flag `nondeterministic_gold`). When
   * false, order is checked row by row.
   */
  readonly tieAware: boolean;
  /** `multiset`: duplicates count. `set`: rows are deduplicated on both sides first (BIRD). */
  readonly duplicates: 'multiset' | 'set';
  /**
   * `ignore`: the prediction's columns may come in any order, matched through ONE column map found
   * by search (never by sorting values inside rows). `significant`: column i matches column i.
   */
  readonly columnOrder: 'ignore' | 'significant';
  /** When true, a gold column maps only to a predicted column of the same name (case-insensitive, trimmed). */
  readonly matchColumnNames: boolean;
  /** When true, predicted columns beyond those the map uses are allowed; otherwise they fail the match. */
  readonly allowExtraColumns: boolean;
  /** Tolerance for non-integer numbers (integers are exact; 175 = 175.0 always). */
  readonly floatTolerance: FloatTolerance;
  /** When true, text that is exactly a decimal number (`'175'`, `' 1.5e3 '`) compares as that number. */
  readonly coerceNumericStrings: boolean;
  /**
   * Whether two empty results match: `always` (Spider, BIRD: whatever the columns), or
   * `same-columns` (the column counts must agree as for non-empty results). An empty-vs-empty match
   * always carries the `empty_gold` flag.
   */
  readonly emptyMatchesEmpty: 'always' | 'same-columns';
  /**
   * Work budget of the column-map backtracking, in cell visits (default 2 000 000; `spider`
   * 50 000 000). The candidate filter before it (column × column × rows) is not charged. When the
   * budget runs out the verdict is `undecided`, never a guess.
   */
  readonly columnSearchBudget: number;
  /** Most rows kept in each of the verdict's missing / extra samples (default 5). */
  readonly maxSampleRows: number;
  /** SQL text rewrites applied before execution (Spider quirks). */
  readonly rewrites: SqlRewrites;
}

/** The presets, frozen. */
export const PRESETS: Readonly<Record<PresetName, ComparisonPolicy>> = Object.freeze({
  default: Object.freeze({
    preset: 'default',
    rowOrder: 'gold-order-by',
    tieAware: true,
    duplicates: 'multiset',
    columnOrder: 'ignore',
    matchColumnNames: false,
    allowExtraColumns: false,
    floatTolerance: Object.freeze({ kind: 'relative', value: 1e-6 }),
    coerceNumericStrings: false,
    emptyMatchesEmpty: 'same-columns',
    columnSearchBudget: 2_000_000,
    maxSampleRows: 5,
    rewrites: NO_REWRITES,
  }),
  spider: SPIDER_PRESET,
  bird: BIRD_PRESET,
});

/**
 * What {@link resolvePolicy} accepts besides a preset name: a preset to start from (default
 * `default`) plus any options to override; `keepDistinct: true` is shorthand for
 * `rewrites.removeDistinct: false` (Spider's `--keep_distinct`).
 */
export type PolicyInput = Partial<Omit<ComparisonPolicy, 'rewrites' | 'floatTolerance'>> & {
  readonly floatTolerance?: FloatTolerance;
  readonly rewrites?: Partial<SqlRewrites>;
  readonly keepDistinct?: boolean;
};

const KNOWN_KEYS: readonly string[] = [
  'preset', 'rowOrder', 'tieAware', 'duplicates', 'columnOrder', 'matchColumnNames', 'allowExtraColumns',
  'floatTolerance', 'coerceNumericStrings', 'emptyMatchesEmpty', 'columnSearchBudget', 'maxSampleRows',
  'rewrites', 'keepDistinct',
];

/** Misspellings and other libraries' names, with the option that replaces them. */
const RENAMED: Readonly<Record<string, string>> = {
  orderMatters: 'rowOrder',
  ignoreColumnOrder: 'columnOrder',
  ignoreDuplicates: 'duplicates',
  tolerance: 'floatTolerance',
  keep_distinct: 'keepDistinct',
  checkColumnNames: 'matchColumnNames',
  extraColumns: 'allowExtraColumns',
};

/**
 * Turns a preset name or a partial policy into a complete, frozen {@link ComparisonPolicy}.
 *
 * @param input - `undefined` (→ `default`), a {@link PresetName}, a complete policy, or a
 *   {@link PolicyInput}.
 * @param options.name - how messages name the policy (default `policy`; a promptfoo assertion
 *   passes `config.policy`).
 * @returns the resolved policy (a preset object itself when nothing is overridden).
 * @throws LadderError `invalid_option` naming the option, the expected and the received value
 *   (unknown preset, unknown or renamed option, out-of-range tolerance or budget).
 * @example
 * resolvePolicy('spider').rowOrder                                // 'gold-text-order-by'
 * resolvePolicy({ preset: 'spider', keepDistinct: true }).rewrites.removeDistinct // false
 * resolvePolicy({ floatTolerance: { kind: 'absolute', value: 0.01 } }).preset     // 'default'
 */
export function resolvePolicy(input?: PresetName | PolicyInput | ComparisonPolicy, naming: { readonly name?: string } = {}): ComparisonPolicy {
  const name = naming.name ?? 'policy';
  // Defaults.
  if (input === undefined) return PRESETS.default;
  // Validate the argument's kind.
  if (typeof input === 'string') {
    if (!PRESET_NAMES.includes(input as PresetName)) {
      throw invalidValue(name, `one of ${PRESET_NAMES.join(', ')}`, input);
    }
    return PRESETS[input as PresetName];
  }
  if (!isPlainRecord(input)) {
    throw invalidValue(name, `a preset name (${PRESET_NAMES.join(', ')}) or an options object`, input);
  }
  rejectUnknownKeys(input, KNOWN_KEYS, { prefix: `${name}.`, renamed: RENAMED });
  // Interpret: start from the preset, apply overrides.
  const options: PolicyInput = input;
  const presetName = options.preset ?? 'default';
  if (!PRESET_NAMES.includes(presetName)) throw invalidValue(`${name}.preset`, `one of ${PRESET_NAMES.join(', ')}`, presetName);
  const base = PRESETS[presetName];
  const rewrites: SqlRewrites = {
    ...base.rewrites,
    ...(options.rewrites ?? {}),
    ...(options.keepDistinct === undefined ? {} : { removeDistinct: !options.keepDistinct }),
  };
  const policy: ComparisonPolicy = {
    preset: presetName,
    rowOrder: options.rowOrder ?? base.rowOrder,
    tieAware: options.tieAware ?? base.tieAware,
    duplicates: options.duplicates ?? base.duplicates,
    columnOrder: options.columnOrder ?? base.columnOrder,
    matchColumnNames: options.matchColumnNames ?? base.matchColumnNames,
    allowExtraColumns: options.allowExtraColumns ?? base.allowExtraColumns,
    floatTolerance: options.floatTolerance ?? base.floatTolerance,
    coerceNumericStrings: options.coerceNumericStrings ?? base.coerceNumericStrings,
    emptyMatchesEmpty: options.emptyMatchesEmpty ?? base.emptyMatchesEmpty,
    columnSearchBudget: options.columnSearchBudget ?? base.columnSearchBudget,
    maxSampleRows: options.maxSampleRows ?? base.maxSampleRows,
    rewrites,
  };
  // Validate the interpreted options.
  validatePolicy(policy, options.keepDistinct, name);
  return Object.freeze({ ...policy, floatTolerance: Object.freeze({ ...policy.floatTolerance }), rewrites: Object.freeze(rewrites) });
}

function validatePolicy(policy: ComparisonPolicy, keepDistinct: unknown, name: string): void {
  const invalid = (option: string, expected: string, received: unknown): LadderError => invalidValue(`${name}.${option}`, expected, received);
  const oneOf = (option: string, value: unknown, allowed: readonly string[]): void => {
    if (!allowed.includes(value as string)) throw invalid(option, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  };
  const positiveInteger = (option: string, value: unknown, allowZero = false): void => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw invalid(option, `an integer ≥ ${allowZero ? 0 : 1}`, value);
  };
  oneOf('rowOrder', policy.rowOrder, ['gold-order-by', 'gold-text-order-by', 'ignore']);
  oneOf('duplicates', policy.duplicates, ['multiset', 'set']);
  oneOf('columnOrder', policy.columnOrder, ['ignore', 'significant']);
  oneOf('emptyMatchesEmpty', policy.emptyMatchesEmpty, ['always', 'same-columns']);
  for (const key of ['tieAware', 'matchColumnNames', 'allowExtraColumns', 'coerceNumericStrings'] as const) {
    if (typeof policy[key] !== 'boolean') throw invalid(key, 'a boolean', policy[key]);
  }
  if (keepDistinct !== undefined && typeof keepDistinct !== 'boolean') throw invalid('keepDistinct', 'a boolean', keepDistinct);
  const tolerance = policy.floatTolerance as unknown;
  if (typeof tolerance !== 'object' || tolerance === null) {
    throw invalid('floatTolerance', "{ kind: 'relative' | 'absolute', value: number ≥ 0 }", tolerance);
  }
  const { kind, value } = tolerance as { kind?: unknown; value?: unknown };
  if (kind !== 'relative' && kind !== 'absolute') throw invalid('floatTolerance.kind', "'relative' or 'absolute'", kind);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('floatTolerance.value', 'a finite number', value);
  if (value < 0) {
    throw new LadderError('invalid_option', `${name}.floatTolerance.value must be ≥ 0; received ${describeReceived(value)}`, {
      cause: new RangeError('floatTolerance.value'),
    });
  }
  positiveInteger('columnSearchBudget', policy.columnSearchBudget);
  positiveInteger('maxSampleRows', policy.maxSampleRows, true);
  const r = policy.rewrites;
  for (const key of ['removeDistinct', 'joinSpacedOperators', 'valuePlaceholder'] as const) {
    if (typeof r[key] !== 'boolean') throw invalid(`rewrites.${key}`, 'a boolean', r[key]);
  }
  if (r.currentYear !== null && !(typeof r.currentYear === 'number' && Number.isInteger(r.currentYear))) {
    throw invalid('rewrites.currentYear', 'an integer year or null', r.currentYear);
  }
}
