import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { LadderError } from '../../src/errors.js';
import { createFixtureFolder, failureOf, SHOP_SCRIPT } from './helpers.js';
import type { FixtureFolder } from './helpers.js';

let fixtures: FixtureFolder;
let shopDb: string;
let edgeDb: string;

const REVENUE_GOLD = 'SELECT c.city, SUM(o.total) AS revenue FROM orders AS o JOIN customers AS c ON c.id = o.customer_id GROUP BY c.city';

beforeAll(() => {
  fixtures = createFixtureFolder();
  shopDb = fixtures.build('shop', SHOP_SCRIPT);
  // The edge snapshot: a second London customer, so that grouping by name differs from grouping by city.
  edgeDb = fixtures.build('edge', `${SHOP_SCRIPT}\nINSERT INTO customers VALUES (5, 'Alan', 'London');\nINSERT INTO orders VALUES (6, 5, 10.0, '2024-04-01');`);
});
afterAll(() => fixtures.remove());

/** Replaces the temporary folder in a message with `<fixtures>`. */
function redact(message: string): string {
  return message.split(fixtures.dir).join('<fixtures>');
}

describe('toMatchGoldResult: arguments', () => {
  it('throws a TypeError naming received for a non-string, whose stack starts at the caller', async () => {
    const caught: unknown = await expect(undefined).toMatchGoldResult('SELECT 1', { db: shopDb }).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(TypeError);
    expect((caught as TypeError).message).toBe('toMatchGoldResult: received must be a SQL string; received undefined');
    expect((caught as TypeError).stack).not.toContain('to-match-gold-result.ts');
  });

  it.each([
    ['', 'toMatchGoldResult: goldOrGolds must be a gold SQL string or a non-empty array of them; received a string ("")'],
    [[], 'toMatchGoldResult: goldOrGolds must be a gold SQL string or a non-empty array of them; received an array ([])'],
    [['SELECT 1', 2], 'toMatchGoldResult: goldOrGolds[1] must be a non-empty SQL string; received a number (2)'],
  ])('throws a TypeError for goldOrGolds %o', async (gold, message) => {
    // @ts-expect-error -- wrong gold on purpose
    await expect(expect('SELECT 1').toMatchGoldResult(gold, { db: shopDb })).rejects.toThrow(new TypeError(message));
  });

  it.each([
    [undefined, 'toMatchGoldResult: options must be an options object { db | snapshots, policy?, timeoutMs? }; received undefined'],
    [{}, 'toMatchGoldResult: options must give one of db (a path, a postgres:// URL or a fixture) and snapshots (paths); received neither'],
    [{ db: 'a.sqlite', snapshots: ['b.sqlite'] }, 'toMatchGoldResult: options must give exactly one of db and snapshots; received both'],
    [{ db: 3 }, 'toMatchGoldResult: options.db must be a SQLite database path, a postgres:// URL or { fixture, role?, fixturesDir?, snapshots? }; received a number (3)'],
    [{ snapshots: [] }, 'toMatchGoldResult: options.snapshots must be a non-empty array of paths or { name, path } snapshots; received an array ([])'],
    [{ snapshots: [{ name: 'x' }] }, 'toMatchGoldResult: options.snapshots[0] must be a path or a { name, path, checksum? } snapshot; received an object'],
    [{ db: 'a.sqlite', timeoutMs: 0 }, 'toMatchGoldResult: options.timeoutMs must be a positive integer (ms); received a number (0)'],
  ])('throws a TypeError for options %o', async (options, message) => {
    // @ts-expect-error -- wrong options on purpose
    await expect(expect('SELECT 1').toMatchGoldResult('SELECT 1', options)).rejects.toThrow(new TypeError(message));
  });

  it('throws LadderError for an unknown option and for a bad policy, even under .not', async () => {
    // @ts-expect-error -- misspelt option on purpose
    await expect(expect('SELECT 1').not.toMatchGoldResult('SELECT 1', { db: shopDb, polcy: 'spider' })).rejects.toThrow(
      new LadderError('invalid_option', 'toMatchGoldResult: options.polcy is not an option (did you mean options.policy?); known options: db, snapshots, policy, timeoutMs, semantic, judge'),
    );
    const caught: unknown = await expect('SELECT 1').not.toMatchGoldResult('SELECT 1', { db: shopDb, policy: 'strict' as 'spider' }).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(LadderError);
    expect((caught as LadderError).code).toBe('invalid_option');
  });

  it('throws LadderError db_not_found for a missing database, also under .not (never a gold error)', async () => {
    const missing = `${fixtures.dir}/missing.sqlite`;
    for (const negated of [false, true]) {
      const assertion = negated ? expect('SELECT 1').not : expect('SELECT 1');
      const caught: unknown = await assertion.toMatchGoldResult('SELECT 1', { db: missing }).catch((e: unknown) => e);
      expect(caught).toBeInstanceOf(LadderError);
      expect([(caught as LadderError).code, redact((caught as LadderError).message)]).toEqual(['db_not_found', 'snapshot missing: database <fixtures>/missing.sqlite does not exist (it is never created)']);
    }
  });
});

describe('toMatchGoldResult: passing', () => {
  it('matches with columns in another order and rows in another order (unordered gold)', async () => {
    await expect('SELECT SUM(total), city FROM orders JOIN customers ON customers.id = orders.customer_id GROUP BY city ORDER BY 1').toMatchGoldResult(
      REVENUE_GOLD,
      { db: shopDb },
    );
  });

  it('matches one of several golds on every snapshot', async () => {
    await expect('SELECT name FROM customers WHERE city = \'London\'').toMatchGoldResult(
      ["SELECT name FROM customers WHERE city = 'Paris'", "SELECT name FROM customers WHERE city LIKE 'Lon%'"],
      { snapshots: [shopDb, { name: 'edge case', path: edgeDb }] },
    );
  });

  it('follows the policy (spider preset: DISTINCT removed as text)', async () => {
    await expect('SELECT city FROM customers').toMatchGoldResult('SELECT DISTINCT city FROM customers', { db: shopDb, policy: 'spider' });
    await expect('SELECT city FROM customers').not.toMatchGoldResult('SELECT DISTINCT city FROM customers', { db: edgeDb });
  });
});

describe('toMatchGoldResult: failing', () => {
  it('shows missing and extra rows, the first differing cell and the policy', async () => {
    const message = await failureOf(() =>
      expect("SELECT c.city, SUM(o.total) AS revenue FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE o.ordered_at >= '2024-02-01' GROUP BY c.city").toMatchGoldResult(
        REVENUE_GOLD,
        { db: shopDb },
      ),
    );
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on snapshot shop
      Received: "SELECT c.city, SUM(o.total) AS revenue FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE o.ordered_at >= '2024-02-01' GROUP BY c.city"

      L4 execution failed: snapshot shop: gold ['London', 200.5] vs predicted ['London', 80]

      Gold:
        SELECT c.city, SUM(o.total) AS revenue FROM orders AS o JOIN customers AS c ON c.id = o.customer_id GROUP BY c.city

      Snapshot shop: gold ['London', 200.5] vs predicted ['London', 80]
      Column map (gold → prediction): none makes the results equal
      Missing rows (in the gold result, not in the prediction): 1
        | city     | revenue |
        |----------|---------|
        | 'London' | 200.5   |
      Extra rows (in the prediction, not in the gold result): 1
        | city     | revenue |
        |----------|---------|
        | 'London' | 80      |
      First differing cell (rows from 0): gold row 1, column revenue = 200.5; prediction row 1, column revenue = 80

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6"
    `);
  });

  it('names the first failing snapshot among several', async () => {
    const message = await failureOf(() =>
      expect('SELECT c.name, SUM(o.total) FROM orders AS o JOIN customers AS c ON c.id = o.customer_id GROUP BY c.name').toMatchGoldResult(
        REVENUE_GOLD,
        { snapshots: [shopDb, edgeDb] },
      ),
    );
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on every snapshot (shop, edge)
      Received: "SELECT c.name, SUM(o.total) FROM orders AS o JOIN customers AS c ON c.id = o.customer_id GROUP BY c.name"

      L4 execution failed: snapshot shop: 3 missing rows, 3 extra rows; first: gold ['Helsinki', 45.25] vs predicted ['Ada', 200.5]

      Gold:
        SELECT c.city, SUM(o.total) AS revenue FROM orders AS o JOIN customers AS c ON c.id = o.customer_id GROUP BY c.city

      Snapshots:
        shop: 3 missing rows, 3 extra rows; first: gold ['Helsinki', 45.25] vs predicted ['Ada', 200.5]  ← first failing
        edge: prediction has 4 rows, gold has 3; 3 missing rows, 4 extra rows; first: gold ['Helsinki', 45.25] vs predicted ['Ada', 200.5]

      Snapshot shop: 3 missing rows, 3 extra rows; first: gold ['Helsinki', 45.25] vs predicted ['Ada', 200.5]
      Column map (gold → prediction): none makes the results equal
      Missing rows (in the gold result, not in the prediction): 3
        | city       | revenue |
        |------------|---------|
        | 'Helsinki' | 45.25   |
        | 'London'   | 200.5   |
        | 'New York' | 450     |
      Extra rows (in the prediction, not in the gold result): 3
        | name    | SUM(o.total) |
        |---------|--------------|
        | 'Ada'   | 200.5        |
        | 'Grace' | 450          |
        | 'Linus' | 45.25        |
      First differing cell (rows from 0): gold row 0, column city = 'Helsinki'; prediction row 0, column name = 'Ada'

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6"
    `);
  });

  it('a gold row the prediction lacks has no prediction row to compare with (never "row -1")', async () => {
    const message = await failureOf(() => expect("SELECT name FROM customers WHERE name <> 'Ada'").toMatchGoldResult('SELECT name FROM customers', { db: shopDb }));
    expect(message.split('\n').filter((line) => line.startsWith('First differing cell'))).toEqual([
      "First differing cell (rows from 0): gold row 0, column name = 'Ada'; no prediction row left to compare it with (the prediction lacks this row)",
    ]);
    expect(message).not.toContain('-1');
  });

  it('reports rows in the wrong order when the gold orders them', async () => {
    const message = await failureOf(() =>
      expect('SELECT name, city FROM customers ORDER BY name DESC').toMatchGoldResult('SELECT name, city FROM customers ORDER BY name', { db: shopDb }),
    );
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on snapshot shop
      Received: "SELECT name, city FROM customers ORDER BY name DESC"

      L4 execution failed: snapshot shop: same rows, but row order differs at row 0: gold 'Ada' vs predicted 'Margaret'

      Gold:
        SELECT name, city FROM customers ORDER BY name

      Snapshot shop: same rows, but row order differs at row 0: gold 'Ada' vs predicted 'Margaret'
      Column map (gold → prediction): none makes the results equal
      First differing cell (rows from 0): gold row 0, column name = 'Ada'; prediction row 0, column name = 'Margaret'

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6

      Flags: ordered"
    `);
  });

  it('reports a prediction that does not run', async () => {
    const message = await failureOf(() => expect('SELECT town FROM customers').toMatchGoldResult('SELECT city FROM customers', { db: shopDb }));
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on snapshot shop
      Received: "SELECT town FROM customers"

      L4 execution failed: snapshot shop: prediction failed (unknown_column): no such column: town

      Gold:
        SELECT city FROM customers

      Prediction failed on shop (unknown_column): no such column: town

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6

      Flags: prediction_error"
    `);
  });

  it('reports a column count mismatch', async () => {
    const message = await failureOf(() => expect('SELECT id, name FROM customers').toMatchGoldResult('SELECT name FROM customers', { db: shopDb }));
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on snapshot shop
      Received: "SELECT id, name FROM customers"

      L4 execution failed: snapshot shop: prediction has 1 extra column (2 vs 1; allowExtraColumns is off)

      Gold:
        SELECT name FROM customers

      Snapshot shop: prediction has 1 extra column (2 vs 1; allowExtraColumns is off)
      Column map (gold → prediction): none makes the results equal

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6"
    `);
  });
});

describe('toMatchGoldResult: negated', () => {
  it('passes for a different result', async () => {
    await expect('SELECT name FROM customers').not.toMatchGoldResult('SELECT city FROM customers', { db: shopDb });
  });

  it('fails for the same result, showing the column map', async () => {
    const message = await failureOf(() =>
      expect('SELECT total AS amount, id FROM orders').not.toMatchGoldResult('SELECT id, total FROM orders', { db: shopDb }),
    );
    expect(redact(message)).toMatchInlineSnapshot(`
      "expect(sql).not.toMatchGoldResult(gold)

      Expected sql not to return the result of the gold SQL on snapshot shop
      Received: "SELECT total AS amount, id FROM orders"

      L4 execution passed: matches

      Gold:
        SELECT id, total FROM orders

      Snapshot shop: matches
      Column map (gold → prediction): id → id, total → amount

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6

      Flags: columns_reordered"
    `);
  });
});

describe('toMatchGoldResult: unscored', () => {
  it('fails both ways when no gold runs (gold_error)', async () => {
    const positive = await failureOf(() => expect('SELECT 1').toMatchGoldResult('SELECT nope FROM customers', { db: shopDb }));
    const negated = await failureOf(() => expect('SELECT 1').not.toMatchGoldResult('SELECT nope FROM customers', { db: shopDb }));
    expect(redact(positive)).toMatchInlineSnapshot(`
      "expect(sql).toMatchGoldResult(gold)

      Expected sql to return the result of the gold SQL on snapshot shop
      Received: "SELECT 1"

      L4 execution unscored: gold_error: no gold runs on every snapshot (gold 0 on shop: no such column: nope)

      The rung did not decide (unscored), so neither toMatchGoldResult nor its negation holds.

      Gold:
        SELECT nope FROM customers

      The gold failed on shop (unknown_column): no such column: nope

      Policy: default preset — rows as a multiset, order from the gold's outer ORDER BY (ties in any order), column order ignored (one column map), column names ignored, floats within relative 1e-6

      Flags: gold_error"
    `);
    expect(negated).toContain('The rung did not decide (unscored), so neither toMatchGoldResult nor its negation holds.');
  });
});
