/**
 * A small SQLite database for the static-rung tests, built in a fresh temporary folder:
 * `orders`, `customers`, `salaries`, a table named `Match` (a keyword for sql-parser-cst) and a
 * view `big_orders`.
 */
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

/** The built database (`file`) and its cleanup. */
export type StaticTestDb = TempSqlite;

/** Builds the database in a new temporary folder. */
export function buildStaticTestDb(): StaticTestDb {
  return createTempSqlite(`
    CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, segment TEXT);
    CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers, amount REAL, region TEXT);
    CREATE TABLE salaries (employee_id INTEGER PRIMARY KEY, amount REAL);
    CREATE TABLE "Match" (match_id INTEGER PRIMARY KEY, winner TEXT);
    CREATE VIEW big_orders AS SELECT order_id, amount FROM orders WHERE amount > 100;
    INSERT INTO customers VALUES (1, 'Ann', 'retail'), (2, 'Bob', 'corporate');
    INSERT INTO orders VALUES (1, 1, 50, 'APG'), (2, 2, 500, 'EMEA');
    INSERT INTO salaries VALUES (1, 1000);
    INSERT INTO "Match" VALUES (1, 'Ann');
  `, { prefix: 'static-rungs-', name: 'shop.sqlite' });
}
