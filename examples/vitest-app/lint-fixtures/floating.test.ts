// Deliberately wrong: the async matcher is not awaited, so the test would pass before the query
// ran and the failure would surface later as an unhandled rejection. scripts/test-pack.sh checks
// that eslint's @typescript-eslint/no-floating-promises reports this line.
import { expect, it } from 'vitest';
import { SHOP_DB } from '../tests/shop.js';

it('forgets to await toMatchGoldResult', () => {
  expect('SELECT name FROM customers').toMatchGoldResult('SELECT name FROM customers', { db: SHOP_DB });
});
