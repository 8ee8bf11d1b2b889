/**
 * One plausible wrong query per trap-tagged item of datasets/warehouse.yaml (How to evaluate SQL queries that run successfully but return the wrong answer,
 * "Common semantic errors"), with the snapshots on which it must give a different result than
 * the gold. A trap that no snapshot exposes would let the mistake pass: the dataset test fails.
 */
const COUNTED = "o.status <> 'CANCELLED' AND o.deleted_at IS NULL AND c.is_test = 0 AND c.deleted_at IS NULL";

export interface Trap {
  /** The mistake, in How to evaluate SQL queries that run successfully but return the wrong answer's words. */
  readonly mistake: string;
  readonly sql: string;
  /** Snapshots where the wrong query's rows differ from the gold's (exact). */
  readonly differsOn: readonly string[];
}

export const TRAPS: Readonly<Record<string, Trap>> = {
  'wh-004': { mistake: 'case-sensitive filter value copied from the question', sql: "SELECT COUNT(*) FROM products WHERE brand = 'Acme'", differsOn: ['base', 'later', 'edge'] },
  'wh-005': { mistake: 'display label instead of the stored status code', sql: "SELECT COUNT(*) FROM orders WHERE status = 'cancelled' AND order_date BETWEEN '2024-01-01' AND '2024-12-31'", differsOn: ['base', 'later', 'edge'] },
  'wh-006': { mistake: 'exact-case segment and no test-account exclusion', sql: "SELECT COUNT(*) FROM customers WHERE segment = 'Enterprise'", differsOn: ['base', 'later', 'edge'] },
  'wh-007': { mistake: 'soft-deleted customers kept', sql: "SELECT c.customer_id, c.name FROM customers c JOIN regions r ON r.region_id = c.region_id WHERE r.code = 'EMEA'", differsOn: ['base', 'later', 'edge'] },
  'wh-014': {
    mistake: 'cancelled orders and test accounts not excluded',
    sql: "SELECT SUM(i.quantity) FROM order_items i JOIN products p ON p.product_id = i.product_id JOIN orders o ON o.order_id = i.order_id WHERE p.category = 'Hardware' AND o.order_date BETWEEN '2024-01-01' AND '2024-12-31'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-015': {
    mistake: 'inner join drops the region with no customers',
    sql: 'SELECT r.name, COUNT(*) FROM regions r JOIN v_real_customers c ON c.region_id = r.region_id GROUP BY r.name',
    differsOn: ['base', 'edge'],
  },
  'wh-017': {
    mistake: 'counting order lines instead of distinct products',
    sql: `SELECT p.category, COUNT(*) FROM order_items i JOIN products p ON p.product_id = i.product_id JOIN orders o ON o.order_id = i.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date BETWEEN '2025-01-01' AND '2025-03-31' AND ${COUNTED} GROUP BY p.category`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-018': {
    mistake: 'counting order rows instead of customers',
    sql: `SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date BETWEEN '2025-01-01' AND '2025-03-31' AND ${COUNTED}`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-019': {
    mistake: 'join fan-out: order_total summed once per line',
    sql: `SELECT SUM(o.order_total) FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date BETWEEN '2025-01-01' AND '2025-03-31' AND ${COUNTED}`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-020': {
    mistake: 'average of regional averages',
    sql: "SELECT AVG(a) FROM (SELECT AVG(net_revenue) AS a FROM v_order_revenue WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31' GROUP BY region_id)",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-021': {
    mistake: 'join fan-out: lines and refunds joined before summing',
    sql: `SELECT r.name, SUM(i.quantity * i.unit_price - COALESCE(i.discount, 0)) - COALESCE(SUM(f.amount), 0) FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN regions r ON r.region_id = c.region_id JOIN order_items i ON i.order_id = o.order_id LEFT JOIN refunds f ON f.order_id = o.order_id WHERE o.order_date BETWEEN '2025-04-01' AND '2025-06-30' AND ${COUNTED} GROUP BY r.name`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-022': {
    mistake: 'average of regional averages',
    sql: "SELECT AVG(a) FROM (SELECT AVG(net_revenue) AS a FROM v_order_revenue WHERE order_date BETWEEN '2025-01-01' AND '2025-03-31' GROUP BY region_id)",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-023': {
    mistake: 'grouping by customer name merges two customers',
    sql: "SELECT MIN(c.customer_id), c.name, SUM(v.net_revenue) FROM v_order_revenue v JOIN customers c ON c.customer_id = v.customer_id WHERE v.order_date BETWEEN '2024-01-01' AND '2024-12-31' GROUP BY c.name",
    differsOn: ['edge'],
  },
  'wh-024': {
    mistake: 'one row per account instead of per user',
    sql: "SELECT o.customer_id, COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Fabrikam Inc' AND o.order_date >= '2025-01-01' AND o.status <> 'CANCELLED' AND o.deleted_at IS NULL GROUP BY o.customer_id",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-025': {
    mistake: 'grouping by month instead of by day',
    sql: "SELECT strftime('%Y-%m', order_date), COUNT(*) FROM v_order_revenue WHERE order_date BETWEEN '2025-06-01' AND '2025-06-07' GROUP BY 1",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-026': {
    mistake: 'ORDER BY ... LIMIT 1 drops tied customers',
    sql: `SELECT c.customer_id, c.name, COUNT(*) AS n FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date BETWEEN '2024-01-01' AND '2024-12-31' AND ${COUNTED} GROUP BY c.customer_id, c.name ORDER BY n DESC LIMIT 1`,
    differsOn: ['edge'],
  },
  'wh-027': {
    mistake: 'LIMIT 3 drops the product tied with the third',
    sql: `SELECT p.name, SUM(i.quantity) AS units FROM order_items i JOIN products p ON p.product_id = i.product_id JOIN orders o ON o.order_id = i.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date BETWEEN '2024-01-01' AND '2024-12-31' AND ${COUNTED} GROUP BY p.product_id, p.name ORDER BY units DESC LIMIT 3`,
    differsOn: ['edge'],
  },
  'wh-029': {
    mistake: 'counting order lines instead of distinct products',
    sql: "SELECT COUNT(*) FROM order_items i JOIN orders o ON o.order_id = i.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Contoso Ltd' AND o.order_date BETWEEN '2024-01-01' AND '2024-12-31' AND o.status <> 'CANCELLED' AND o.deleted_at IS NULL",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-030': {
    mistake: 'filtering refunds by the order date instead of the refund date',
    sql: "SELECT SUM(r.amount) FROM refunds r JOIN orders o ON o.order_id = r.order_id WHERE o.order_date BETWEEN '2025-03-01' AND '2025-03-31'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-031': {
    mistake: 'NULL discount makes the line amount NULL',
    sql: `SELECT SUM(i.quantity * i.unit_price - i.discount) FROM order_items i JOIN products p ON p.product_id = i.product_id JOIN orders o ON o.order_id = i.order_id JOIN customers c ON c.customer_id = o.customer_id WHERE p.category = 'Accessories' AND o.order_date BETWEEN '2025-01-01' AND '2025-03-31' AND ${COUNTED}`,
    differsOn: ['edge'],
  },
  'wh-032': {
    mistake: '= NULL is never true',
    sql: 'SELECT COUNT(*) FROM v_real_customers WHERE segment = NULL',
    differsOn: ['edge'],
  },
  'wh-033': {
    mistake: 'integer division truncates the ratio',
    sql: `SELECT COUNT(i.order_item_id) / COUNT(DISTINCT o.order_id) FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN order_items i ON i.order_id = o.order_id WHERE o.order_date BETWEEN '2024-01-01' AND '2024-12-31' AND ${COUNTED}`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-034': {
    mistake: 'last quarter read as the quarter holding as_of_date',
    sql: "SELECT SUM(net_revenue) FROM v_order_revenue WHERE order_date BETWEEN '2025-07-01' AND '2025-09-30'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-035': {
    mistake: 'BETWEEN on a timestamp drops the last day',
    sql: `SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.ordered_at BETWEEN '2025-01-01' AND '2025-03-31' AND ${COUNTED}`,
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-036': {
    mistake: 'calendar year instead of fiscal year',
    sql: "SELECT SUM(net_revenue) FROM v_order_revenue WHERE order_date BETWEEN '2025-01-01' AND '2025-12-31'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-037': {
    mistake: 'calendar year to date instead of fiscal year to date',
    sql: "SELECT COUNT(*) FROM v_order_revenue WHERE order_date >= '2025-01-01' AND order_date < '2025-06-15'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-038': {
    mistake: 'last month read as the last 30 days',
    sql: "SELECT SUM(gross_revenue) FROM v_order_revenue WHERE order_date >= date('2025-03-10', '-30 days') AND order_date < '2025-03-10'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-039': {
    mistake: 'year to date including as_of_date itself',
    sql: "SELECT COUNT(*) FROM v_order_revenue WHERE order_date BETWEEN '2025-01-01' AND '2025-05-15'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-040': {
    mistake: 'last 30 days counted from the first of the month',
    sql: "SELECT COUNT(DISTINCT customer_id) FROM v_order_revenue WHERE order_date BETWEEN '2025-06-01' AND '2025-06-14'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-041': {
    mistake: 'UTC date instead of the local date',
    sql: "SELECT COUNT(*) FROM orders WHERE order_date = '2025-03-31'",
    differsOn: ['edge'],
  },
  'wh-042': {
    mistake: 'UTC date instead of the local date',
    sql: "SELECT COUNT(*) FROM orders WHERE order_date = '2025-01-01'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-043': {
    mistake: 'last year read as the current year',
    sql: "SELECT COUNT(*) FROM v_real_customers WHERE signup_date >= '2025-01-01'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-044': {
    mistake: 'exclusive upper bound drops the 15th',
    sql: "SELECT COUNT(*) FROM v_order_revenue WHERE order_date >= '2025-05-01' AND order_date < '2025-05-15'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-045': {
    mistake: 'grouping by month instead of quarter',
    sql: "SELECT strftime('%Y-%m', order_date), SUM(gross_revenue) FROM v_order_revenue WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31' GROUP BY 1",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-047': {
    mistake: 'grouping by the raw, case-inconsistent segment',
    sql: "SELECT LOWER(c.segment), COUNT(DISTINCT v.customer_id) FROM v_order_revenue v JOIN customers c ON c.customer_id = v.customer_id WHERE v.order_date >= '2025-05-02' AND v.order_date < '2025-06-01' GROUP BY c.segment",
    differsOn: ['edge'],
  },
  'wh-051': {
    mistake: 'the current quarter instead of the last one',
    sql: "SELECT channel, SUM(net_revenue) FROM v_order_revenue WHERE order_date >= '2025-07-01' GROUP BY channel",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-052': {
    mistake: 'test accounts, soft deletes and cancellations not excluded',
    sql: "SELECT SUM(o.order_total) - (SELECT SUM(r.amount) FROM refunds r JOIN orders o2 ON o2.order_id = r.order_id WHERE o2.order_date BETWEEN '2025-01-01' AND '2025-06-30') FROM orders o WHERE o.order_date BETWEEN '2025-01-01' AND '2025-06-30'",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-070': {
    mistake: 'average over orders instead of over customers',
    sql: "WITH p AS (SELECT customer_id, SUM(net_revenue) AS net FROM v_order_revenue WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31' GROUP BY customer_id) SELECT c.customer_id, c.name FROM p JOIN customers c ON c.customer_id = p.customer_id WHERE p.net > (SELECT AVG(net_revenue) FROM v_order_revenue WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31')",
    differsOn: ['base', 'later', 'edge'],
  },
  'wh-054': { mistake: '= NULL is never true', sql: 'SELECT COUNT(*) FROM users WHERE phone = NULL', differsOn: ['base', 'later', 'edge'] },
};
