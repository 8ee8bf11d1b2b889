import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { isLadderError } from '../../src/errors.js';
import { createFixtureFolder, failureOf, redactPath, SHOP_SCRIPT } from './helpers.js';
import type { FixtureFolder } from './helpers.js';

let fixtures: FixtureFolder;
let shopDb: string;

beforeAll(() => {
  fixtures = createFixtureFolder();
  shopDb = fixtures.build('shop', SHOP_SCRIPT);
});
afterAll(() => fixtures.remove());

const SHOP_OBJECT = { customers: ['id', 'name', 'city'], orders: ['id', 'customer_id', 'total', 'ordered_at'] };
const SHOP_DDL = 'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);\nCREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL, ordered_at TEXT);';

describe('toReferenceExistingSchema: arguments', () => {
  it('throws a TypeError naming received for a non-string, whose stack starts at the caller', async () => {
    const caught: unknown = await expect(null).toReferenceExistingSchema(SHOP_OBJECT).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(TypeError);
    expect((caught as TypeError).message).toBe('toReferenceExistingSchema: received must be a SQL string; received null');
    expect((caught as TypeError).stack).not.toContain('to-reference-existing-schema.ts');
  });

  it.each([
    [42, 'toReferenceExistingSchema: catalogOrDb must be a database path or postgres:// URL, { db }, { fixture }, { ddl }, a { table: columns } object or a Catalog; received a number (42)'],
    ['', 'toReferenceExistingSchema: catalogOrDb must be a database path or postgres:// URL, { db }, { fixture }, { ddl }, a { table: columns } object or a Catalog; received a string ("")'],
    [{ orders: 'id' }, 'toReferenceExistingSchema: catalogOrDb must be a database path or postgres:// URL, { db }, { fixture }, { ddl }, a { table: columns } object or a Catalog; catalog.orders must be a list of column names or a { column: type } object; received a string ("id")'],
  ])('throws a TypeError for catalogOrDb %o', async (catalogOrDb, message) => {
    // @ts-expect-error -- wrong catalog on purpose
    await expect(expect('SELECT 1').toReferenceExistingSchema(catalogOrDb)).rejects.toThrow(new TypeError(message));
  });

  it('throws a TypeError for a database file under another dialect', async () => {
    await expect(expect('SELECT 1').toReferenceExistingSchema(shopDb, { dialect: 'postgres' })).rejects.toThrow(
      new TypeError('toReferenceExistingSchema: options.dialect must be "sqlite" (or absent) for a SQLite database file; received a string ("postgres")'),
    );
  });

  it('throws LadderError db_not_found for a missing database, even under .not', async () => {
    const caught: unknown = await expect('SELECT 1').not.toReferenceExistingSchema(`${fixtures.dir}/missing.sqlite`).catch((e: unknown) => e);
    expect(isLadderError(caught, 'db_not_found')).toBe(true);
  });

  it('throws LadderError input_invalid for DDL that does not parse', async () => {
    const caught: unknown = await expect('SELECT 1').toReferenceExistingSchema({ ddl: 'CREATE TABLE (' }).catch((e: unknown) => e);
    expect(isLadderError(caught, 'input_invalid')).toBe(true);
  });
});

describe('toReferenceExistingSchema: passing', () => {
  const sql = 'WITH spend AS (SELECT customer_id, SUM(total) AS total FROM orders GROUP BY customer_id)\nSELECT c.name, s.total FROM customers AS c JOIN spend AS s ON s.customer_id = c.id ORDER BY total';

  it('against a database file (path and { db })', async () => {
    await expect(sql).toReferenceExistingSchema(shopDb);
    await expect(sql).toReferenceExistingSchema({ db: shopDb });
  });

  it('against DDL text', async () => {
    await expect(sql).toReferenceExistingSchema({ ddl: SHOP_DDL });
  });

  it('against a plain object, in another dialect', async () => {
    await expect(sql).toReferenceExistingSchema(SHOP_OBJECT, { dialect: 'postgres' });
  });
});

describe('toReferenceExistingSchema: failing', () => {
  it('names the unknown column, its position and a did-you-mean (database file)', async () => {
    const message = await failureOf(() =>
      expect('SELECT c.nme, o.total\nFROM customers AS c JOIN orders AS o ON o.customer_id = c.id').toReferenceExistingSchema(shopDb),
    );
    expect(redactPath(message, shopDb, 'shop.sqlite')).toMatchInlineSnapshot(`
      "expect(sql).toReferenceExistingSchema(catalogOrDb)

      Expected sql to name only tables and columns that exist in the database <shop.sqlite> (sqlite name rules)
      Received: "SELECT c.nme, o.total
      FROM customers AS c JOIN orders AS o ON o.customer_id = c.id"

      L2 schema failed: no such column: c.nme; did you mean name? at 1:8

      Issues:
        line 1, column 8  unknown_column  no such column: c.nme; did you mean name?
          SELECT c.nme, o.total
                 ^

      Catalog:
        customers(id, name, city)
        orders(id, customer_id, total, ordered_at)"
    `);
  });

  it('names every unknown table and column (object catalog)', async () => {
    const message = await failureOf(() => expect('SELECT name, cty FROM customer').toReferenceExistingSchema(SHOP_OBJECT));
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toReferenceExistingSchema(catalogOrDb)

      Expected sql to name only tables and columns that exist in the catalog (2 tables) (sqlite name rules)
      Received: "SELECT name, cty FROM customer"

      L2 schema failed: no such table: customer; did you mean customers? at 1:23

      Issues:
        line 1, column 23  unknown_table  no such table: customer; did you mean customers?
          SELECT name, cty FROM customer
                                ^

      Catalog:
        customers(id, name, city)
        orders(id, customer_id, total, ordered_at)"
    `);
  });
});

describe('toReferenceExistingSchema: negated', () => {
  it('passes when a name is unknown', async () => {
    await expect('SELECT amount FROM orders').not.toReferenceExistingSchema({ ddl: SHOP_DDL });
  });

  it('fails when every name resolves', async () => {
    const message = await failureOf(() =>
      expect('SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id').not.toReferenceExistingSchema({ ddl: SHOP_DDL }),
    );
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).not.toReferenceExistingSchema(catalogOrDb)

      Expected sql not to name only tables and columns that exist in the DDL (2 tables) (sqlite name rules)
      Received: "SELECT c.name, o.total FROM customers AS c JOIN orders AS o ON o.customer_id = c.id"

      L2 schema passed: every name resolves (2 tables, 4 column references)

      Catalog:
        customers(id, name, city)
        orders(id, customer_id, total, ordered_at)"
    `);
  });
});

describe('toReferenceExistingSchema: undecided', () => {
  it('fails both ways when the rung skips (Snowflake has no scope resolution)', async () => {
    const positive = await failureOf(() => expect('SELECT name FROM customers').toReferenceExistingSchema(SHOP_OBJECT, { dialect: 'snowflake' }));
    const negated = await failureOf(() => expect('SELECT name FROM customers').not.toReferenceExistingSchema(SHOP_OBJECT, { dialect: 'snowflake' }));
    expect(positive).toMatchInlineSnapshot(`
      "expect(sql).toReferenceExistingSchema(catalogOrDb)

      Expected sql to name only tables and columns that exist in the catalog (2 tables) (snowflake name rules)
      Received: "SELECT name FROM customers"

      L2 schema skipped: not analysed: scope resolution is not implemented for snowflake (its parser reads "quoted" identifiers as strings)

      The rung did not decide (skipped), so neither toReferenceExistingSchema nor its negation holds.

      Catalog:
        customers(id, name, city)
        orders(id, customer_id, total, ordered_at)"
    `);
    expect(negated.split('\n')[0]).toBe('expect(sql).not.toReferenceExistingSchema(catalogOrDb)');
  });
});
