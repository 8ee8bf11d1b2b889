import { describe, expect, it } from 'vitest';
import { compareResults } from '../../src/compare/compare-results.js';
import { overlapColumnMap } from '../../src/compare/column-overlap.js';
import { rowSimilarity } from '../../src/compare/table-similarity.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { Cell } from '../../src/engine/engine.js';
import { result } from './helpers.js';

type Rows = (readonly Cell[])[];
const def = resolvePolicy('default');
const spider = resolvePolicy('spider');
const bird = resolvePolicy('bird');

describe('compareResults — default preset, cell rules', () => {
  it.each<[string, Rows, Rows, boolean]>([
    ['175 = 175.0 (INTEGER vs REAL arrive as one number)', [[175]], [[175.0]], true],
    ["'175' ≠ 175 without coerceNumericStrings", [[175]], [['175']], false],
    ['NULL ≠ 0', [[null]], [[0]], false],
    ["NULL ≠ ''", [[null]], [['']], false],
    ["0 ≠ ''", [[0]], [['']], false],
    ['a NULL row ≠ no row', [[null]], [], false],
    ['integers exact: 2^53+1 ≠ 2^53', [[2n ** 53n + 1n]], [[2 ** 53]], false],
    ['bigint equals the same integral number', [[2n ** 60n]], [[2 ** 60]], true],
    ['floats within relative 1e-6', [[1.0000001]], [[1]], true],
    ['floats beyond relative 1e-6', [[1.00001]], [[1]], false],
    ['text is case-sensitive', [['Ford']], [['ford']], false],
    ['blobs by bytes', [[new Uint8Array([1, 2])]], [[new Uint8Array([1, 2])]], true],
    ['blob ≠ text', [[new Uint8Array([65])]], [['A']], false],
  ])('%s', (_name, gold, pred, expected) => {
    expect(compareResults(result(gold), result(pred, ['c0']), def).match).toBe(expected);
  });

  it('coerceNumericStrings makes text numbers compare as numbers', () => {
    const policy = resolvePolicy({ coerceNumericStrings: true });
    expect(compareResults(result([[175]]), result([[' 175.0 ']]), policy).match).toBe(true);
    expect(compareResults(result([[175]]), result([['175a']]), policy).match).toBe(false);
  });

  it('absolute tolerance', () => {
    const policy = resolvePolicy({ floatTolerance: { kind: 'absolute', value: 0.01 } });
    expect(compareResults(result([[2.5]]), result([[2.505]]), policy).match).toBe(true);
    expect(compareResults(result([[2.5]]), result([[2.52]]), policy).match).toBe(false);
  });
});

describe('compareResults — rows, duplicates, empty results', () => {
  it.each<[string, Rows, Rows, boolean, string]>([
    ['multiset: same rows in another order', [[1], [2], [2]], [[2], [1], [2]], true, 'results match'],
    ['multiset: duplicate counts differ', [[1], [2], [2]], [[1], [1], [2]], false, 'gold [2] vs predicted [1]'],
    ['multiset: one row too many', [[1]], [[1], [1]], false, 'prediction has 2 rows, gold has 1; 1 extra row: predicted [1]'],
    ['non-empty gold, empty prediction', [[1]], [], false, 'prediction has 0 rows, gold has 1; 1 missing row: gold [1]'],
  ])('%s', (_name, gold, pred, match, reason) => {
    const verdict = compareResults(result(gold), result(pred, ['c0']), def);
    expect([verdict.match, verdict.reason]).toEqual([match, reason]);
  });

  it('empty vs empty matches with the empty_gold flag', () => {
    const verdict = compareResults(result([], ['a']), result([], ['b']), def);
    expect([verdict.match, verdict.flags, verdict.reason]).toEqual([true, ['empty_gold'], 'both results are empty']);
  });

  it('default: empty vs empty with different column counts does not match; spider: it does', () => {
    expect(compareResults(result([], ['a']), result([], ['a', 'b']), def).match).toBe(false);
    const verdict = compareResults(result([], ['a']), result([], ['a', 'b']), spider);
    expect([verdict.match, verdict.flags]).toEqual([true, ['empty_gold']]);
  });

  it('missing and extra rows are sampled up to maxSampleRows, with true counts', () => {
    const policy = resolvePolicy({ maxSampleRows: 2 });
    const verdict = compareResults(result([[1], [2], [3], [4]]), result([[5], [6], [7], [4]]), policy);
    expect(verdict.missingRows).toEqual({ count: 3, rows: [[1], [2]] });
    expect(verdict.extraRows).toEqual({ count: 3, rows: [[5], [6]] });
    expect(verdict.firstDifference).toEqual({ goldRow: 0, predictedRow: 0, goldColumn: 0, predictedColumn: 0, gold: 1, predicted: 5 });
  });
});

describe('compareResults — columns', () => {
  it('column order is ignored through one consistent map', () => {
    const verdict = compareResults(result([[1, 'a'], [2, 'b']], ['id', 'name']), result([['b', 2], ['a', 1]], ['name', 'id']), def);
    expect([verdict.match, verdict.columnMap, verdict.flags]).toEqual([true, [1, 0], ['columns_reordered']]);
  });

  it('values moved between columns do not match (no per-row sorting)', () => {
    // Sorting each row would make both results {1,2},{3,4}.
    const verdict = compareResults(result([[1, 2], [3, 4]]), result([[2, 1], [3, 4]]), def);
    expect([verdict.match, verdict.reason, verdict.missingRows.rows, verdict.extraRows.rows]).toEqual([false, 'gold [1, 2] vs predicted [2, 1]', [[1, 2]], [[2, 1]]]);
  });

  it('extra predicted columns fail unless allowExtraColumns', () => {
    const gold = result([[1], [2]], ['id']);
    const pred = result([['x', 1], ['y', 2]], ['name', 'id']);
    const strict = compareResults(gold, pred, def);
    expect([strict.match, strict.reason]).toEqual([false, 'prediction has 1 extra column (2 vs 1; allowExtraColumns is off)']);
    const loose = compareResults(gold, pred, resolvePolicy({ allowExtraColumns: true }));
    expect([loose.match, loose.columnMap, loose.flags]).toEqual([true, [1], ['extra_columns_allowed', 'columns_reordered']]);
  });

  it('fewer predicted columns fail', () => {
    const verdict = compareResults(result([[1, 2]]), result([[1]], ['c0']), def);
    expect([verdict.match, verdict.reason]).toEqual([false, 'prediction has 1 column, gold has 2']);
  });

  it('names are ignored unless matchColumnNames (case-insensitive)', () => {
    const gold = result([[1]], ['count']);
    const pred = result([[1]], ['COUNT(*)']);
    expect(compareResults(gold, pred, def).match).toBe(true);
    expect(compareResults(gold, pred, resolvePolicy({ matchColumnNames: true })).match).toBe(false);
    expect(compareResults(gold, result([[1]], [' Count ']), resolvePolicy({ matchColumnNames: true })).match).toBe(true);
  });
});

describe('compareResults — row order', () => {
  const gold = result([[1], [2], [3]], ['a']);
  const swapped = result([[2], [1], [3]], ['a']);

  it.each<[string, string, boolean, readonly string[]]>([
    ['outer ORDER BY: order matters', 'SELECT a FROM t ORDER BY a', false, ['ordered', 'ties_unknown']],
    ['ORDER BY only in a subquery', 'SELECT a FROM (SELECT a FROM t ORDER BY a)', true, []],
    ['ORDER BY only inside OVER()', 'SELECT a FROM (SELECT a, rank() OVER (ORDER BY a) r FROM t)', true, []],
    ['no ORDER BY', 'SELECT a FROM t', true, []],
  ])('default, %s', (_name, goldSql, match, flags) => {
    const verdict = compareResults(gold, swapped, def, { goldSql });
    expect([verdict.match, verdict.flags]).toEqual([match, flags]);
  });

  it('spider: "order by" anywhere in the gold text means ordered (even in a subquery)', () => {
    const verdict = compareResults(gold, swapped, spider, { goldSql: 'SELECT a FROM (SELECT a FROM t ORDER BY a)' });
    expect([verdict.match, verdict.flags]).toEqual([false, ['ordered']]);
  });

  it('the first differing position is reported', () => {
    const verdict = compareResults(gold, swapped, def, { goldSql: 'SELECT a FROM t ORDER BY a' });
    expect(verdict.reason).toBe('same rows, but row order differs at row 0: gold 1 vs predicted 2');
    expect(verdict.firstDifference).toEqual({ goldRow: 0, predictedRow: 0, goldColumn: 0, predictedColumn: 0, gold: 1, predicted: 2 });
  });

  it('tie groups: rows tied on the sort key may come in any order', () => {
    const ordering = {
      ordered: true,
      source: 'ast' as const,
      segments: [
        { start: 0, end: 2, pool: [[1], [2]] },
        { start: 2, end: 3, pool: [[3]] },
      ],
    };
    expect(compareResults(gold, swapped, def, { ordering }).match).toBe(true);
    expect(compareResults(gold, result([[1], [3], [2]], ['a']), def, { ordering }).match).toBe(false);
    // A policy that is not tie-aware checks row by row.
    expect(compareResults(gold, swapped, resolvePolicy({ tieAware: false }), { ordering }).match).toBe(false);
  });

  it('a LIMIT cut through a tie group accepts any valid tie choice and flags the gold', () => {
    const ordering = {
      ordered: true,
      source: 'ast' as const,
      segments: [{ start: 0, end: 1, pool: [['x'], ['y'], ['z']] }],
      nondeterministic: true,
    };
    const gold1 = result([['x']], ['name']);
    const other = compareResults(gold1, result([['y']], ['name']), def, { ordering });
    expect([other.match, other.flags]).toEqual([true, ['ordered', 'nondeterministic_gold']]);
    expect(compareResults(gold1, result([['w']], ['name']), def, { ordering }).match).toBe(false);
  });
});

describe('compareResults — presets', () => {
  it('spider: exact floats, column permutations, multiset', () => {
    expect(compareResults(result([[1.0000001]]), result([[1]]), spider).match).toBe(false);
    expect(compareResults(result([[1, 'a'], [1, 'a']]), result([['a', 1], ['a', 1]]), spider).match).toBe(true);
    expect(compareResults(result([[1], [1]]), result([[1]]), spider).match).toBe(false);
  });

  it('bird: set equality of rows, column order significant', () => {
    expect(compareResults(result([[1], [1], [2]]), result([[2], [1]]), bird).match).toBe(true);
    const swapped = compareResults(result([[1, 'a']]), result([['a', 1]]), bird);
    expect([swapped.match, swapped.flags]).toEqual([false, ['deduplicated']]);
    expect(compareResults(result([[2], [1]]), result([[1], [2]]), bird, { goldSql: 'SELECT a FROM t ORDER BY a DESC' }).match).toBe(true);
    expect(compareResults(result([[0.1 + 0.2]]), result([[0.3]]), bird).match).toBe(false);
    expect(compareResults(result([[3]]), result([[3.0]]), bird).match).toBe(true);
  });

  it('every verdict reports its policy', () => {
    expect(compareResults(result([[1]]), result([[1]]), bird).policy).toBe(bird);
  });
});

describe('compareResults — misuse', () => {
  it('throws TypeError without a resolved policy', () => {
    expect(() => compareResults(result([[1]]), result([[1]]), 'default' as never)).toThrow(TypeError);
  });
});

describe('compareResults — the diff pairs columns by the one overlap map', () => {
  // g0 = [1, 2, 9] shares {1, 2} with p1 and {1} with p0; g1 = [5, 6, 7] shares {5, 6} with p1 only.
  // Pairing each gold column in turn (the old L4 rule) gave g0 → p1, g1 → p0; the overlap map pairs
  // the largest overlaps first (equal positions on ties): g1 → p1, then g0 → p0.
  const gold = result([[1, 5], [2, 6], [9, 7]]);
  const predicted = result([[1, 1], [8, 2], [8, 5], [8, 6]]);

  it('uses the map rowSimilarity uses', () => {
    const verdict = compareResults(gold, predicted, def);
    const similarity = rowSimilarity({ columnCount: 2, rows: gold.rows }, { columnCount: 2, rows: predicted.rows });
    expect(similarity.columnMap).toEqual([0, 1]);
    expect(overlapColumnMap({ columnCount: 2, rows: gold.rows }, { columnCount: 2, rows: predicted.rows })).toEqual([0, 1]);
    expect(verdict.reason).toBe('prediction has 4 rows, gold has 3; 3 missing rows, 4 extra rows; first: gold [1, 5] vs predicted [1, 1]');
    // Under the old map the first difference was gold column 1 against predicted column 0.
    expect(verdict.firstDifference).toEqual({ goldRow: 0, predictedRow: 0, goldColumn: 1, predictedColumn: 1, gold: 5, predicted: 1 });
  });
});

describe('compareResults — reasons carry the differing values', () => {
  const policy = resolvePolicy(undefined);
  const table = (columns: string[], rows: Cell[][]) => result(rows, columns);

  it('a 1×1 result: gold value vs predicted value', () => {
    const verdict = compareResults(table(['revenue'], [[415447.25]]), table(['revenue'], [[1040070.25]]), policy);
    expect(verdict.reason).toBe('gold [415447.25] vs predicted [1040070.25]');
  });

  it('a 3×2 result: the counts, then the first differing pair of rows', () => {
    const verdict = compareResults(
      table(['region', 'total'], [['north', 12.5], ['south', 3], ['east', 7]]),
      table(['region', 'total'], [['north', 13], ['south', 3], ['east', 8]]),
      policy,
    );
    expect(verdict.reason).toBe("2 missing rows, 2 extra rows; first: gold ['north', 12.5] vs predicted ['north', 13]");
  });

  it('a 3×2 gold against 2 predicted rows: the one missing row is quoted', () => {
    const verdict = compareResults(table(['region', 'total'], [['north', 12.5], ['south', 3], ['east', 7]]), table(['region', 'total'], [['north', 12.5], ['south', 3]]), policy);
    expect(verdict.reason).toBe("prediction has 2 rows, gold has 3; 1 missing row: gold ['east', 7]");
  });

  it('a wide row is cut to a readable width', () => {
    const wide = Array.from({ length: 20 }, (_, i) => `value-${i}`);
    const verdict = compareResults(table(wide, [wide]), table(wide, [wide.map((v) => v.toUpperCase())]), policy);
    expect(verdict.reason).toBe("gold ['value-0', 'value-1', 'value-2', 'value-3', 'value-4', 'v…] vs predicted ['VALUE-0', 'VALUE-1', 'VALUE-2', 'VALUE-3', 'VALUE-4', 'V…]");
  });

  it('two golds compared are named as golds (context.sides), in every kind of reason', () => {
    const sides = { gold: 'gold 0', predicted: 'gold 1' };
    expect(compareResults(table(['n'], [[4]]), table(['n'], [[9]]), policy, { sides }).reason).toBe('gold 0 [4] vs gold 1 [9]');
    expect(compareResults(table(['n'], [[4], [5]]), table(['n'], [[4]]), policy, { sides }).reason).toBe('gold 1 has 1 row, gold 0 has 2; 1 missing row: gold 0 [5]');
    expect(compareResults(table(['a', 'b'], [[1, 2]]), table(['a'], [[1]]), policy, { sides }).reason).toBe('gold 1 has 1 column, gold 0 has 2');
    const ordered = compareResults(table(['n'], [[1], [2]]), table(['n'], [[2], [1]]), policy, { goldSql: 'SELECT n FROM t ORDER BY n', sides });
    expect(ordered.reason).toBe('same rows, but row order differs at row 0: gold 0 1 vs gold 1 2');
  });
});
