import { describe, expect, it } from 'vitest';
import { analyzePlan, sortCost } from '../../src/efficiency/plan-analysis.js';
import { DEFAULT_TABLE_ROWS, parseStat1 } from '../../src/efficiency/statistics.js';
import { collectTableAliases, mergeTableAliases } from '../../src/efficiency/table-aliases.js';
import type { PlanStep } from '../../src/engine/engine.js';

// Statistics as ANALYZE wrote them for a 2000-row orders table and 50 customers (SQLite 3.53).
const statistics = parseStat1([
  { tbl: 'orders', idx: 'idx_orders_cust_date', stat: '2000 40 1' },
  { tbl: 'orders', idx: 'idx_orders_date', stat: '2000 6' },
  { tbl: 'customers', idx: null, stat: '50' },
]);
const LOG2_2000 = Math.log2(2000); // 10.965784284662087: one B-tree descent into orders

function plan(...rows: [number, number, string][]): PlanStep[] {
  return rows.map(([id, parent, detail]) => ({ id, parent, detail }));
}
function analyze(sql: string, steps: PlanStep[]) {
  return analyzePlan(steps, { statistics, aliases: collectTableAliases(sql) });
}

describe('analyzePlan: cost estimate (row visits)', () => {
  it('a full table scan costs N', () => {
    const result = analyze("SELECT count(*) FROM orders WHERE substr(order_date,1,7) = '2024-03'", plan([3, 0, 'SCAN orders']));
    expect(result.cost.total).toBe(2000);
    expect(result.proxies.fullScans).toEqual([{ stepId: 3, name: 'orders', table: 'orders', access: 'table-scan', index: null }]);
    expect(result.proxies.searches).toEqual([]);
  });

  it('a two-bound range search costs N/16 rows plus one descent', () => {
    const result = analyze(
      "SELECT count(*) FROM orders WHERE order_date >= '2024-03-01' AND order_date < '2024-04-01'",
      plan([3, 0, 'SEARCH orders USING COVERING INDEX idx_orders_date (order_date>? AND order_date<?)']),
    );
    // 2000 / 4^2 = 125 rows, covering (no table lookups) + log2(2000) = 135.97 → 136
    expect(result.cost.total).toBe(136);
    expect(result.cost.steps[0]).toEqual({ stepId: 3, detail: 'SEARCH orders USING COVERING INDEX idx_orders_date (order_date>? AND order_date<?)', loops: 1, rowsPerLoop: 125, cost: 125 + LOG2_2000 });
  });

  it('resolves aliases, nests loops and sorts the joined rows', () => {
    const result = analyze(
      "SELECT o.id FROM orders AS o JOIN customers c ON c.id = o.customer_id WHERE c.region='EMEA' ORDER BY o.amount",
      plan([5, 0, 'SCAN c'], [9, 0, 'SEARCH o USING INDEX idx_orders_cust_date (customer_id=?)'], [21, 0, 'USE TEMP B-TREE FOR ORDER BY']),
    );
    // SCAN c: 50; SEARCH o: 50 loops × (40 rows × 2 (not covering) + log2 2000) = 4548.29;
    // sort of 50 × 40 = 2000 rows: 2000 × log2 2000 = 21931.57; total 26529.86 → 26530
    expect(result.cost.total).toBe(26530);
    expect(result.proxies.fullScans.map((scan) => scan.table)).toEqual(['customers']);
    expect(result.proxies.searches).toEqual([{ stepId: 9, name: 'o', table: 'orders', access: 'index-search', index: 'idx_orders_cust_date', constraint: 'customer_id=?' }]);
    expect(result.proxies.tempBTrees).toEqual([{ stepId: 21, purpose: 'ORDER BY' }]);
  });

  it('multiplies a correlated subquery by the outer rows', () => {
    const result = analyze(
      'SELECT name, (SELECT max(amount) FROM orders o WHERE o.customer_id = c.id) FROM customers c',
      plan([2, 0, 'SCAN c'], [6, 0, 'CORRELATED SCALAR SUBQUERY 1'], [12, 6, 'SEARCH o USING INDEX idx_orders_cust_date (customer_id=?)']),
    );
    // 50 + 50 × (80 + log2 2000) = 4598.29 → 4598
    expect(result.cost.total).toBe(4598);
    expect(result.proxies.correlatedSubqueries).toEqual([{ stepId: 6, form: 'scalar' }]);
  });

  it('runs a non-correlated list subquery once and counts bloom filters', () => {
    const result = analyze(
      'SELECT name FROM customers c WHERE id IN (SELECT customer_id FROM orders WHERE amount > 100)',
      plan([2, 0, 'SCAN c'], [7, 0, 'LIST SUBQUERY 1'], [10, 7, 'SCAN orders'], [19, 7, 'CREATE BLOOM FILTER']),
    );
    expect(result.cost.total).toBe(50 + 2000);
    expect(result.proxies.bloomFilters).toBe(1);
    expect(result.proxies.correlatedSubqueries).toEqual([]);
  });

  it('scans a materialized CTE by the rows of its block, not as a base table', () => {
    const result = analyze(
      'WITH t AS MATERIALIZED (SELECT customer_id, sum(amount) s FROM orders GROUP BY customer_id) SELECT * FROM t JOIN customers c ON c.id=t.customer_id ORDER BY s',
      plan(
        [3, 0, 'MATERIALIZE t'],
        [11, 3, 'SCAN orders USING INDEX idx_orders_cust_date'],
        [49, 0, 'SCAN t'],
        [51, 0, 'SEARCH c USING INTEGER PRIMARY KEY (rowid=?)'],
        [62, 0, 'USE TEMP B-TREE FOR ORDER BY'],
      ),
    );
    // MATERIALIZE: index scan 2 × 2000 = 4000, 2000 rows; SCAN t: 2000;
    // SEARCH c by rowid: 2000 × (1 + log2 50); sort 2000 rows: 2000 × log2 2000
    const expected = 4000 + 2000 + 2000 * (1 + Math.log2(50)) + 2000 * LOG2_2000;
    expect(result.cost.total).toBe(Math.round(expected));
    expect(result.cost.total).toBe(41219);
    expect(result.proxies.fullScans.map((scan) => [scan.table, scan.access])).toEqual([['orders', 'index-scan']]);
  });

  it('scans a materialized CTE read through an alias by its block rows, not SQLite\'s default', () => {
    const result = analyze(
      'WITH t AS MATERIALIZED (SELECT customer_id, sum(amount) s FROM orders GROUP BY customer_id) SELECT * FROM t p',
      plan([3, 0, 'MATERIALIZE t'], [11, 3, 'SCAN orders USING INDEX idx_orders_cust_date'], [49, 0, 'SCAN p']),
    );
    // MATERIALIZE: index scan 2 × 2000 = 4000, 2000 rows; SCAN p (= t): 2000, not 1 048 576.
    expect([result.cost.total, result.cost.defaultedTables]).toEqual([6000, []]);
  });

  it('adds compound members and sorts UNION through its temp B-tree', () => {
    const result = analyze(
      'SELECT id FROM orders UNION SELECT id FROM customers',
      plan([1, 0, 'COMPOUND QUERY'], [2, 1, 'LEFT-MOST SUBQUERY'], [5, 2, 'SCAN orders'], [12, 1, 'UNION USING TEMP B-TREE'], [15, 12, 'SCAN customers']),
    );
    expect(result.cost.total).toBe(Math.round(2000 + 50 + sortCost(50)));
    expect(result.proxies.tempBTrees).toEqual([{ stepId: 12, purpose: 'compound' }]);
  });

  it('charges an automatic index its build once and lists it', () => {
    const result = analyze(
      'SELECT * FROM customers c JOIN orders o ON o.amount = c.id',
      plan([3, 0, 'SCAN c'], [5, 0, 'SEARCH o USING AUTOMATIC COVERING INDEX (amount=?)']),
    );
    // 50 + build 2000·log2 2000 + 50 × (10 + log2 2000)
    expect(result.cost.total).toBe(Math.round(50 + 2000 * LOG2_2000 + 50 * (10 + LOG2_2000)));
    expect(result.proxies.automaticIndexes).toEqual([{ stepId: 5, table: 'orders', constraint: 'amount=?' }]);
  });

  it('searches a materialized block through an automatic index by the block rows, not as a base table', () => {
    const result = analyze(
      'SELECT * FROM customers c LEFT JOIN (SELECT customer_id, sum(amount) s FROM orders GROUP BY customer_id) rf ON rf.customer_id = c.id',
      plan(
        [2, 0, 'MATERIALIZE rf'],
        [9, 2, 'SCAN orders USING INDEX idx_orders_cust_date'],
        [40, 0, 'SCAN c'],
        [45, 0, 'BLOOM FILTER ON rf (customer_id=?)'],
        [50, 0, 'SEARCH rf USING AUTOMATIC COVERING INDEX (customer_id=?) LEFT-JOIN'],
      ),
    );
    // MATERIALIZE: 2 × 2000 (index scan with table lookups), 2000 rows; SCAN c: 50;
    // automatic index on rf (N = 2000): build 2000·log2 2000 once + 50 × (10 + log2 2000)
    expect(result.cost.total).toBe(Math.round(4000 + 50 + 2000 * LOG2_2000 + 50 * (10 + LOG2_2000)));
    expect(result.proxies.automaticIndexes).toEqual([{ stepId: 50, table: 'rf', constraint: 'customer_id=?' }]);
    expect(result.proxies.searches).toEqual([]);
    expect(result.proxies.fullScans.map((scan) => scan.table)).toEqual(['orders', 'customers']);
    expect(result.proxies.bloomFilters).toBe(1);
    expect(result.cost.defaultedTables).toEqual([]);
  });

  it("assumes SQLite's default row count for a table without statistics and says so", () => {
    const result = analyze('SELECT * FROM events', plan([2, 0, 'SCAN events']));
    expect(result.cost.total).toBe(DEFAULT_TABLE_ROWS);
    expect(result.cost.defaultedTables).toEqual(['events']);
  });

  it('is deterministic: the same plan gives the same analysis', () => {
    const steps = plan([5, 0, 'SCAN c'], [9, 0, 'SEARCH o USING INDEX idx_orders_cust_date (customer_id=?)']);
    const sql = 'SELECT 1 FROM orders o JOIN customers c ON c.id = o.customer_id';
    expect(analyze(sql, steps)).toEqual(analyze(sql, steps));
  });
});

describe('parseStat1', () => {
  it('reads table rows from the NULL-index row, else from the largest index', () => {
    expect(statistics.tables).toEqual(new Map([['orders', 2000], ['customers', 50]]));
    expect(statistics.indexes.get('idx_orders_cust_date')).toEqual({ table: 'orders', rows: 2000, rowsPerKey: [40, 1] });
  });
  it('stops at the first non-integer token (unordered, sz=)', () => {
    expect(parseStat1([{ tbl: 'T', idx: 'I', stat: '100 10 unordered sz=12' }]).indexes.get('i')).toEqual({ table: 't', rows: 100, rowsPerKey: [10] });
  });
});

describe('mergeTableAliases', () => {
  it("keeps the statement's aliases and fills gaps from view definitions", () => {
    const merged = mergeTableAliases(collectTableAliases('SELECT * FROM v AS o'), [
      collectTableAliases('CREATE VIEW v AS SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id'),
      collectTableAliases('CREATE VIEW w AS SELECT * FROM products c'),
    ]);
    expect(merged.byName.get('o')).toBe('v');
    expect(merged.byName.get('c')).toBe('customers');
    expect(merged.ambiguous).toEqual(['c']);
  });
});

describe('collectTableAliases', () => {
  it('maps aliases in every scope and flags an alias bound to two tables', () => {
    const aliases = collectTableAliases('SELECT 1 FROM main.orders AS o JOIN customers c ON c.id = o.customer_id WHERE EXISTS (SELECT 1 FROM products o)');
    expect([...aliases.byName]).toEqual([['orders', 'orders'], ['o', 'orders'], ['customers', 'customers'], ['c', 'customers'], ['products', 'products']]);
    expect(aliases.ambiguous).toEqual(['o']);
  });
  it('does not treat select-list aliases as tables', () => {
    expect([...collectTableAliases('SELECT amount AS a FROM (SELECT amount FROM orders) AS s').byName]).toEqual([['orders', 'orders']]);
  });
});
