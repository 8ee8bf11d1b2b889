import { describe, expect, it } from 'vitest';
import { scoreExactMatch } from '../../src/rungs/exact-match.js';

describe('scoreExactMatch', () => {
  it('matches raw text (trimmed, trailing semicolon dropped)', () => {
    const result = scoreExactMatch({ predictedSql: ' SELECT a FROM t; ', goldSqls: ['SELECT a FROM t'], dialect: 'sqlite' });
    expect(result.namedScores).toEqual({ exact_match_raw: 1, exact_match_normalized: 1 });
    expect(result.reason).toBe('equal to gold 0 as raw text');
  });

  it.each([
    ['keyword case, whitespace', 'select A from T', 'SELECT a\n  FROM t'],
    ['quoting', 'SELECT "a" FROM [t] WHERE b = "x"', "SELECT a FROM t WHERE b = 'x'"],
    ['aliases', 'SELECT o.id FROM orders AS o JOIN items i ON i.oid = o.id', 'SELECT orders.id FROM orders JOIN items ON orders.id = items.oid'],
    ['positional GROUP BY / ORDER BY', 'SELECT a, count(*) FROM t GROUP BY 1 ORDER BY 2 DESC', 'SELECT a, count(*) FROM t GROUP BY a ORDER BY count(*) DESC'],
    ['commutative comparisons', 'SELECT a FROM t WHERE 10 < b AND c = d', 'SELECT a FROM t WHERE d = c AND b > 10'],
  ])('normalizes %s', (_name, predicted, gold) => {
    const result = scoreExactMatch({ predictedSql: predicted, goldSqls: ['SELECT 1', gold], dialect: 'sqlite' });
    expect(result.namedScores).toEqual({ exact_match_raw: 0, exact_match_normalized: 1 });
    expect(result.details?.normalizedGoldIndex).toBe(1);
    expect(result.reason).toBe('equal to gold 1 after normalization');
  });

  it('does not equate different literals or operators', () => {
    const result = scoreExactMatch({ predictedSql: 'SELECT a FROM t WHERE b >= 1', goldSqls: ['SELECT a FROM t WHERE b > 1'], dialect: 'sqlite' });
    expect(result.status).toBe('fail');
    expect(result.reason).toBe('differs from every gold after normalization (predicted: select a from t where b >= 1)');
  });

  it('skips an unparseable prediction with the parser reason, unless it equals a gold as raw text', () => {
    const skipped = scoreExactMatch({ predictedSql: 'SELEC a', goldSqls: ['SELECT a FROM t'], dialect: 'sqlite' });
    expect(skipped.status).toBe('skipped');
    expect(skipped.reason).toMatch(/^predicted SQL cannot be normalized: parse error: /);
    const raw = scoreExactMatch({ predictedSql: 'SELEC a', goldSqls: ['SELEC a'], dialect: 'sqlite' });
    expect(raw.namedScores).toEqual({ exact_match_raw: 1, exact_match_normalized: 1 });
    expect(scoreExactMatch({ predictedSql: 'SELECT 1', goldSqls: [], dialect: 'sqlite' }).reason).toBe('no gold SQL given');
  });
});
