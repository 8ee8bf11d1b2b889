import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/engine/engine.js';
import { compareTables, levenshtein, overlapColumnMap, rowSimilarity, tableSimilarity, type ResultTable } from '../../src/compare/table-similarity.js';

const table = (rows: Cell[][], columnCount = rows[0]?.length ?? 0): ResultTable => ({ columnCount, rows });

describe('tableSimilarity: small exact cases', () => {
  it.each([
    ['identical tables', [[1, 'a'], [2, 'b']], [[1, 'a'], [2, 'b']], 1],
    ['one replaced cell of two', [[1], [2]], [[1], [3]], 0.5],
    ['columns swapped', [[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]], 1],
    ['an extra predicted column costs 1 / max(n, m)', [[1], [2]], [[1, 'x'], [2, 'y']], 0.5],
    ['a missing column scores 0 for it', [[1, 'a'], [2, 'b']], [[1], [2]], 0.5],
    ['an extra row: 1 − 1/3', [[1], [2]], [[1], [2], [3]], 2 / 3],
    ['rows in the other order (as returned)', [[1], [2]], [[2], [1]], 0],
    ['175 equals 175.0', [[175]], [[175.0]], 1],
    ["'175' is not 175", [[175]], [['175']], 0],
    ['NULL is not 0', [[null]], [[0]], 0],
    ['column of 3 vs 2 with a swap: lev 2 / 3 per column', [[1], [2], [3]], [[2], [1]], 1 / 3],
  ] as const)('%s', (_name, gold, predicted, expected) => {
    const result = tableSimilarity(table(gold as unknown as Cell[][]), table(predicted as unknown as Cell[][]));
    expect(result.method).toBe('exact');
    expect(result.score).toBeCloseTo(expected, 12);
  });

  it('reports the best predicted column per gold column and its score', () => {
    const result = tableSimilarity(table([[1, 'a'], [2, 'b']]), table([['a', 1], ['b', 3]]));
    expect(result.bestPredictedColumn).toEqual([1, 0]);
    expect(result.columnScores).toEqual([0.5, 1]);
    expect(result.score).toBe(0.75);
  });

  it('handles tables without columns or rows', () => {
    expect(tableSimilarity(table([], 0), table([], 0)).score).toBe(1);
    expect(tableSimilarity(table([], 0), table([[1]])).score).toBe(0);
    expect(tableSimilarity(table([], 1), table([], 1)).score).toBe(1);
    expect(tableSimilarity(table([], 1), table([[1]])).score).toBe(0);
  });

  it('ignores row order with rowOrder sorted', () => {
    expect(tableSimilarity(table([[1], [2]]), table([[2], [1]]), { rowOrder: 'sorted' }).score).toBe(1);
  });

  it('validates its options', () => {
    expect(() => tableSimilarity(table([[1]]), table([[1]]), { maxExactCellPairs: -1 })).toThrow(RangeError);
    expect(() => tableSimilarity(table([[1]]), table([[1]]), { rowOrder: 'random' as 'sorted' })).toThrow(TypeError);
  });
});

describe('tableSimilarity: scalable method (bag distance)', () => {
  it('switches to the bag distance above maxExactCellPairs; it ignores order (an upper bound)', () => {
    const result = tableSimilarity(table([[1], [2]]), table([[2], [1]]), { maxExactCellPairs: 3 });
    expect(result.method).toBe('bag');
    expect(result.score).toBe(1);
  });

  it('equals the exact value for rows removed at one end, on a table above the default cap', () => {
    const gold = table(Array.from({ length: 5000 }, (_, r) => [r, `v${r}`]));
    const predicted = table(gold.rows.slice(0, 4900) as Cell[][]);
    const bag = tableSimilarity(gold, predicted);
    expect(bag.method).toBe('bag');
    expect(bag.score).toBeCloseTo(0.98, 12);
    const exact = tableSimilarity(gold, predicted, { maxExactCellPairs: Number.POSITIVE_INFINITY });
    expect(exact.method).toBe('exact');
    expect(exact.score).toBeCloseTo(0.98, 12);
  });
});

describe('compareTables', () => {
  it('gives the same numbers as tableSimilarity and rowSimilarity, interning once', () => {
    const gold = table([[1, 'a'], [2, 'b'], [3, 'c']]);
    const predicted = table([['a', 1], ['c', 3], ['d', 4]]);
    const both = compareTables(gold, predicted, { rowOrder: 'sorted' });
    expect(both.table).toEqual(tableSimilarity(gold, predicted, { rowOrder: 'sorted' }));
    expect(both.rows).toEqual(rowSimilarity(gold, predicted));
    expect(both.rows.matchedRows).toBe(2);
    // sorted columns [1, 2, 3] vs [1, 3, 4]: Levenshtein 2 of 3 rows → 1/3 per column
    expect(both.table.score).toBeCloseTo(1 / 3, 12);
  });
});

describe('levenshtein', () => {
  const codes = (s: string) => Int32Array.from([...s].map((c) => c.charCodeAt(0)));
  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['abc', 'abc', 0],
    ['flaw', 'lawn', 2],
    ['abcdef', 'azced', 3],
  ])('lev(%s, %s) = %d', (a, b, d) => {
    expect(levenshtein(codes(a), codes(b))).toBe(d);
  });
});

describe('rowSimilarity', () => {
  it('matches rows under the overlap column map (columns swapped, one extra row)', () => {
    const result = rowSimilarity(table([[1, 'a'], [2, 'b']]), table([['a', 1], ['b', 2], ['c', 3]]));
    expect(result).toMatchObject({ matchedRows: 2, goldRows: 2, predictedRows: 3, recall: 1, columnMap: [1, 0] });
    expect(result.precision).toBeCloseTo(2 / 3, 12);
    expect(result.f1).toBeCloseTo(0.8, 12);
  });

  it('compares multisets: duplicates count as often as they occur', () => {
    const result = rowSimilarity(table([[1], [1], [2]]), table([[1], [2], [2]]));
    expect(result.matchedRows).toBe(2);
    expect(result.f1).toBeCloseTo(2 / 3, 12);
  });

  it('uses a given column map; an unmapped gold column matches nothing', () => {
    expect(rowSimilarity(table([[1, 'a']]), table([['a', 1]]), [1, 0]).f1).toBe(1);
    expect(rowSimilarity(table([[1, 'a']]), table([['a', 1]]), [0, 1]).f1).toBe(0);
    expect(rowSimilarity(table([[1, 'a']]), table([[1]]), [0, -1]).matchedRows).toBe(0);
    expect(() => rowSimilarity(table([[1, 'a']]), table([[1]]), [0])).toThrow(RangeError);
  });

  it('scores two empty results 1', () => {
    expect(rowSimilarity(table([], 1), table([], 1)).f1).toBe(1);
  });

  it('pairs columns by shared cells, preferring the same position on ties', () => {
    expect(overlapColumnMap(table([[1, 1]]), table([[1, 1]]))).toEqual([0, 1]);
    expect(overlapColumnMap(table([[1, 'x'], [2, 'y']]), table([['y', 2], ['x', 1]]))).toEqual([1, 0]);
  });
});
