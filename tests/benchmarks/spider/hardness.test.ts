import { describe, expect, it } from 'vitest';
import { readSpiderSql, spiderHardness, spiderSchemaOf, tokenizeSpiderSql } from '../../../src/benchmarks/spider/hardness.js';

describe('tokenizeSpiderSql (process_sql.py tokenize)', () => {
  it.each([
    ["SELECT count(*) FROM t WHERE a >= 'x'", ['select', 'count', '(', '*', ')', 'from', 't', 'where', 'a', '>=', '"x"']],
    ['SELECT T1.Name FROM t AS T1 WHERE b ! = "Ford Co"', ['select', 't1.name', 'from', 't', 'as', 't1', 'where', 'b', '!=', '"Ford Co"']],
    ['SELECT a,b FROM t;', ['select', 'a', ',', 'b', 'from', 't', ';']],
  ])('%s', (sql, tokens) => {
    expect(tokenizeSpiderSql(sql)).toEqual(tokens);
  });
});

describe('spiderHardness (evaluation.py eval_hardness)', () => {
  it.each([
    ['SELECT count(*) FROM singer', 'easy'],
    ['SELECT name , country , age FROM singer ORDER BY age DESC', 'medium'],
    ['SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = 2014', 'hard'],
    ['SELECT a FROM t INTERSECT SELECT a FROM u', 'hard'],
    ['SELECT a FROM t WHERE b IN (SELECT b FROM u) AND c > 1', 'extra'],
    ['SELECT name FROM t WHERE id NOT IN (SELECT id FROM u)', 'hard'],
    // Quirk: the NOT of a condition counts as an aggregate (count_agg reads not_op).
    ['SELECT count(*) FROM t WHERE id NOT IN (SELECT id FROM u)', 'extra'],
    // Quirk: each and/or between HAVING conditions counts as an aggregate.
    ['SELECT count(*) FROM t GROUP BY a HAVING count(*) > 1', 'easy'],
    ['SELECT count(*) FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) > 2', 'medium'],
    ["SELECT name FROM t WHERE a LIKE '%x%' OR b = 1", 'hard'],
    ["SELECT name FROM t WHERE a LIKE '%x%'", 'medium'],
  ])('%s → %s', (sql, hardness) => {
    expect(spiderHardness(sql)).toBe(hardness);
  });

  it('reads the structure the counts come from', () => {
    expect(readSpiderSql('SELECT a , max(b) FROM t AS x JOIN u ON x.id = u.id WHERE c = 1 OR d = 2 GROUP BY a ORDER BY count(*) LIMIT 3')).toEqual({
      select: [0, 1],
      tableUnits: 2,
      fromConds: [{ notOp: false, op: '=', nested: [] }],
      where: [{ notOp: false, op: '=', nested: [] }, 'or', { notOp: false, op: '=', nested: [] }],
      groupBy: [0],
      having: [],
      orderBy: [{ agg1: 3, agg2: null }],
      limit: true,
      intersect: null,
      union: null,
      except: null,
    });
  });

  it('a query the official reader cannot read gives null', () => {
    expect(spiderHardness("SELECT a FROM t WHERE b = 'unbalanced")).toBeNull();
    expect(spiderHardness('SELECT 1')).toBeNull();
  });
});

describe('spiderHardness with the database schema (names looked up as process_sql.py does)', () => {
  const shop = spiderSchemaOf({ Orders: ['order_id', 'customer_id', 'amount'], Customers: ['customer_id', 'Country'] });

  it.each<[string, string | null, string | null]>([
    // [sql, without schema, with schema]
    ['SELECT T2.country FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id', 'easy', 'easy'],
    // An alias without AS is no name the official reader knows (tables_with_alias only holds `x AS y`).
    ['SELECT c.country FROM orders o JOIN customers c ON c.customer_id = o.customer_id', 'hard', null],
    ['SELECT c.country , sum(o.amount) FROM orders o JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.country', 'extra', null],
    ['SELECT country , sum(amount) FROM orders JOIN customers ON orders.customer_id = customers.customer_id GROUP BY country', 'medium', 'medium'],
    // A column no table in scope has; a qualified column of the wrong table; an unknown table.
    ['SELECT amont FROM orders', 'easy', null],
    ['SELECT T1.country FROM orders AS T1', 'easy', null],
    ['SELECT count(*) FROM shipments', 'easy', null],
    // An alias that is also a table's name.
    ['SELECT T1.amount FROM orders AS customers JOIN customers AS T1', 'easy', null],
    // A subquery's own FROM gives its default tables.
    ['SELECT country FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE amount > 10)', 'hard', 'hard'],
    ['SELECT country FROM customers WHERE customer_id IN (SELECT country FROM orders)', 'hard', null],
  ])('%s → %s without, %s with the schema', (sql, without, withSchema) => {
    expect([spiderHardness(sql), spiderHardness(sql, shop)]).toEqual([without, withSchema]);
  });

  it('lower-cases the schema as get_schema does', () => {
    expect([...shop.tables.keys()]).toEqual(['orders', 'customers']);
    expect([...shop.tables.get('customers')!]).toEqual(['customer_id', 'country']);
  });
});
