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

  describe('legacy double quotes: a value stays a string, a column position fails', () => {
    const people: Catalog = { tables: [{ name: 'people', kind: 'table', schema: 'main', columns: cols('id', 'name') }, ...catalog.tables] };
    const run = (sql: string, sqlRole?: 'predicted' | 'gold') => checkSchema({ sql, dialect: 'sqlite', catalog: people, ...(sqlRole ? { sqlRole } : {}) });

    it('a hallucinated double-quoted column fails, saying legacy SQLite would read it as a string', () => {
      const result = run('SELECT "full_name" FROM people');
      expect([result.status, result.reason]).toEqual([
        'fail',
        `no such column: "full_name" (a column is expected here; legacy SQLite would read it as the string 'full_name'); columns of people: id, name at 1:8`,
      ]);
      expect(result.issues.map((issue) => issue.kind)).toEqual(['unknown_column']);
    });

    it.each<[string, string, string[]]>([
      ['select list', 'SELECT "full_name" FROM people', ['fail', 'unknown_column@1:8']],
      ['select-list literal with an alias', 'SELECT "N/A" AS x FROM people', ['fail', 'unknown_column@1:8']],
      ['did-you-mean', 'SELECT "nme" FROM people', ['fail', 'unknown_column@1:8~name']],
      ['GROUP BY', 'SELECT count(*) FROM people GROUP BY "team"', ['fail', 'unknown_column@1:38']],
      ['ORDER BY', 'SELECT name FROM people ORDER BY "age" DESC', ['fail', 'unknown_column@1:34~name']],
      ['a join operand', 'SELECT p.name FROM people p JOIN orders o ON o.customer_id = "person_id"', ['fail', 'unknown_column@1:62']],
      ['a real column in double quotes', 'SELECT "name" FROM people GROUP BY "name" ORDER BY "id"', ['pass']],
      ['a select alias in ORDER BY', 'SELECT name AS "n" FROM people ORDER BY "n"', ['pass']],
    ])('column position, %s', (_name, sql, expected) => {
      const result = run(sql);
      expect([result.status, ...result.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}${issue.suggestion ? `~${issue.suggestion}` : ''}`)]).toEqual(expected);
    });

    it.each<[string, string, string[]]>([
      ['=', 'SELECT name FROM people WHERE name = "Ann"', ['1:38']],
      ['IN', 'SELECT name FROM people WHERE name IN ("Ann", "Bob")', ['1:40', '1:47']],
      ['LIKE', 'SELECT name FROM people WHERE name LIKE "A%"', ['1:41']],
      ['BETWEEN', 'SELECT name FROM people WHERE name BETWEEN "A" AND "B"', ['1:44', '1:52']],
      ['a function argument in the select list', 'SELECT coalesce(name, "none") FROM people', ['1:23']],
      ['a join condition against a value', 'SELECT p.name FROM people p JOIN orders o ON o.region = p.name AND o.region <> "x" || "y"', ['1:80', '1:87']],
    ])('value position, %s: passes with a double_quoted_string finding', (_name, sql, positions) => {
      const result = run(sql);
      expect(result.status).toBe('pass');
      expect(result.details.findings.map((finding) => `${finding.kind}@${finding.line}:${finding.column}`)).toEqual(positions.map((position) => `double_quoted_string@${position}`));
    });

    it('the finding says how the token was read, and the pass reason counts it', () => {
      const result = run('SELECT name FROM people WHERE name = "Ann"');
      expect(result.details.findings).toEqual([{ kind: 'double_quoted_string', message: `"Ann" names no column; read as the string 'Ann' (SQLite legacy double quotes)`, line: 1, column: 38 }]);
      expect(result.reason).toBe('every name resolves (1 table, 2 column references); 1 double-quoted string read as a string literal (legacy SQLite) at 1:38');
    });

    it('gold SQL keeps the legacy reading in column positions (Spider golds write SELECT "x")', () => {
      const result = run('SELECT "N/A" AS x, name FROM people ORDER BY "n"', 'gold');
      expect([result.status, result.details.findings.map((finding) => `${finding.line}:${finding.column}`)]).toEqual(['pass', ['1:8', '1:46']]);
    });

    it('strict mode: every double-quoted name is an identifier (no findings)', () => {
      const result = checkSchema({ sql: 'SELECT name FROM people WHERE name = "Ann"', dialect: 'sqlite', catalog: people, doubleQuotes: 'strict' });
      expect([result.status, result.details.findings]).toEqual(['fail', []]);
    });
  });

  it('strict double quotes: "APG" is an unknown column', () => {
    expect(summary('SELECT * FROM orders WHERE region = "APG"', 'sqlite', { doubleQuotes: 'strict' })).toEqual(['fail', 'unknown_column@1:37']);
  });

  it('the AST layer cannot read it: passes only when the engine accepted it', () => {
    // sql-parser-cst rejects an empty IN list, which SQLite accepts.
    const unreadable = 'SELECT winner FROM Match WHERE winner IN ()';
    expect(summary(unreadable, 'sqlite', { engineAccepted: true })).toEqual(['pass']);
    expect(summary(unreadable, 'sqlite')).toEqual(['fail', 'not_analysed@1:1']);
    const result = checkSchema({ sql: unreadable, dialect: 'sqlite', catalog, engineAccepted: true });
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

  it.each<[string, string]>([
    ['DELETE FROM orders', 'DELETE'],
    ['INSERT INTO orders (order_id) VALUES (1)', 'INSERT'],
    ['UPDATE orders SET amount = 0', 'UPDATE'],
    ['WITH old AS (SELECT order_id FROM orders) DELETE FROM orders WHERE order_id IN (SELECT order_id FROM old)', 'DELETE'],
    ['CREATE TABLE archive (order_id INTEGER)', 'CREATE TABLE'],
    ['DROP TABLE orders', 'DROP TABLE'],
    ['PRAGMA table_info(orders)', 'PRAGMA'],
  ])('not a query, skipped, never a false unknown name: %s', (sql, keyword) => {
    const result = checkSchema({ sql, dialect: 'sqlite', catalog });
    expect([result.status, result.reason, result.issues]).toEqual(['skipped', `not a query (${keyword}): L2 checks queries only`, []]);
    expect(checkSchema({ sql, dialect: 'sqlite', catalog, engineAccepted: true }).status).toBe('skipped');
  });

  it('a parenthesised and a compound query are still checked', () => {
    expect(summary('(SELECT amont FROM orders)')).toEqual(['fail', 'unknown_column@1:9~amount']);
    expect(summary('SELECT amount FROM orders UNION SELECT amount FROM salaries')).toEqual(['pass']);
  });

  it.each<[string, string, string]>([
    ['one table', 'SELECT nme FROM orders', 'no such column: nme; columns of orders: order_id, customer_id, amount, region at 1:8'],
    ['qualified: only the qualifier\'s table', 'SELECT c.zzz FROM orders o JOIN customers c ON o.customer_id = c.customer_id', 'no such column: c.zzz; columns of customers: customer_id, name, segment at 1:8'],
    ['two tables', 'SELECT zzz FROM orders o JOIN customers c USING (customer_id)', 'no such column: zzz; columns of orders: order_id, customer_id, amount, region; columns of customers: customer_id, name, segment at 1:8'],
    ['schema-qualified table, as written', 'SELECT zzz FROM hr.staff', 'no such column: zzz; columns of hr.staff: employee_id, name at 1:8'],
    ['did-you-mean instead of the list', 'SELECT amont FROM orders', 'no such column: amont; did you mean amount? at 1:8'],
    ['a CTE: no catalog columns to list', 'WITH orders AS (SELECT employee_id FROM salaries) SELECT zzz FROM orders', 'no such column: zzz at 1:58'],
  ])('an unknown column with no close match lists the columns in scope: %s', (_name, sql, reason) => {
    const result = checkSchema({ sql, dialect: 'sqlite', catalog });
    expect(result.reason).toBe(reason);
    expect(result.issues[0]!.message).toBe(reason.replace(/ at \d+:\d+$/, ''));
  });

  it('caps the listed columns per table', () => {
    const wide: Catalog = { tables: [{ name: 'wide', kind: 'table', schema: 'main', columns: cols(...Array.from({ length: 15 }, (_, i) => `c${i + 1}`)) }] };
    expect(checkSchema({ sql: 'SELECT zzz FROM wide', dialect: 'sqlite', catalog: wide }).issues[0]!.message)
      .toBe('no such column: zzz; columns of wide: c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, … (+3 more)');
  });

  it.each<[string, string]>([
    ['SELECT name FROM customers', 'every name resolves (1 table, 1 column reference)'],
    ['SELECT o.amount, c.name FROM orders o JOIN customers c USING (customer_id)', // the USING column counts
     'every name resolves (2 tables, 4 column references)'],
    ['SELECT 1', 'every name resolves (0 tables, 0 column references)'],
  ])('pass reason counts in singular and plural: %s', (sql, reason) => {
    expect(checkSchema({ sql, dialect: 'sqlite', catalog }).reason).toBe(reason);
  });

  it('rejects a catalog without tables', () => {
    expect(() => checkSchema({ sql: 'SELECT 1', dialect: 'sqlite', catalog: {} as Catalog })).toThrow('catalog must be { tables: CatalogTable[] } (see src/sql/catalog.ts)');
  });
});
