import { describe, expect, it } from 'vitest';
import { scoreResultSimilarity } from '../../src/rungs/result-similarity.js';

const result = (columns: string[], rows: (number | string | null)[][]) => ({ columns, rows });

describe('scoreResultSimilarity', () => {
  it('combines AST similarity and table similarity into the query affinity (w = 0.5)', () => {
    const scored = scoreResultSimilarity({
      gold: result(['a'], [[1], [2]]),
      predicted: result(['a'], [[1], [3]]),
      goldSql: 'SELECT a FROM t WHERE x > 1',
      predictedSql: 'SELECT a FROM t WHERE x >= 1',
      dialect: 'sqlite',
    });
    expect(scored.details).toMatchObject({ tableSimilarity: 0.5, structuralSimilarity: 0.9, weight: 0.5, basis: 'compared' });
    expect(scored.details.queryAffinity).toBeCloseTo(0.7, 12);
    expect(scored.namedScores).toMatchObject({ result_table_similarity: 0.5, result_row_precision: 0.5, result_row_recall: 0.5, result_row_f1: 0.5 });
    expect(scored.score).toBeCloseTo(0.7, 12);
    expect(scored.reason).toBe('rows P 0.500 R 0.500 F1 0.500; table similarity 0.500 (exact); query affinity 0.700');
  });

  it('takes a configurable weight and a given structural similarity', () => {
    const scored = scoreResultSimilarity({ gold: result(['a'], [[1], [2]]), predicted: result(['a'], [[1], [3]]), structuralSimilarity: 1, weight: 0.25 });
    expect(scored.details.queryAffinity).toBeCloseTo(0.25 * 1 + 0.75 * 0.5, 12);
    expect(() => scoreResultSimilarity({ gold: result(['a'], []), predicted: null, weight: 2 })).toThrow(RangeError);
    expect(() => scoreResultSimilarity({ gold: result(['a'], []), predicted: null, structuralSimilarity: -0.1 })).toThrow(RangeError);
  });

  it('gives TS 1 for identical SQL and TS 0 for a prediction that did not execute (Redefining text-to-SQL metrics)', () => {
    const same = scoreResultSimilarity({ gold: result(['a'], [[1]]), predicted: result(['a'], [[1]]), goldSql: 'SELECT a FROM t', predictedSql: 'SELECT a FROM t;' });
    expect(same.details.basis).toBe('identical_sql');
    expect(same.status).toBe('pass');
    const failed = scoreResultSimilarity({ gold: result(['a'], [[1]]), predicted: null });
    expect(failed.details).toMatchObject({ basis: 'not_executed', tableSimilarity: 0, rows: null, queryAffinity: null });
    expect(failed.namedScores).toEqual({ result_table_similarity: 0 });
    expect(failed.reason).toBe('prediction did not execute: table similarity 0');
  });

  it('scores the row multiset under a given column map', () => {
    const scored = scoreResultSimilarity({ gold: result(['a', 'b'], [[1, 'x'], [2, 'y']]), predicted: result(['b', 'a'], [['x', 1], ['z', 2]]), columnMap: [1, 0] });
    expect(scored.details.rows).toMatchObject({ matchedRows: 1, precision: 0.5, recall: 0.5 });
    expect(scored.details.tableSimilarity).toBe(0.75);
  });
});
