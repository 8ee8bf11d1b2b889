import { describe, expect, it } from 'vitest';
import { PRESETS, resolvePolicy } from '../../src/compare/policy.js';
import { LadderError } from '../../src/errors.js';

describe('resolvePolicy — argument validation', () => {
  it.each<[string, unknown, string]>([
    ['unknown preset', 'sqlglot', 'policy must be one of default, spider, bird; received a string ("sqlglot")'],
    ['wrong kind', 42, 'policy must be a preset name (default, spider, bird) or an options object; received a number (42)'],
    ['unknown option', { ordered: true }, 'policy.ordered is not an option; known options: preset, rowOrder, tieAware, duplicates, columnOrder, matchColumnNames, allowExtraColumns, floatTolerance, coerceNumericStrings, emptyMatchesEmpty, columnSearchBudget, maxSampleRows, rewrites, keepDistinct'],
    ['renamed option', { orderMatters: true }, 'policy.orderMatters is not an option (did you mean policy.rowOrder?); known options: preset, rowOrder, tieAware, duplicates, columnOrder, matchColumnNames, allowExtraColumns, floatTolerance, coerceNumericStrings, emptyMatchesEmpty, columnSearchBudget, maxSampleRows, rewrites, keepDistinct'],
    ['renamed option (Spider flag spelling)', { keep_distinct: true }, 'policy.keep_distinct is not an option (did you mean policy.keepDistinct?); known options: preset, rowOrder, tieAware, duplicates, columnOrder, matchColumnNames, allowExtraColumns, floatTolerance, coerceNumericStrings, emptyMatchesEmpty, columnSearchBudget, maxSampleRows, rewrites, keepDistinct'],
    ['bad rowOrder', { rowOrder: 'always' }, "policy.rowOrder must be one of 'gold-order-by', 'gold-text-order-by', 'ignore'; received a string (\"always\")"],
    ['bad tolerance kind', { floatTolerance: { kind: 'ulp', value: 1 } }, "policy.floatTolerance.kind must be 'relative' or 'absolute'; received a string (\"ulp\")"],
    ['negative tolerance', { floatTolerance: { kind: 'absolute', value: -1 } }, 'policy.floatTolerance.value must be ≥ 0; received a number (-1)'],
    ['zero budget', { columnSearchBudget: 0 }, 'policy.columnSearchBudget must be an integer ≥ 1; received a number (0)'],
    ['non-boolean flag', { allowExtraColumns: 'yes' }, 'policy.allowExtraColumns must be a boolean; received a string ("yes")'],
    ['bad year', { rewrites: { currentYear: 'now' } }, 'policy.rewrites.currentYear must be an integer year or null; received a string ("now")'],
  ])('%s', (_name, value, message) => {
    expect(() => resolvePolicy(value as never)).toThrow(new LadderError('invalid_option', message));
  });
});

describe('resolvePolicy — presets and overrides', () => {
  it('no argument gives the default preset object', () => {
    expect(resolvePolicy()).toBe(PRESETS.default);
  });

  it.each([
    ['default', 'gold-order-by', true, 'multiset', 'ignore', { kind: 'relative', value: 1e-6 }, 'same-columns'],
    ['spider', 'gold-text-order-by', false, 'multiset', 'ignore', { kind: 'absolute', value: 0 }, 'always'],
    ['bird', 'ignore', false, 'set', 'significant', { kind: 'absolute', value: 0 }, 'always'],
  ] as const)('%s preset', (name, rowOrder, tieAware, duplicates, columnOrder, floatTolerance, empty) => {
    const policy = resolvePolicy(name);
    expect([policy.rowOrder, policy.tieAware, policy.duplicates, policy.columnOrder, policy.floatTolerance, policy.emptyMatchesEmpty]).toEqual([
      rowOrder, tieAware, duplicates, columnOrder, floatTolerance, empty,
    ]);
  });

  it('spider rewrites are on; keepDistinct turns DISTINCT removal off', () => {
    expect(resolvePolicy('spider').rewrites).toEqual({ removeDistinct: true, joinSpacedOperators: true, currentYear: 2020, valuePlaceholder: true });
    const kept = resolvePolicy({ preset: 'spider', keepDistinct: true });
    expect([kept.preset, kept.rewrites.removeDistinct, kept.rewrites.currentYear]).toEqual(['spider', false, 2020]);
  });

  it('overrides keep the preset name and are frozen', () => {
    const policy = resolvePolicy({ preset: 'bird', allowExtraColumns: true });
    expect([policy.preset, policy.allowExtraColumns, policy.duplicates]).toEqual(['bird', true, 'set']);
    expect(Object.isFrozen(policy)).toBe(true);
  });
});
