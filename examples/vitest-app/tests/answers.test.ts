import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { answerFor } from '../src/answers.js';
import { SHOP_DB } from './shop.js';

/** A cell of the shop database (it holds no blobs and no integers beyond 2^53). */
type ShopCell = string | number | null;

/** Runs the app's SQL the way the app does, rows by position (`.raw()`), names kept apart. */
function rowsOf(sql: string): { columns: string[]; rows: ShopCell[][] } {
  const db = new Database(SHOP_DB, { readonly: true });
  try {
    const statement = db.prepare(sql).raw(true);
    return { columns: statement.columns().map((column) => column.name), rows: statement.all() as ShopCell[][] };
  } finally {
    db.close();
  }
}

describe('revenue by city', () => {
  const { question, sql, answer } = answerFor('revenue by city');

  it('is one valid SQLite query', async () => {
    await expect(sql).toBeValidSql({ dialect: 'sqlite', db: SHOP_DB });
  });

  it('names only tables and columns of the shop database', async () => {
    await expect(sql).toReferenceExistingSchema(SHOP_DB);
  });

  it('is read-only and reads only the tables the feature may read', () => {
    expect(sql).toBeSafeSql({ allowedTables: ['customers', 'orders'] });
  });

  it('returns what the reviewed gold query returns', async () => {
    await expect(sql).toMatchGoldResult(
      "SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id WHERE strftime('%Y', ordered_at) = '2024' GROUP BY city ORDER BY 2 DESC",
      { db: SHOP_DB },
    );
  });

  it('states only numbers the rows support', () => {
    const result = rowsOf(sql);
    expect(answer).toHaveGroundedNumbers(result, { question, sql });
  });
});

describe('customers without orders', () => {
  const { question, sql, answer } = answerFor('customers without orders');

  it('passes every rung', async () => {
    await expect(sql).toBeValidSql({ dialect: 'sqlite' });
    await expect(sql).toReferenceExistingSchema({ customers: ['id', 'name', 'city'], orders: ['id', 'customer_id', 'total', 'ordered_at'] });
    expect(sql).toBeSafeSql();
    await expect(sql).toMatchGoldResult(
      ['SELECT name FROM customers AS c WHERE NOT EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id = c.id)', 'SELECT name FROM customers LEFT JOIN orders ON orders.customer_id = customers.id WHERE orders.id IS NULL'],
      { db: SHOP_DB },
    );
    expect(answer).toHaveGroundedNumbers(rowsOf(sql).rows, { question, sql });
  });
});

describe('what the matchers catch', () => {
  it('a misspelt column', async () => {
    await expect('SELECT nme FROM customers').not.toReferenceExistingSchema(SHOP_DB);
  });

  it('a write smuggled after the query', () => {
    expect('SELECT name FROM customers; DELETE FROM orders').not.toBeSafeSql();
  });

  it('a query that drops the year filter', async () => {
    await expect('SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id GROUP BY city').not.toMatchGoldResult(
      "SELECT city, SUM(total) FROM customers JOIN orders ON orders.customer_id = customers.id WHERE ordered_at < '2024-03-01' GROUP BY city",
      { db: SHOP_DB },
    );
  });

  it('a rounded-up figure', () => {
    expect('New York leads with $500 of revenue.').not.toHaveGroundedNumbers([['New York', 450]]);
  });
});
