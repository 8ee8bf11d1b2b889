import { describe, expect, it } from 'vitest';
import { extractSpiderUnits } from '../../src/benchmarks/spider/spider-units.js';
import { extractClauseComponents } from '../../src/sql/components.js';

function components(sql: string, aliasResolution?: 'resolve' | 'seed') {
  const result = extractClauseComponents(sql, 'sqlite', aliasResolution ? { aliasResolution } : {});
  if (!result.ok) throw new Error(result.reason);
  return result.components;
}

function units(sql: string) {
  const result = extractSpiderUnits(sql, 'sqlite');
  if (!result.ok) throw new Error(result.reason);
  return result.components;
}

describe('extractClauseComponents', () => {
  it('reads every clause of the Text-to-SQL Evals §4.2 gold', () => {
    const gold =
      "SELECT region, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' AND status = 'paid' GROUP BY region ORDER BY total DESC LIMIT 5";
    expect(components(gold)).toEqual({
      select: ['region', 'sum (amount)'],
      from: ['orders'],
      where: ["created_at >= '2024-01-01'", "status = 'paid'"],
      group_by: ['region'],
      having: [],
      order_by: ['sum (amount) desc'],
      limit: ['limit 5'],
      set_ops: [],
    });
    expect(components(gold, 'seed').order_by).toEqual(['total desc']);
  });

  it('lists tables and one item per join predicate with its join type', () => {
    const c = components('SELECT a.x FROM t AS a LEFT OUTER JOIN u AS b ON a.id = b.tid AND b.k = 1 JOIN v USING (id), w');
    expect(c.from).toEqual(['t', 'u', 'v', 'w', 'left join on t.id = u.tid', 'left join on u.k = 1', 'inner join using (id)', 'cross join']);
  });

  it('scores the first branch of a set operation and lists the others with their operator', () => {
    const c = components('SELECT a FROM t WHERE x = 1 UNION ALL SELECT b FROM u EXCEPT SELECT c FROM v ORDER BY 1 LIMIT 3');
    expect(c.select).toEqual(['a']);
    expect(c.where).toEqual(['x = 1']);
    expect(c.set_ops).toEqual(['union all select b from u', 'except select c from v']);
    expect(c.order_by).toEqual(['1 asc']);
    expect(c.limit).toEqual(['limit 3']);
  });

  it('marks SELECT DISTINCT and keeps OFFSET with LIMIT', () => {
    const c = components('SELECT DISTINCT a FROM t LIMIT 2 OFFSET 4');
    expect(c.select).toEqual(['distinct', 'a']);
    expect(c.limit).toEqual(['limit 2 offset 4']);
  });

  it('counts a FROM subquery as one item and ignores tables inside WHERE subqueries', () => {
    const c = components('SELECT s.n FROM (SELECT count(*) AS n FROM t) AS s WHERE s.n IN (SELECT k FROM u)');
    expect(c.from).toEqual(['(select count (*) from t) as s']);
  });

  it('says why there are no components', () => {
    expect(extractClauseComponents('DELETE FROM t', 'sqlite')).toEqual({ ok: false, reason: 'not a query: the statement is a delete_stmt' });
    expect(extractClauseComponents('SELECT FROM', 'sqlite').ok).toBe(false);
    expect(() => extractClauseComponents('SELECT 1', 'sqlite', { aliasResolution: 'x' as 'seed' })).toThrow(RangeError);
  });
});

describe('extractSpiderUnits', () => {
  it('masks values, strips aggregates and collects the keyword set of get_keywords', () => {
    const u = units(
      "SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid WHERE T2.year > 2014 OR T1.name NOT LIKE 'A%' GROUP BY T1.name HAVING count(*) >= 2 ORDER BY count(*) DESC LIMIT 1",
    );
    expect(u.select).toEqual(['singer.name', 'count (*)']);
    expect(u.selectNoAgg).toEqual(['singer.name', '*']);
    expect(u.where).toEqual(['concert.year > value', 'singer.name not like value']);
    expect(u.whereNoOp).toEqual(['concert.year', 'singer.name']);
    expect(u.andOr).toEqual(['or']);
    expect(u.groupColumns).toEqual(['name']);
    expect(u.groupKeys).toEqual(['singer.name']);
    expect(u.having).toEqual(['count (*) >= value']);
    expect(u.orderBy).toEqual(['count (*) desc']);
    expect(u.hasLimit).toBe(true);
    expect(u.keywords).toEqual(['desc', 'group', 'having', 'like', 'limit', 'not', 'or', 'order', 'where']);
  });

  it('merges columns equated by a join predicate, as Spider merges foreign keys', () => {
    const gold = units('SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id');
    const pred = units('SELECT T1.name, count(*) FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id');
    expect(gold.groupKeys).toEqual(['concert.stadium_id']);
    expect(pred.groupKeys).toEqual(['concert.stadium_id']);
  });

  it('records set operations by kind', () => {
    const u = units('SELECT a FROM t WHERE b IN (SELECT c FROM u) INTERSECT SELECT a FROM v WHERE d = 3');
    expect(u.nested).toEqual({ intersect: JSON.stringify([['a'], ['d = value'], [], [], [], false, ['v']]), except: null, union: null });
    expect(u.keywords).toEqual(['in', 'intersect', 'where']);
  });
});
