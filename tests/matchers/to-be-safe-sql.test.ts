import { describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { LadderError } from '../../src/errors.js';
import { failureOf } from './helpers.js';

describe('toBeSafeSql: arguments', () => {
  it('throws a TypeError naming received for a non-string, whose stack starts at the caller', () => {
    let caught: unknown;
    try {
      expect({ sql: 'SELECT 1' }).toBeSafeSql();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect((caught as TypeError).message).toBe('toBeSafeSql: received must be a SQL string; received an object');
    expect((caught as TypeError).stack).not.toContain('to-be-safe-sql.ts');
  });

  it.each([
    ['strict', 'toBeSafeSql: policy must be a policy object; received a string ("strict")'],
    [[], 'toBeSafeSql: policy must be a policy object; received an array ([])'],
    [{ dialect: 'tsql' }, 'toBeSafeSql: policy.dialect must be one of "sqlite", "postgres", "mysql", "bigquery", "snowflake"; received a string ("tsql")'],
  ])('throws a TypeError for policy %o', (policy, message) => {
    // @ts-expect-error -- wrong policy on purpose
    expect(() => expect('SELECT 1').toBeSafeSql(policy)).toThrow(new TypeError(message));
  });

  it('throws the rung\'s LadderError for a misspelt policy option, even under .not', () => {
    // @ts-expect-error -- misspelt option on purpose
    expect(() => expect('SELECT 1').not.toBeSafeSql({ max_limit: 10 })).toThrow(
      new LadderError('invalid_option', 'policy.max_limit is not an option (did you mean policy.maxLimit?); known options: maxLimit, allowedTables, allowedFunctions, allowTableFunctions, allowSystemTables'),
    );
  });
});

describe('toBeSafeSql: passing', () => {
  it.each([
    ['SELECT name FROM customers', {}],
    ["SELECT 'DROP TABLE orders' AS s -- DELETE FROM orders", {}],
    ['SELECT name FROM customers LIMIT 10', { maxLimit: 100, allowedTables: ['customers'] }],
    ['SELECT name FROM "customers" ORDER BY name', { dialect: 'postgres' as const }],
  ])('accepts %s under %o', (sql, policy) => {
    expect(sql).toBeSafeSql(policy);
  });

  it('accepts with no policy at all', () => {
    expect('SELECT COUNT(*) FROM orders').toBeSafeSql();
  });
});

describe('toBeSafeSql: failing', () => {
  it('reports a write hidden after a query', async () => {
    const message = await failureOf(() => expect('SELECT * FROM customers;\nDELETE FROM orders').toBeSafeSql());
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toBeSafeSql()

      Expected sql to be safe sqlite SQL (one read-only query)
      Received: "SELECT * FROM customers;
      DELETE FROM orders"

      L3 safety failed: multiple_statements: 2 statements; exactly one query is allowed at 2:1 (+1 more)

      Issues:
        line 2, column 1  multiple_statements  2 statements; exactly one query is allowed
          DELETE FROM orders
          ^
        line 2, column 1  write_statement  DELETE is not a read-only query
          DELETE FROM orders
          ^"
    `);
  });

  it('reports a LIMIT out of range and a table outside the allow-list', async () => {
    const message = await failureOf(() =>
      expect('SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id LIMIT 100000').toBeSafeSql({
        maxLimit: 1000,
        allowedTables: ['customers'],
      }),
    );
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toBeSafeSql(policy)

      Expected sql to be safe sqlite SQL (one read-only query; LIMIT 1…1000; tables customers only)
      Received: "SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id LIMIT 100000"

      L3 safety failed: table_not_allowed: orders is not in allowedTables at 1:49 (+1 more)

      Issues:
        line 1, column 49  table_not_allowed  orders is not in allowedTables
          SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id LIMIT 100000
                                                          ^
        line 1, column 91  limit_out_of_range  LIMIT 100000 is outside 1..1000
          SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id LIMIT 100000
                                                                                                    ^"
    `);
  });

  it('reports a side-effect function', async () => {
    const message = await failureOf(() => expect("SELECT load_extension('evil.so')").toBeSafeSql());
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toBeSafeSql()

      Expected sql to be safe sqlite SQL (one read-only query)
      Received: "SELECT load_extension('evil.so')"

      L3 safety failed: blocked_function: load_extension(): loads native code into the database process at 1:8

      Issues:
        line 1, column 8  blocked_function  load_extension(): loads native code into the database process
          SELECT load_extension('evil.so')
                 ^"
    `);
  });
});

describe('toBeSafeSql: negated', () => {
  it('passes for PRAGMA and ATTACH', () => {
    expect('PRAGMA query_only = 0').not.toBeSafeSql();
    expect("ATTACH DATABASE '/tmp/x.db' AS x").not.toBeSafeSql();
  });

  it('fails for a safe query, naming the policy', async () => {
    const message = await failureOf(() => expect('SELECT name FROM customers LIMIT 5').not.toBeSafeSql({ maxLimit: 10 }));
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).not.toBeSafeSql(policy)

      Expected sql not to be safe sqlite SQL (one read-only query; LIMIT 1…10)
      Received: "SELECT name FROM customers LIMIT 5"

      L3 safety passed: one read-only query; no unsafe construct"
    `);
  });
});
