import { describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { QueryResult } from '../../src/engine/engine.js';
import { isEmptyVsNullRow } from '../../src/semantic/model/empty-vs-null-row.js';
import { judgeResults } from '../../src/semantic/suite/witness-check.js';

const result = (columns: string[], rows: QueryResult['rows']): QueryResult => ({ columns, rows, doubleQuoteFallback: false, executedSql: '', elapsedMs: 0 });
const unordered = { ordered: false, source: 'policy' } as const;

describe('isEmptyVsNullRow', () => {
  it.each([
    [result(['m'], [[null]]), result(['x'], []), true],
    [result(['x'], []), result(['m'], [[null]]), true],
    [result(['a', 'b'], [[null, null]]), result(['a', 'b'], []), true],
    [result(['a', 'b'], [[null, 1]]), result(['a', 'b'], []), false],
    [result(['m'], [[null], [null]]), result(['x'], []), false],
    [result(['m'], [[0]]), result(['x'], []), false],
    [result(['m'], [[null]]), result(['x', 'y'], []), false],
    [result(['m'], []), result(['x'], []), false],
  ])('%j vs %j: %s', (a, b, expected) => {
    expect(isEmptyVsNullRow(a, b)).toBe(expected);
  });
});

describe('judgeResults under the emptyVsNullRow policy', () => {
  const policy = resolvePolicy('default');
  it('counts an empty result against one row of NULLs as no evidence under `same`, as a difference under `different`', () => {
    expect(judgeResults(policy, 'same', result(['m'], [[null]]), unordered, result(['x'], []))).toEqual({ kind: 'no_evidence', why: 'empty_vs_null_row' });
    const different = judgeResults(policy, 'different', result(['m'], [[null]]), unordered, result(['x'], []));
    expect(different.kind === 'distinguished' && different.detail).toBe('prediction has 0 rows, gold has 1; 1 missing row: gold [NULL]');
  });

  it('judges equal results the same and other differences as distinguished under either policy', () => {
    expect(judgeResults(policy, 'same', result(['a'], [[1]]), unordered, result(['b'], [[1.0]])).kind).toBe('same');
    const zero = judgeResults(policy, 'same', result(['c'], [[0]]), unordered, result(['c'], []));
    expect(zero.kind === 'distinguished' && zero.detail).toBe('prediction has 0 rows, gold has 1; 1 missing row: gold [0]');
  });
});
