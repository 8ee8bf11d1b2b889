import { describe, expect, it } from 'vitest';
import { exactMatch } from '../../assertions/exact-match.js';

describe('exactMatch assertion', () => {
  it('reports raw and normalized exact match against any gold', async () => {
    const result = await exactMatch('```sql\nSELECT T.a FROM t AS T WHERE 1 < T.b\n```', { vars: { gold_sql: ['SELECT x FROM y', 'select a from t where b > 1'] } });
    expect([result.pass, result.score, result.reason]).toEqual([true, 1, 'equal to gold 1 after normalization']);
    expect(result.namedScores).toEqual({ exactMatch: 1, exact_match_raw: 0, exact_match_normalized: 1 });
  });

  it('does not fail the row on a mismatch unless a threshold is set', async () => {
    const vars = { gold_sql: 'SELECT a FROM t WHERE b > 1' };
    expect((await exactMatch('SELECT a FROM t WHERE b >= 1', { vars })).pass).toBe(true);
    expect((await exactMatch('SELECT a FROM t WHERE b >= 1', { vars, config: { threshold: 1 } })).pass).toBe(false);
  });
});
