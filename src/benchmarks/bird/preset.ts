/**
 * The `bird` comparison preset: BIRD's execution accuracy (`evaluation.py`, `calculate_ex`:
 * `set(predicted_res) == set(ground_truth_res)`): rows as sets (duplicates and order ignored),
 * column i matches column i, exact values, two empty results match, no SQL rewrites (written out:
 * a preset is data that compare/ lists, so it imports nothing of compare/). Shape:
 * `ComparisonPolicy` (compare/policy.ts checks it where the presets are listed).
 */
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
  rewrites: Object.freeze({
    removeDistinct: false,
    joinSpacedOperators: false,
    currentYear: null,
    valuePlaceholder: false,
  }),
} as const);
