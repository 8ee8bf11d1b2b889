import { describe, expect, it } from 'vitest';
import { BudgetExceeded, WorkBudget, maximumMatching, segmentsAgree, segmentsAgreeTolerant } from '../../src/compare/row-matching.js';

const relative = { kind: 'relative', value: 1e-6 } as const;

describe('segmentsAgree', () => {
  it.each([
    ['one segment: multiset equality', [1, 2, 2], [2, 1, 2], [{ start: 0, end: 3, pool: [0, 1, 2] }], true],
    ['one segment: counts differ', [1, 2, 2], [1, 1, 2], [{ start: 0, end: 3, pool: [0, 1, 2] }], false],
    ['strict order: one segment per position', [1, 2], [2, 1], [{ start: 0, end: 1, pool: [0] }, { start: 1, end: 2, pool: [1] }], false],
    ['cut group: prediction is a sub-multiset of a larger pool', [7, 8, 9], [9], [{ start: 0, end: 1, pool: [0, 1, 2] }], true],
  ] as const)('%s', (_name, gold, pred, segments, expected) => {
    expect(segmentsAgree(gold, pred, segments, new WorkBudget(1000))).toBe(expected);
  });

  it('charges the budget and throws BudgetExceeded past it', () => {
    const budget = new WorkBudget(5);
    expect(() => segmentsAgree([1, 2, 3], [1, 2, 3], [{ start: 0, end: 3, pool: [0, 1, 2] }], budget)).toThrow(BudgetExceeded);
    expect(budget.used).toBe(6);
  });
});

describe('segmentsAgreeTolerant', () => {
  it('pairs exact rows first, then the rest by tolerance', () => {
    const gold = [[1.0000001, 'a'], [1.0000003, 'a'], [5, 'b']];
    const pred = [['a', 1.0000002], ['b', 5], ['a', 1]];
    const segments = [{ start: 0, end: 3, pool: [0, 1, 2] }];
    expect(segmentsAgreeTolerant(gold, pred, [1, 0], segments, relative, new WorkBudget(1e6))).toBe(true);
    expect(segmentsAgreeTolerant(gold, pred, [1, 0], segments, { kind: 'absolute', value: 0 }, new WorkBudget(1e6))).toBe(false);
  });
});

describe('maximumMatching', () => {
  it('finds an augmenting path where greedy pairing would fail', () => {
    // Left 0 can take right 0 or 1; left 1 only right 0. Greedy 0→0 blocks left 1.
    const edges = new Set(['0-0', '1-0', '0-1']);
    expect(maximumMatching([0, 1], [0, 1], (r, l) => edges.has(`${l}-${r}`))).toBe(2);
  });
});
