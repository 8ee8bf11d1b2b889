/**
 * The `bird` comparison preset: BIRD's execution accuracy (`evaluation.py`, `calculate_ex`:
 * `set(predicted_res) == set(ground_truth_res)`): rows as sets (duplicates and order ignored),
 * column i matches column i, exact values, two empty results match, no SQL rewrites. Shape:
 * `ComparisonPolicy` (compare/policy.ts checks it where the presets are listed).
 */
import { NO_REWRITES } from '../spider/sql-rewrites.js';

export const BIRD_PRESET = Object.freeze({
  preset: 'bird',
  rowOrder: 'ignore',
  tieAware: false,
  duplicates: 'set',
  columnOrder: 'significant',
  matchColumnNames: false,
  allowExtraColumns: false,
  floatTolerance: Object.freeze({ kind: 'absolute', value: 0 } as const),
  coerceNumericStrings: false,
  emptyMatchesEmpty: 'always',
  columnSearchBudget: 2_000_000,
  maxSampleRows: 5,
  rewrites: NO_REWRITES,
} as const);
