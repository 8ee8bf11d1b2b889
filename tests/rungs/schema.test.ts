/** L2 against an in-memory catalog (orders, customers, salaries, hr.staff, a view). */
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/engine/engine.js';
import { checkSchema } from '../../src/rungs/schema.js';
import type { Dialect } from '../../src/sql/parse.js';

function cols(...names: string[]) {
  return names.map((name) => ({ name, type: '', primaryKey: false }));
}

const catalog: Catalog = {
  tables: [
    { name: 'orders', kind: 'table', schema: 'main', columns: cols('order_id', 'customer_id', 'amount', 'region') },
    { name: 'customers', kind: 'table', schema: 'main', columns: cols('customer_id', 'name', 'segment') },
    { name: 'salaries', kind: 'table', schema: 'main', columns: cols('employee_id', 'amount') },
    { name: 'staff', kind: 'table', schema: 'hr', columns: cols('employee_id', 'name') },
    { name: 'big_orders', kind: 'view', schema: 'main', columns: cols('order_id', 'amount') },
  ],
};

function summary(sql: string, dialect: Dialect = 'sqlite', extra: { doubleQuotes?: 'legacy' | 'strict'; engineAccepted?: boolean } = {}): string[] {
  const result = checkSchema({ sql, dialect, catalog, ...extra });
  return [result.status, ...result.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}${issue.suggestion ? `~${issue.suggestion}` : ''}`)];
}

describe('checkSchema: verdicts', () => {
  it.each<[string, string, string[]]>([
    ['valid join', 'SELECT c.name, sum(o.amount) FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id GROUP BY c.name', ['pass']],
    ['misspelt column with did-you-mean', 'SELECT amont FROM orders', ['fail', 'unknown_column@1:8~amount']],
    ['misspelt table with did-you-mean', 'SELECT * FROM custmers', ['fail', 'unknown_table@1:15~customers']],
    ['misspelt qualified column', 'SELECT o.regoin FROM orders o', ['fail', 'unknown_column@1:8~region']],
    ['unknown alias', 'SELECT x.amount FROM orders o', ['fail', 'unknown_qualifier@1:8~o']],
    ['several problems, in order', 'SELECT amont, nme\nFROM orders', ['fail', 'unknown_column@1:8~amount', 'unknown_column@1:15']],
    ['line and column on line 3', 'SELECT amount\nFROM orders\nWHERE regoin = 1', ['fail', 'unknown_column@3:7~region']],
    ['CTE shadowing: outer query reads the CTE', 'WITH orders AS (SELECT employee_id FROM salaries) SELECT employee_id FROM orders', ['pass']],
    ['CTE shadowing: outer query cannot see the hidden table', 'WITH orders AS (SELECT employee_id FROM salaries) SELECT amount FROM orders', ['fail', 'unknown_column@1:58']],
    ['select alias in ORDER BY', 'SELECT count(*) AS n FROM orders ORDER BY n DESC', ['pass']],
    ['USING', 'SELECT customer_id FROM orders JOIN customers USING (customer_id)', ['pass']],
    ['string literal', "SELECT * FROM orders WHERE region = 'amont'", ['pass']],
    ['legacy double-quoted string', 'SELECT * FROM orders WHERE region = "APG"', ['pass']],
    ['hr.orders is not orders', 'SELECT * FROM hr.orders', ['fail', 'unknown_table@1:15~orders']],
    ['main.orders is orders', 'SELECT * FROM main.orders', ['pass']],
    ['view', 'SELECT amount FROM big_orders', ['pass']],
  ])('%s', (_name, sql, expected) => {
    expect(summary(sql)).toEqual(expected);
  });

  it('strict double quotes: "APG" is an unknown column', () => {
    expect(summary('SELECT * FROM orders WHERE region = "APG"', 'sqlite', { doubleQuotes: 'strict' })).toEqual(['fail', 'unknown_column@1:37']);
  });

  it('the AST layer cannot read it: passes only when the engine accepted it', () => {
    expect(summary('SELECT winner FROM Match', 'sqlite', { engineAccepted: true })).toEqual(['pass']);
    expect(summary('SELECT winner FROM Match', 'sqlite')).toEqual(['fail', 'not_analysed@1:1']);
    const result = checkSchema({ sql: 'SELECT winner FROM Match', dialect: 'sqlite', catalog, engineAccepted: true });
    expect(result.details.analysed).toBe(false);
    expect(result.reason).toMatch(/^passed by engine, not analysed: /);
  });

  it('snowflake is skipped with a reason, never passed', () => {
    const result = checkSchema({ sql: 'SELECT a FROM t', dialect: 'snowflake', catalog });
    expect([result.status, result.reason]).toEqual(['skipped', 'not analysed: scope resolution is not implemented for snowflake (its parser reads "quoted" identifiers as strings)']);
  });

  it('details list real tables once, whole', () => {
    const result = checkSchema({ sql: 'SELECT * FROM orders o1 JOIN main.orders o2 USING (order_id) JOIN hr.staff s ON 1', dialect: 'sqlite', catalog });
    expect(result.details.tables).toEqual(['orders', 'main.orders', 'hr.staff']);
  });

  it('rejects a catalog without tables', () => {
    expect(() => checkSchema({ sql: 'SELECT 1', dialect: 'sqlite', catalog: {} as Catalog })).toThrow('catalog must be { tables: CatalogTable[] } (see src/sql/catalog.ts)');
  });
});
