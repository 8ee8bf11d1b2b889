// What a failing matcher prints: each message names the rung, the reason with its position, and
// the evidence (the catalog, the differing rows, the numbers). The pack test runs this file on
// every vitest release the package supports, so the messages are the same on each.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SHOP_DB } from './shop.js';

/** Runs an assertion that must fail; returns its message without colours, the database path as <db>. */
async function failureOf(assertion: () => unknown): Promise<string> {
  try {
    await assertion();
  } catch (error) {
    return stripVTControlCharacters(error instanceof Error ? error.message : String(error)).split(SHOP_DB).join('<db>');
  }
  throw new Error('the assertion passed; it was expected to fail');
}

describe('failure messages', () => {
  it('L1: a misspelt keyword', async () => {
    expect(await failureOf(() => expect('SELEC name FROM customers').toBeValidSql({ dialect: 'sqlite' }))).toBe(
      [
        'expect(sql).toBeValidSql(options)',
        '',
        'Expected sql to be valid sqlite SQL (exactly one query)',
        'Received: "SELEC name FROM customers"',
        '',
        'L1 syntax failed: syntax error: Syntax Error: Unexpected "SELEC"',
        '',
        'Issues:',
        '  line 1, column 1  syntax_error  Syntax Error: Unexpected "SELEC"',
        '    SELEC name FROM customers',
        '    ^',
      ].join('\n'),
    );
  });

  it('L2: a misspelt column, with a did-you-mean and the catalog', async () => {
    expect(await failureOf(() => expect('SELECT nme FROM customers').toReferenceExistingSchema(SHOP_DB))).toBe(
      [
        'expect(sql).toReferenceExistingSchema(catalogOrDb)',
        '',
        'Expected sql to name only tables and columns that exist in the database <db> (sqlite name rules)',
        'Received: "SELECT nme FROM customers"',
        '',
        'L2 schema failed: no such column: nme; did you mean name? at 1:8',
        '',
        'Issues:',
        '  line 1, column 8  unknown_column  no such column: nme; did you mean name?',
        '    SELECT nme FROM customers',
        '           ^',
        '',
        'Catalog:',
        '  customers(id, name, city)',
        '  orders(id, customer_id, total, ordered_at)',
      ].join('\n'),
    );
  });

  it('L3: a write after the query', async () => {
    expect(await failureOf(() => expect('SELECT name FROM customers; DELETE FROM orders').toBeSafeSql())).toBe(
      [
        'expect(sql).toBeSafeSql()',
        '',
        'Expected sql to be safe sqlite SQL (one read-only query)',
        'Received: "SELECT name FROM customers; DELETE FROM orders"',
        '',
        'L3 safety failed: multiple_statements: 2 statements; exactly one query is allowed at 1:29 (+1 more)',
        '',
        'Issues:',
        '  line 1, column 29  multiple_statements  2 statements; exactly one query is allowed',
        '    SELECT name FROM customers; DELETE FROM orders',
        '                                ^',
        '  line 1, column 29  write_statement  DELETE is not a read-only query',
        '    SELECT name FROM customers; DELETE FROM orders',
        '                                ^',
      ].join('\n'),
    );
  });

  it('L4: a dropped filter, with the differing rows', async () => {
    const gold = "SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id WHERE ordered_at < '2024-03-01' GROUP BY city";
    expect(await failureOf(() => expect('SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id GROUP BY city').toMatchGoldResult(gold, { db: SHOP_DB }))).toBe(
      [
        'expect(sql).toMatchGoldResult(gold)',
        '',
        'Expected sql to return the result of the gold SQL on snapshot shop',
        'Received: "SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id GROUP BY city"',
        '',
        "L4 execution failed: snapshot shop: prediction has 3 rows, gold has 2; 1 missing row, 2 extra rows; first: gold ['New York', 300] vs predicted ['Helsinki', 45.25]",
        '',
        'Gold:',
        `  ${gold}`,
        '',
        "Snapshot shop: prediction has 3 rows, gold has 2; 1 missing row, 2 extra rows; first: gold ['New York', 300] vs predicted ['Helsinki', 45.25]",
        'Column map (gold → prediction): none makes the results equal',
        'Missing rows (in the gold result, not in the prediction): 1',
        '  | city       | SUM(total) |',
        '  |------------|------------|',
        "  | 'New York' | 300        |",
        'Extra rows (in the prediction, not in the gold result): 2',
        '  | city       | SUM(total) |',
        '  |------------|------------|',
        "  | 'Helsinki' | 45.25      |",
        "  | 'New York' | 450        |",
        "First differing cell (rows from 0): gold row 1, column city = 'New York'; prediction row 0, column city = 'Helsinki'",
        '',
        "Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6",
      ].join('\n'),
    );
  });

  it('L7: a figure the rows do not support', async () => {
    expect(await failureOf(() => expect('New York leads with $500 of revenue.').toHaveGroundedNumbers([['New York', 450]]))).toBe(
      [
        'expect(answer).toHaveGroundedNumbers(rows)',
        '',
        'Expected answer to have every number grounded in the 1-row result',
        'Received: "New York leads with $500 of revenue."',
        '',
        'L7 answer grounding failed: 1 of 1 numbers ungrounded: $500 (1:21)',
        '',
        'Issues:',
        '  line 1, column 21  ungrounded_number  $500 matches no cell of the 1-row result (stated precision ±0.5)',
        '    New York leads with $500 of revenue.',
        '                        ^',
        '',
        'Numbers:',
        '  $500 (1:21)  ungrounded',
        '',
        'Rows (1):',
        '  | #1         | #2  |',
        '  |------------|-----|',
        "  | 'New York' | 450 |",
      ].join('\n'),
    );
  });

  it('.not: a query that passes', async () => {
    expect(await failureOf(() => expect('SELECT name FROM customers').not.toBeSafeSql())).toBe(
      ['expect(sql).not.toBeSafeSql()', '', 'Expected sql not to be safe sqlite SQL (one read-only query)', 'Received: "SELECT name FROM customers"', '', 'L3 safety passed: one read-only query; no unsafe construct'].join('\n'),
    );
  });
});
