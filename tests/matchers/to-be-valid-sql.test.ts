import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { LadderError } from '../../src/errors.js';
import { createFixtureFolder, failureOf, redactPath, SHOP_SCRIPT } from './helpers.js';
import type { FixtureFolder } from './helpers.js';

let fixtures: FixtureFolder;
let shopDb: string;
let matchDb: string;

beforeAll(() => {
  fixtures = createFixtureFolder();
  shopDb = fixtures.build('shop', SHOP_SCRIPT);
  // sql-parser-cst cannot read a table named Match; SQLite can.
  matchDb = fixtures.build('match', 'CREATE TABLE Match (id INTEGER PRIMARY KEY, winner TEXT); INSERT INTO Match VALUES (1, \'Ada\');');
});
afterAll(() => fixtures.remove());

describe('toBeValidSql: arguments', () => {
  it('throws a TypeError naming received for a non-string, whose stack starts at the caller', async () => {
    const caught = await (expect(42).toBeValidSql({ dialect: 'sqlite' }) as Promise<unknown>).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(TypeError);
    expect((caught as TypeError).message).toBe('toBeValidSql: received must be a SQL string; received a number (42)');
    expect((caught as TypeError).stack).not.toContain('to-be-valid-sql.ts');
  });

  it.each([
    [undefined, 'toBeValidSql: options must be an options object { dialect, db? }; received undefined'],
    ['sqlite', 'toBeValidSql: options must be an options object { dialect, db? }; received a string ("sqlite")'],
    [{}, 'toBeValidSql: options.dialect must be one of "sqlite", "postgres", "mysql", "bigquery", "snowflake"; received undefined'],
    [{ dialect: 'oracle' }, 'toBeValidSql: options.dialect must be one of "sqlite", "postgres", "mysql", "bigquery", "snowflake"; received a string ("oracle")'],
    [{ dialect: 'sqlite', db: 7 }, 'toBeValidSql: options.db must be a SQLite database path, a postgres:// URL or { fixture, role?, fixturesDir?, snapshots? }; received a number (7)'],
    [{ dialect: 'postgres', db: 'shop.sqlite' }, 'toBeValidSql: options.db is a SQLite database (shop.sqlite), but options.dialect is "postgres": give a database of that dialect, or no db'],
  ])('throws a TypeError for options %o', async (options, message) => {
    // @ts-expect-error -- wrong options on purpose
    await expect(expect('SELECT 1').toBeValidSql(options)).rejects.toThrow(new TypeError(message));
  });

  it('throws a LadderError for an unknown option, even under .not', async () => {
    // @ts-expect-error -- misspelt option on purpose
    const caught: unknown = await expect('SELECT 1').not.toBeValidSql({ dialect: 'sqlite', dialekt: 'x' }).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(LadderError);
    expect((caught as LadderError).code).toBe('invalid_option');
    expect((caught as LadderError).message).toBe('toBeValidSql: options.dialekt is not an option (did you mean options.dialect?); known options: dialect, db');
  });
});

describe('toBeValidSql: passing', () => {
  it.each([
    ['sqlite', 'SELECT name FROM customers WHERE city = ?'],
    ['sqlite', 'WITH big AS (SELECT * FROM orders WHERE total > 100) SELECT COUNT(*) FROM big'],
    ['postgres', 'SELECT name FROM customers ORDER BY name LIMIT 3'],
    ['mysql', 'SELECT `name` FROM customers'],
    ['snowflake', 'SELECT name FROM customers'],
  ] as const)('accepts %s: %s', async (dialect, sql) => {
    await expect(sql).toBeValidSql({ dialect });
  });

  it('lets SQLite decide when given a database (a table named Match)', async () => {
    await expect('SELECT winner FROM Match').toBeValidSql({ dialect: 'sqlite', db: matchDb });
  });
});

describe('toBeValidSql: failing', () => {
  it('reports a syntax error with its position and a caret', async () => {
    const message = await failureOf(() => expect('SELEC name\nFROM customers').toBeValidSql({ dialect: 'postgres' }));
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toBeValidSql(options)

      Expected sql to be valid postgres SQL (exactly one query)
      Received: "SELEC name
      FROM customers"

      L1 syntax failed: syntax error: Syntax Error: Unexpected "SELEC"

      Issues:
        line 1, column 1  syntax_error  Syntax Error: Unexpected "SELEC"
          SELEC name
          ^"
    `);
  });

  it('reports a second statement', async () => {
    const message = await failureOf(() => expect('SELECT 1; DELETE FROM orders').toBeValidSql({ dialect: 'sqlite' }));
    expect(message).toMatchInlineSnapshot(`
      "expect(sql).toBeValidSql(options)

      Expected sql to be valid sqlite SQL (exactly one query)
      Received: "SELECT 1; DELETE FROM orders"

      L1 syntax failed: multiple statements: found 2; exactly one query is allowed

      Issues:
        line 1, column 11  multiple_statements  statement 2 of 2 starts here; exactly one query is allowed
          SELECT 1; DELETE FROM orders
                    ^"
    `);
  });

  it('reports a statement that is not a query, prepared by SQLite', async () => {
    const message = await failureOf(() => expect('DELETE FROM orders').toBeValidSql({ dialect: 'sqlite', db: shopDb }));
    expect(redactPath(message, shopDb, 'shop.sqlite')).toMatchInlineSnapshot(`
      "expect(sql).toBeValidSql(options)

      Expected sql to be valid sqlite SQL (exactly one query, prepared by SQLite on <shop.sqlite>)
      Received: "DELETE FROM orders"

      L1 syntax failed: not a query: the statement starts with DELETE; only SELECT, WITH … SELECT and VALUES run

      Issues:
        line 1, column 1  not_a_query  not a query: the statement starts with DELETE; only SELECT, WITH … SELECT and VALUES run
          DELETE FROM orders
          ^"
    `);
  });
});

describe('toBeValidSql: negated', () => {
  it('passes for invalid SQL', async () => {
    await expect('SELEC name FROM customers').not.toBeValidSql({ dialect: 'sqlite' });
  });

  it('fails for valid SQL, saying why it is valid', async () => {
    const message = await failureOf(() => expect('SELECT name FROM customers').not.toBeValidSql({ dialect: 'sqlite', db: shopDb }));
    expect(redactPath(message, shopDb, 'shop.sqlite')).toMatchInlineSnapshot(`
      "expect(sql).not.toBeValidSql(options)

      Expected sql not to be valid sqlite SQL (exactly one query, prepared by SQLite on <shop.sqlite>)
      Received: "SELECT name FROM customers"

      L1 syntax passed: one query; SQLite prepares it"
    `);
  });
});
