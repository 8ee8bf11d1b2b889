import { describe, expect, it } from 'vitest';
import { classifyPlanDetail, parseConstraint } from '../../src/efficiency/plan-step.js';

// Detail texts as SQLite 3.53 (better-sqlite3 12) prints them; the last row is the pre-3.36 form.
describe('classifyPlanDetail', () => {
  it.each([
    ['SCAN orders', { kind: 'loop', access: 'table-scan', name: 'orders', index: null, constraint: null, tableLookups: false }],
    ['SCAN orders USING COVERING INDEX idx_orders_date', { kind: 'loop', access: 'covering-index-scan', name: 'orders', index: 'idx_orders_date', constraint: null, tableLookups: false }],
    ['SCAN orders USING INDEX idx_orders_cust_date', { kind: 'loop', access: 'index-scan', name: 'orders', index: 'idx_orders_cust_date', constraint: null, tableLookups: true }],
    [
      'SEARCH o USING INDEX idx_orders_cust_date (customer_id=? AND order_date>?)',
      { kind: 'loop', access: 'index-search', name: 'o', index: 'idx_orders_cust_date', constraint: { equalities: 1, rangeBounds: 1, text: 'customer_id=? AND order_date>?' }, tableLookups: true },
    ],
    [
      'SEARCH orders USING COVERING INDEX idx_orders_date (order_date>? AND order_date<?)',
      { kind: 'loop', access: 'index-search', name: 'orders', index: 'idx_orders_date', constraint: { equalities: 0, rangeBounds: 2, text: 'order_date>? AND order_date<?' }, tableLookups: false },
    ],
    ['SEARCH c USING INTEGER PRIMARY KEY (rowid=?)', { kind: 'loop', access: 'rowid-search', name: 'c', index: null, constraint: { equalities: 1, rangeBounds: 0, text: 'rowid=?' }, tableLookups: false }],
    ['SEARCH t USING AUTOMATIC COVERING INDEX (x=?)', { kind: 'loop', access: 'automatic-index-search', name: 't', index: null, constraint: { equalities: 1, rangeBounds: 0, text: 'x=?' }, tableLookups: false }],
    ['SEARCH t USING AUTOMATIC PARTIAL COVERING INDEX (x=?)', { kind: 'loop', access: 'automatic-index-search', name: 't', index: null, constraint: { equalities: 1, rangeBounds: 0, text: 'x=?' }, tableLookups: false }],
    ['SCAN (subquery-1)', { kind: 'loop', access: 'subquery-scan', name: '(subquery-1)', index: null, constraint: null, tableLookups: false }],
    [
      'SEARCH rf USING AUTOMATIC COVERING INDEX (order_id=?) LEFT-JOIN',
      { kind: 'loop', access: 'automatic-index-search', name: 'rf', index: null, constraint: { equalities: 1, rangeBounds: 0, text: 'order_id=?' }, tableLookups: false },
    ],
    ['SCAN CONSTANT ROW', { kind: 'loop', access: 'constant-row', name: '', index: null, constraint: null, tableLookups: false }],
    ['SCAN TABLE orders AS o', { kind: 'loop', access: 'table-scan', name: 'o', index: null, constraint: null, tableLookups: false }],
  ])('%s', (detail, expected) => {
    expect(classifyPlanDetail(detail)).toEqual(expected);
  });

  it.each([
    ['USE TEMP B-TREE FOR ORDER BY', { kind: 'temp-b-tree', purpose: 'ORDER BY' }],
    ['USE TEMP B-TREE FOR RIGHT PART OF ORDER BY', { kind: 'temp-b-tree', purpose: 'ORDER BY' }],
    ['USE TEMP B-TREE FOR GROUP BY', { kind: 'temp-b-tree', purpose: 'GROUP BY' }],
    ['USE TEMP B-TREE FOR DISTINCT', { kind: 'temp-b-tree', purpose: 'DISTINCT' }],
    ['USE TEMP B-TREE FOR count(DISTINCT)', { kind: 'temp-b-tree', purpose: 'DISTINCT' }],
    ['UNION USING TEMP B-TREE', { kind: 'temp-b-tree', purpose: 'compound' }],
    ['CORRELATED SCALAR SUBQUERY 1', { kind: 'subquery', correlated: true, form: 'scalar' }],
    ['LIST SUBQUERY 2', { kind: 'subquery', correlated: false, form: 'list' }],
    ['MATERIALIZE t', { kind: 'materialize', form: 'materialize', name: 't' }],
    ['CO-ROUTINE (subquery-1)', { kind: 'materialize', form: 'co-routine', name: '(subquery-1)' }],
    ['CREATE BLOOM FILTER', { kind: 'bloom-filter' }],
    ['BLOOM FILTER ON o (customer_id=?)', { kind: 'bloom-filter' }],
    ['COMPOUND QUERY', { kind: 'compound' }],
    ['MERGE (UNION)', { kind: 'compound' }],
    ['MULTI-INDEX OR', { kind: 'compound' }],
    ['LEFT-MOST SUBQUERY', { kind: 'block' }],
    ['UNION ALL', { kind: 'block' }],
  ])('%s', (detail, expected) => {
    expect(classifyPlanDetail(detail)).toEqual(expected);
  });
});

describe('parseConstraint', () => {
  it('counts a skip-scan ANY() as neither equality nor bound', () => {
    expect(parseConstraint('ANY(a) AND b=? AND c>=?')).toEqual({ equalities: 1, rangeBounds: 1, text: 'ANY(a) AND b=? AND c>=?' });
  });
});
