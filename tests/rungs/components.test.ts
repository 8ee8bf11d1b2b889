import { describe, expect, it } from 'vitest';
import { multisetF1, scoreComponents } from '../../src/rungs/components.js';

const GOLD_4_2 =
  "SELECT region, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' AND status = 'paid' GROUP BY region ORDER BY total DESC LIMIT 5";
const PRED_4_2 = "SELECT region, SUM(amount) FROM orders WHERE status = 'paid' GROUP BY region ORDER BY SUM(amount) DESC LIMIT 5";

function rounded(scores: Readonly<Record<string, number>>, prefix: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(scores)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length), Math.round(v * 100) / 100]),
  );
}

describe('multisetF1', () => {
  it.each([
    [[], [], 1],
    [['a'], [], 0],
    [[], ['a'], 0],
    [['a', 'b'], ['b'], 2 / 3],
    [['a', 'a'], ['a'], 2 / 3],
    [['a', 'b', 'c'], ['a', 'b', 'd', 'e'], 4 / 7],
  ])('F1(%j, %j) = %d', (gold, predicted, f1) => {
    expect(multisetF1(gold, predicted).f1).toBeCloseTo(f1, 12);
  });
});

describe('scoreComponents', () => {
  it('reproduces Text-to-SQL Evals §4.2 with alias resolution: order_by 1.0', () => {
    const result = scoreComponents({ predictedSql: PRED_4_2, goldSqls: [GOLD_4_2], dialect: 'sqlite' });
    expect(rounded(result.namedScores, 'components_')).toEqual({
      select: 1, from: 1, where: 0.67, group_by: 1, having: 1, order_by: 1, limit: 1, set_ops: 1,
    });
    expect(result.status).toBe('fail');
    expect(result.score).toBeCloseTo((7 + 2 / 3) / 8, 12);
    expect(result.reason).toBe('clauses below 1 against gold 0: where 0.67');
  });

  it('reproduces Text-to-SQL Evals §4.2 seed behaviour: order_by 0.0', () => {
    const result = scoreComponents({ predictedSql: PRED_4_2, goldSqls: [GOLD_4_2], dialect: 'sqlite', aliasResolution: 'seed' });
    expect(rounded(result.namedScores, 'components_')).toEqual({
      select: 1, from: 1, where: 0.67, group_by: 1, having: 1, order_by: 0, limit: 1, set_ops: 1,
    });
  });

  it('treats a >= x and x <= a as one predicate, and table aliases as their tables', () => {
    const result = scoreComponents({
      predictedSql: "SELECT o.id FROM orders AS o JOIN customers AS c ON c.id = o.cid WHERE '2024' <= o.day AND 5 > o.qty",
      goldSqls: ["SELECT orders.id FROM orders JOIN customers ON orders.cid = customers.id WHERE orders.day >= '2024' AND orders.qty < 5"],
      dialect: 'sqlite',
    });
    expect(result.status).toBe('pass');
    expect(result.score).toBe(1);
  });

  it('scores set operations: a different branch costs set_ops', () => {
    const result = scoreComponents({
      predictedSql: 'SELECT name FROM a INTERSECT SELECT name FROM c',
      goldSqls: ['SELECT name FROM a INTERSECT SELECT name FROM b'],
      dialect: 'sqlite',
    });
    expect(result.namedScores['components_set_ops']).toBe(0);
    expect(result.namedScores['components_select']).toBe(1);
    expect(result.details?.spider?.iuen).toEqual({ score: 0, labelTotal: 1, predTotal: 1, count: 0 });
  });

  it('keeps the best of several golds (any gold may match)', () => {
    const result = scoreComponents({
      predictedSql: 'SELECT a FROM t WHERE b = 1',
      goldSqls: ['SELECT a FROM t WHERE c = 1', 'SELECT a FROM t WHERE 1 = b'],
      dialect: 'sqlite',
    });
    expect(result.details?.goldIndex).toBe(1);
    expect(result.score).toBe(1);
  });

  it('follows Spider get_scores: all-or-nothing per component, values ignored', () => {
    const result = scoreComponents({
      predictedSql: "SELECT count(name) FROM singer WHERE age > 40 AND country = 'France'",
      goldSqls: ["SELECT count(*) FROM singer WHERE country = 'US' AND age > 20"],
      dialect: 'sqlite',
    });
    expect(result.details?.spider).toMatchObject({
      select: { score: 0, labelTotal: 1, predTotal: 1, count: 0 },
      select_no_agg: { score: 0 },
      where: { score: 1, labelTotal: 2, predTotal: 2, count: 2 },
      where_no_op: { score: 1 },
      and_or: { score: 1 },
      keywords: { score: 1, labelTotal: 1, predTotal: 1, count: 1 },
      group: { score: 1, labelTotal: 0, predTotal: 0 },
    });
    expect(result.namedScores['spider_group']).toBeUndefined();
    expect(result.namedScores['spider_where']).toBe(1);
  });

  it('skips, with the reason, when the prediction or every gold cannot be read', () => {
    const bad = scoreComponents({ predictedSql: 'SELEC a', goldSqls: ['SELECT 1'], dialect: 'sqlite' });
    expect(bad.status).toBe('skipped');
    expect(bad.reason).toMatch(/^predicted SQL: parse error: /);
    const noGold = scoreComponents({ predictedSql: 'SELECT 1', goldSqls: ['DROP TABLE t'], dialect: 'sqlite' });
    expect(noGold.status).toBe('skipped');
    expect(noGold.reason).toBe('no readable gold SQL (gold 0: not a query: the statement is a drop_table_stmt)');
  });
});
