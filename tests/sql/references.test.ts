import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/engine/engine.js';
import { collectReferences, type References } from '../../src/sql/references.js';
import type { Dialect } from '../../src/sql/parse.js';
import { useGenerousParseBudget } from '../helpers/depth-limit.js';

/** A small catalog: orders, customers, salaries (main) and hr.staff, plus a view. */
const catalog: Catalog = {
  tables: [
    { name: 'orders', kind: 'table', schema: 'main', columns: cols('order_id', 'customer_id', 'amount', 'region') },
    { name: 'customers', kind: 'table', schema: 'main', columns: cols('customer_id', 'name', 'segment') },
    { name: 'salaries', kind: 'table', schema: 'main', columns: cols('employee_id', 'amount') },
    { name: 'staff', kind: 'table', schema: 'hr', columns: cols('employee_id', 'name') },
    { name: 'big_orders', kind: 'view', schema: 'main', columns: cols('order_id', 'amount') },
  ],
};

function cols(...names: string[]) {
  return names.map((name) => ({ name, type: '', primaryKey: false }));
}

/** The same catalog with PostgreSQL's default schema. */
const pgCatalog: Catalog = {
  tables: catalog.tables.map((table) => ({ ...table, schema: table.schema === 'main' ? 'public' : table.schema })),
};

function refs(sql: string, dialect: Dialect = 'sqlite', withCatalog = true): References {
  const chosen = dialect === 'postgres' ? pgCatalog : catalog;
  const result = collectReferences({ sql, dialect, ...(withCatalog ? { catalog: chosen } : {}) });
  if (!result.ok) throw new Error(`unexpected failure: ${result.reason}`);
  return result;
}

function unresolved(sql: string, dialect: Dialect = 'sqlite'): string[] {
  return refs(sql, dialect).unresolved.map((item) => `${item.kind} ${item.name}@${item.line}:${item.column}${item.suggestion ? ` ~${item.suggestion}` : ''}`);
}

describe('collectReferences: scope rules (exact unresolved names)', () => {
  it.each<[string, string, Dialect, string[]]>([
    ['plain columns', 'SELECT order_id, amount FROM orders', 'sqlite', []],
    ['misspelt column', 'SELECT amont FROM orders', 'sqlite', ['unknown_column amont@1:8 ~amount']],
    ['misspelt table', 'SELECT * FROM ordrs', 'sqlite', ['unknown_table ordrs@1:15 ~orders']],
    ['CTE name is not a table', 'WITH big AS (SELECT amount FROM orders) SELECT amount FROM big', 'sqlite', []],
    ['CTE column not exported', 'WITH big AS (SELECT amount FROM orders) SELECT region FROM big', 'sqlite', ['unknown_column region@1:48']],
    ['CTE declared column list', 'WITH big(x) AS (SELECT amount FROM orders) SELECT x FROM big', 'sqlite', []],
    ['CTE shadows a real table in the outer query', 'WITH orders AS (SELECT employee_id FROM salaries) SELECT region FROM orders', 'sqlite', ['unknown_column region@1:58']],
    ['shadowing CTE body reads the real table (postgres)', 'WITH salaries AS (SELECT amount FROM salaries) SELECT amount FROM salaries', 'postgres', []],
    ['shadowing CTE body: real column missing (postgres)', 'WITH salaries AS (SELECT bonus FROM salaries) SELECT * FROM salaries', 'postgres', ['unknown_column bonus@1:26']],
    ['derived-table alias is not a table', 'SELECT d.total FROM (SELECT sum(amount) AS total FROM orders) AS d', 'sqlite', []],
    ['derived-table alias hides inner names', 'SELECT d.amount FROM (SELECT sum(amount) AS total FROM orders) AS d', 'sqlite', ['unknown_column d.amount@1:8']],
    ['select alias in ORDER BY / GROUP BY / HAVING', 'SELECT region AS r, count(*) AS n FROM orders GROUP BY r HAVING n > 1 ORDER BY n', 'sqlite', []],
    ['select alias in WHERE is SQLite-only', 'SELECT amount AS a2 FROM orders WHERE a2 > 1', 'postgres', ['unknown_column a2@1:39']],
    ['USING column may be unqualified', 'SELECT customer_id, name FROM orders JOIN customers USING (customer_id)', 'sqlite', []],
    ['NATURAL JOIN column may be unqualified', 'SELECT customer_id FROM orders NATURAL JOIN customers', 'sqlite', []],
    ['ambiguous without USING', 'SELECT customer_id FROM orders JOIN customers ON orders.customer_id = customers.customer_id', 'sqlite', ['ambiguous_column customer_id@1:8']],
    ['USING column missing on one side', 'SELECT 1 FROM orders JOIN customers USING (region)', 'sqlite', ['unknown_column region@1:44']],
    ['string literal is not a column', "SELECT 'amont' FROM orders WHERE region = 'nowhere'", 'sqlite', []],
    ['double-quoted string, legacy SQLite', 'SELECT amount FROM orders WHERE region = "APG"', 'sqlite', []],
    ['double-quoted name of a real column stays a column', 'SELECT "amount" FROM orders', 'sqlite', []],
    ['double-quoted token is an identifier in postgres', 'SELECT amount FROM orders WHERE region = "APG"', 'postgres', ['unknown_column APG@1:42']],
    ['schema-qualified: hr.staff is known', 'SELECT name FROM hr.staff', 'sqlite', []],
    ['schema-qualified: hr.orders is not orders', 'SELECT * FROM hr.orders', 'sqlite', ['unknown_table hr.orders@1:15 ~orders']],
    ['schema-qualified: main.orders is orders', 'SELECT main.orders.amount FROM main.orders', 'sqlite', []],
    ['alias hides the table name', 'SELECT orders.amount FROM orders AS o', 'sqlite', ['unknown_qualifier orders.amount@1:8']],
    ['correlated subquery sees outer columns', 'SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)', 'sqlite', []],
    ['scalar subquery unknown column', 'SELECT (SELECT max(amout) FROM orders) FROM customers', 'sqlite', ['unknown_column amout@1:20 ~amount']],
    ['compound ORDER BY uses first branch name', 'SELECT amount FROM orders UNION SELECT employee_id FROM salaries ORDER BY amount', 'sqlite', []],
    ['quoted and bracket identifiers', 'SELECT [amount], `region` FROM "orders"', 'sqlite', []],
    ['case-insensitive in SQLite', 'SELECT AMOUNT FROM ORDERS', 'sqlite', []],
    ['postgres quoted names are exact', 'SELECT "Amount" FROM orders', 'postgres', ['unknown_column Amount@1:8 ~amount']],
    ['rowid on a table', 'SELECT rowid FROM orders', 'sqlite', []],
    ['view is a relation', 'SELECT amount FROM big_orders', 'sqlite', []],
    ['window and function names are not columns', 'SELECT rank() OVER w, count(*) FROM orders WINDOW w AS (ORDER BY amount)', 'sqlite', []],
    ['COLLATE name is not a column', 'SELECT region FROM orders ORDER BY region COLLATE nocase', 'sqlite', []],
    ['table function columns are open', "SELECT j.value FROM orders, json_each(orders.region) AS j", 'sqlite', []],
    ['later CTE reads an earlier CTE', 'WITH a AS (SELECT amount FROM orders), b AS (SELECT amount FROM a) SELECT amount FROM b', 'sqlite', []],
    ['earlier CTE cannot read a later one', 'WITH a AS (SELECT amount FROM b), b AS (SELECT amount FROM orders) SELECT amount FROM a', 'postgres', ['unknown_table b@1:31']],
    ['recursive CTE (postgres)', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r', 'postgres', []],
    ['recursive CTE (sqlite)', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r', 'sqlite', []],
    ['CTE visible in a subquery', 'WITH c AS (SELECT 1 AS x) SELECT * FROM orders WHERE amount IN (SELECT x FROM c)', 'sqlite', []],
    ['CTE in a subquery shadows an outer CTE', 'WITH c AS (SELECT amount FROM orders) SELECT (WITH c AS (SELECT name FROM customers) SELECT max(name) FROM c) FROM c', 'sqlite', []],
    ['inner CTE does not leak out', 'SELECT * FROM (WITH c AS (SELECT 1 AS x) SELECT x FROM c) AS d JOIN c ON 1', 'sqlite', ['unknown_table c@1:69']],
    ['misspelt correlated column', 'SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customr_id)', 'sqlite', ['unknown_column c.customr_id@1:89 ~customer_id']],
    ['misspelt column in PARTITION BY', 'SELECT rank() OVER (PARTITION BY regon ORDER BY amount) FROM orders', 'sqlite', ['unknown_column regon@1:34 ~region']],
    ['unknown ORDER BY name', 'SELECT amount AS a FROM orders ORDER BY b', 'sqlite', ['unknown_column b@1:41 ~a']],
    ['unaliased derived table (SQLite)', 'SELECT total FROM (SELECT sum(amount) AS total FROM orders)', 'sqlite', []],
    ['derived-table column aliases', 'SELECT x FROM (SELECT amount FROM orders) AS d(x)', 'postgres', []],
    ['derived-table column aliases hide the inner name', 'SELECT amount FROM (SELECT amount FROM orders) AS d(x)', 'postgres', ['unknown_column amount@1:8']],
    ['INTERSECT and EXCEPT branches are checked', 'SELECT amount FROM orders INTERSECT SELECT amont FROM salaries EXCEPT SELECT amount FROM big_orders', 'sqlite', ['unknown_column amont@1:44 ~amount']],
    ['CASE, BETWEEN, IN list, LIKE, CAST', "SELECT CASE WHEN amount BETWEEN 1 AND 2 THEN 'a' ELSE region END FROM orders WHERE region IN ('x', 'y') AND CAST(order_id AS TEXT) LIKE '1%'", 'sqlite', []],
    ['table function with a column alias list', 'SELECT g.n FROM generate_series(1, 3) AS g(n)', 'postgres', []],
    ['table function with a column alias list: unknown column', 'SELECT g.m FROM generate_series(1, 3) AS g(n)', 'postgres', ['unknown_column g.m@1:8 ~n']],
    ['qualified star', 'SELECT o.* FROM orders o', 'sqlite', []],
    ['qualified star with an unknown qualifier', 'SELECT x.* FROM orders o', 'sqlite', ['unknown_qualifier x.*@1:8 ~o']],
    ['self-join makes an unqualified column ambiguous', 'SELECT amount FROM orders a JOIN orders b ON a.order_id = b.order_id', 'sqlite', ['ambiguous_column amount@1:8']],
    ['COUNT(DISTINCT …) and aggregate FILTER', 'SELECT COUNT(DISTINCT region), SUM(amount) FILTER (WHERE amount > 0) FROM orders', 'sqlite', []],
    ['postgres quoted table name is exact', 'SELECT 1 FROM "Orders"', 'postgres', ['unknown_table Orders@1:15 ~orders']],
    ['mysql backticks', 'SELECT `amount` FROM `orders` WHERE `region` = 1', 'mysql', []],
    ['GROUP BY alias in postgres', 'SELECT region AS r, count(*) FROM orders GROUP BY r', 'postgres', []],
    ['HAVING with a correlated subquery', 'SELECT region FROM orders o GROUP BY region HAVING count(*) > (SELECT count(*) FROM customers c WHERE c.segment = o.region)', 'sqlite', []],
    ['x IN table (SQLite) names a table', 'SELECT 1 FROM orders WHERE customer_id IN customers', 'sqlite', []],
    ['x NOT IN unknown table', 'SELECT 1 FROM orders WHERE customer_id NOT IN custmers', 'sqlite', ['unknown_table custmers@1:47 ~customers']],
    ['a column named like a table', 'SELECT customers.name FROM customers WHERE name = segment', 'sqlite', []],
  ])('%s', (_name, sql, dialect, expected) => {
    expect(unresolved(sql, dialect)).toEqual(expected);
  });
});

describe('collectReferences: tables and CTEs', () => {
  it('CTE shadowing (postgres): the body reads the real table, the outer query reads the CTE', () => {
    const result = refs('WITH salaries AS (SELECT * FROM salaries) SELECT * FROM salaries', 'postgres');
    expect(result.tables.map((table) => [table.written, table.column, table.selfReference])).toEqual([['salaries', 33, false]]);
    expect(result.ctes.map((cte) => [cte.name, cte.column])).toEqual([['salaries', 57]]);
  });

  it('CTE shadowing (sqlite): the body self-reference is marked as such and kept as a table reference', () => {
    const result = refs('WITH salaries AS (SELECT * FROM salaries) SELECT * FROM salaries', 'sqlite');
    expect(result.tables.map((table) => [table.written, table.selfReference])).toEqual([['salaries', true]]);
    expect(result.ctes.map((cte) => [cte.column, cte.selfReference])).toEqual([[33, true], [57, false]]);
  });

  it('a recursive CTE (compound body) is only a CTE reference, in SQLite too', () => {
    const result = refs('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r', 'sqlite');
    expect(result.tables).toEqual([]);
    expect(result.ctes.map((cte) => [cte.column, cte.selfReference])).toEqual([[62, true], [91, false]]);
  });

  it('every scope contributes: UNION branches, scalar subqueries, EXISTS, CTE bodies', () => {
    const result = refs(
      'WITH c AS (SELECT * FROM customers) SELECT (SELECT 1 FROM salaries) FROM orders WHERE EXISTS (SELECT 1 FROM hr.staff) UNION SELECT 1 FROM c',
      'sqlite',
      false,
    );
    expect(result.tables.map((table) => table.written)).toEqual(['customers', 'salaries', 'orders', 'hr.staff']);
    expect(result.unresolved).toEqual([]);
  });

  it('table functions are listed apart', () => {
    const result = refs("SELECT * FROM pragma_table_info('orders')", 'sqlite');
    expect(result.tableFunctions.map((fn) => [fn.name, fn.line, fn.column])).toEqual([['pragma_table_info', 1, 15]]);
    expect(result.tables).toEqual([]);
  });

  it('resolves columns to catalog tables', () => {
    const result = refs('SELECT o.amount, name FROM orders o JOIN customers USING (customer_id)');
    const resolved = result.columns.map((column) =>
      column.resolution.kind === 'table' ? `${column.resolution.table.name}.${column.resolution.column}` : column.resolution.kind,
    );
    expect(resolved).toEqual(['orders.amount', 'customers.name', 'orders.customer_id', 'customers.customer_id']);
  });

  it('output columns of the statement', () => {
    expect(refs('SELECT amount AS a, region, count(*) FROM orders').outputColumns).toEqual(['a', 'region', 'count(*)']);
  });

  it.each([
    ['parse error', 'SELEC x', 'parse_error'],
    ['two statements', 'SELECT 1; SELECT 2', 'not_single_statement'],
  ])('fails with a code: %s', (_name, sql, code) => {
    const result = collectReferences({ sql, dialect: 'sqlite' });
    expect(result.ok ? 'ok' : result.code).toBe(code);
  });
});

describe('collectReferences: what SQLite refuses by name', () => {
  it.each<[string, string, string[]]>([
    ['an unknown table-valued function', 'SELECT * FROM pragma_nosuchthing(0)', ['unknown_table pragma_nosuchthing@1:15']],
    ['a shell-only table-valued function', 'SELECT value FROM generate_series(1, 3)', ['unknown_table generate_series@1:19']],
    ['a table-valued function SQLite offers', "SELECT key FROM json_each('[1]')", []],
    ['a PRAGMA function SQLite offers', "SELECT name FROM pragma_table_info('orders')", []],
    ['a column of the query inside LIMIT', 'SELECT amount FROM orders LIMIT (SELECT amount)', ['unknown_column amount@1:41']],
    ['an outer column inside a LIMIT subquery', 'SELECT amount FROM orders AS o WHERE EXISTS (SELECT 1 FROM customers LIMIT (SELECT o.amount))', ['unknown_qualifier o.amount@1:84']],
    ['a LIMIT subquery over its own table', 'SELECT amount FROM orders LIMIT (SELECT count(*) FROM customers)', []],
    ['a CTE inside LIMIT', 'WITH n AS (SELECT 2 AS k) SELECT amount FROM orders LIMIT (SELECT k FROM n) OFFSET (SELECT k FROM n)', []],
  ])('%s', (_case, sql, expected) => {
    expect(unresolved(sql)).toEqual(expected);
  });
});

describe('collectReferences: budgets', () => {
  // The depth limit decides, not the 2 s parse budget a loaded machine can run out of first.
  useGenerousParseBudget();

  it('ends a 10 000-term chain with a budget reason instead of overflowing the stack', () => {
    const sql = `SELECT order_id FROM orders WHERE ${Array.from({ length: 10_000 }, () => '1').join(' OR ')}`;
    expect(collectReferences({ sql, dialect: 'sqlite', catalog })).toEqual({
      ok: false,
      code: 'parse_error',
      reason: 'not analysed within budget: the parse tree is more than 1100 levels deep',
    });
  });
});
