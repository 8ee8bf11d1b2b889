import { describe, expect, it } from 'vitest';
import { astDistance } from '../../assertions/ast-distance.js';

describe('astDistance assertion', () => {
  it('reports AST similarity and token Jaccard as named scores', async () => {
    const result = await astDistance('SELECT a FROM t WHERE x >= 1', { vars: { gold_sql: 'SELECT a FROM t WHERE x > 1' } });
    expect(result.pass).toBe(true);
    expect(result.namedScores?.['astDistance']).toBe(0.9);
    expect(result.namedScores?.['token_jaccard']).toBeCloseTo(7 / 9, 12);
    expect(result.reason).toBe('1 edit(s) to gold 0 (10 vs 10 nodes): similarity 0.900, token Jaccard 0.778');
  });
});
