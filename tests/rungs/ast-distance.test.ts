import { describe, expect, it } from 'vitest';
import { scoreAstDistance } from '../../src/rungs/ast-distance.js';

describe('scoreAstDistance', () => {
  it('scores a one-node change (> to >=) at 0.9 although the meaning changed', () => {
    const result = scoreAstDistance({ predictedSql: 'SELECT a FROM t WHERE x >= 1', goldSqls: ['SELECT a FROM t WHERE x > 1'], dialect: 'sqlite' });
    expect(result.details).toMatchObject({ goldIndex: 0, edits: 1, goldNodes: 10, predictedNodes: 10, similarity: 0.9 });
    expect(result.namedScores['ast_similarity']).toBe(0.9);
    expect(result.namedScores['token_jaccard']).toBeCloseTo(7 / 9, 12);
    expect(result.status).toBe('fail');
  });

  it('is 1 for queries equal after normalization', () => {
    const result = scoreAstDistance({ predictedSql: 'SELECT T.a FROM t AS T WHERE 1 < T.x', goldSqls: ['select a from t where x > 1'], dialect: 'sqlite' });
    expect(result.status).toBe('pass');
    expect(result.score).toBe(1);
  });

  it('keeps the closest gold and divides by the larger tree', () => {
    const result = scoreAstDistance({
      predictedSql: 'SELECT a FROM t',
      goldSqls: ['SELECT a, b, c FROM t WHERE x = 1', 'SELECT a, b FROM t'],
      dialect: 'sqlite',
    });
    // gold 1 has 7 nodes (select_stmt, select_clause, list_expr, a, b, from_clause, t); one delete
    expect(result.details).toMatchObject({ goldIndex: 1, edits: 1, goldNodes: 7, predictedNodes: 6 });
    expect(result.score).toBeCloseTo(1 - 1 / 7, 12);
  });

  it('skips an unparseable prediction with the reason', () => {
    const result = scoreAstDistance({ predictedSql: 'SELECT (', goldSqls: ['SELECT 1'], dialect: 'sqlite' });
    expect(result.status).toBe('skipped');
    expect(result.reason).toMatch(/^predicted SQL: parse error: /);
  });
});
