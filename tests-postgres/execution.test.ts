/**
 * L4 on PostgreSQL (`checkExecution` on a `dialect: postgres` fixture): the comparison policy is
 * the SQLite one, over exact numeric and bigint, dates and timestamps under the pinned settings,
 * booleans, arrays, json; row order from the gold's ORDER BY read as PostgreSQL, NULLs where
 * PostgreSQL sorts them, text in the fixture's collation.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedFixture } from '../src/fixtures/registry.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import type { PresetName } from '../src/compare/policy.js';
import { fixturesDir, serverDir, testDir } from './helpers.js';

const runtime = createLadderRuntime({ postgres: { cacheDir: serverDir }, fixtures: { fixturesDir } });
let fixture: ResolvedFixture;
beforeAll(async () => {
  fixture = await runtime.resolveFixture('pgshop');
});
afterAll(() => runtime.close());

async function l4(predictedSql: string, gold: string, policy: PresetName = 'default', on: ResolvedFixture = fixture): Promise<[string, string]> {
  const result = await checkExecution({ predictedSql, golds: [gold], snapshots: on.snapshots, engine: await runtime.postgresEngine(), cache: runtime.goldCache, policy });
  return [result.status, result.reason];
}

describe('L4 on PostgreSQL', () => {
  it.each<[string, string, string, PresetName, [string, string]]>([
    ['numeric against float8, within the default tolerance', 'SELECT sum(total)::float8 FROM orders', 'SELECT sum(total) FROM shop.orders', 'default', ['pass', 'matches on 2 snapshots']],
    ['numeric against float8, exact (spider preset)', 'SELECT sum(total)::float8 FROM orders', 'SELECT sum(total) FROM shop.orders', 'spider', ['fail', 'snapshot base: gold [1234568410.61::numeric] vs predicted [1234568410.61]']],
    ['numeric scales do not matter', 'SELECT round(sum(total), 4) FROM orders', 'SELECT sum(total) FROM orders', 'spider', ['pass', 'matches on 2 snapshots']],
    ['bigint beyond 2^53 is exact', "SELECT 9007199254740992::bigint", "SELECT id FROM customers WHERE name = 'Zed'", 'default', ['fail', 'snapshot base: gold [9007199254740993] vs predicted [9007199254740992]']],
    ['bigint beyond 2^53, same value', "SELECT id FROM customers WHERE \"Region Name\" = 'APAC'", "SELECT id FROM customers WHERE name = 'Zed'", 'default', ['pass', 'matches on 2 snapshots']],
    ['a date equals the timestamp at its midnight, as = says', "SELECT DATE_TRUNC('month', placed_at) AT TIME ZONE 'UTC' FROM orders", "SELECT DATE_TRUNC('month', ordered_on)::date FROM orders", 'default', ['pass', 'matches on 2 snapshots']],
    ['timestamptz by instant, whatever the offset it was written with', 'SELECT placed_at FROM orders', "SELECT placed_at AT TIME ZONE 'UTC' FROM orders", 'default', ['pass', 'matches on 2 snapshots']],
    ['a date is not its text', "SELECT to_char(ordered_on, 'YYYY-MM-DD') FROM orders", 'SELECT ordered_on FROM orders', 'default', ['fail', "snapshot base: 5 missing rows, 5 extra rows; first: gold [DATE '2024-01-05'] vs predicted ['2024-01-05']"]],
    ['a boolean is not an integer', 'SELECT vip::int FROM customers', 'SELECT vip FROM customers', 'default', ['fail', 'snapshot base: 4 missing rows, 4 extra rows; first: gold [TRUE] vs predicted [1]']],
    ['arrays element by element', 'SELECT tags FROM customers ORDER BY id', 'SELECT tags FROM customers', 'default', ['pass', 'matches on 2 snapshots']],
    ['an array is not its text', "SELECT array_to_string(tags, ',') FROM customers", 'SELECT tags FROM customers', 'default', ['fail', "snapshot base: 4 missing rows, 4 extra rows; first: gold [ARRAY['early', 'big spender']] vs predicted ['early,big spender']"]],
    ['an array of an enum (looked up in pg_type) against text[]', 'SELECT array_agg(status::text ORDER BY id) FROM orders', 'SELECT array_agg(status ORDER BY id) FROM orders', 'default', ['pass', 'matches on 2 snapshots']],
    ['json against jsonb, as jsonb compares', 'SELECT profile::json FROM customers', 'SELECT profile FROM customers', 'default', ['pass', 'matches on 2 snapshots']],
    ['json is not its text', 'SELECT profile::text FROM customers', 'SELECT profile FROM customers', 'default', ['fail', `snapshot base: 3 missing rows, 3 extra rows; first: gold ['{"tier": "gold", "since": 2019}'::jsonb] vs predicted ['{"tier": "gold", "since": 2019}']`]],
    ['FILTER against CASE', "SELECT sum(CASE WHEN status = 'shipped' THEN 1 ELSE 0 END) FROM orders", "SELECT count(*) FILTER (WHERE status = 'shipped') FROM orders", 'default', ['pass', 'matches on 2 snapshots']],
    ['DISTINCT ON, ILIKE, INTERVAL', "SELECT DISTINCT ON (customer_id) customer_id, id FROM orders WHERE ordered_on > DATE '2024-01-01' + INTERVAL '1 month' AND status::text ILIKE 'S%' ORDER BY customer_id, id", "SELECT customer_id, min(id) FROM orders WHERE ordered_on > '2024-02-01' AND status = 'shipped' GROUP BY customer_id ORDER BY customer_id", 'default', ['pass', 'matches on 2 snapshots']],
  ])('%s', async (_name, predicted, gold, policy, expected) => {
    expect(await l4(predicted, gold, policy)).toEqual(expected);
  });

  it('orders NULLs as PostgreSQL sorts them when the gold ORDER BY decides order', async () => {
    const gold = 'SELECT c.name, o.total FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id ORDER BY o.total';
    expect(await l4('SELECT name, total FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY total NULLS LAST', gold)).toEqual(['pass', 'matches on 2 snapshots']);
    expect(await l4('SELECT name, total FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY total NULLS FIRST', gold)).toEqual([
      'fail',
      "snapshot edge: same rows, but row order differs at row 0: gold 'Bob' vs predicted 'ada'",
    ]);
  });

  it('reads the gold ORDER BY in PostgreSQL syntax, tie-aware', async () => {
    // 80.00 twice on edge: the two tied rows may come in either order.
    expect(await l4('SELECT id, total FROM orders ORDER BY total::numeric DESC NULLS LAST, id DESC', 'SELECT id, total FROM orders ORDER BY total::numeric DESC NULLS LAST')).toEqual(['pass', 'matches on 2 snapshots']);
  });

  it('refuses to run a PostgreSQL fixture on the SQLite engine, saying which engine it needs', async () => {
    await expect(checkExecution({ predictedSql: 'SELECT 1', golds: ['SELECT 1'], snapshots: fixture.snapshots, engine: runtime.engine() })).rejects.toThrow(
      `snapshot base (${fixture.snapshots[0]!.path}) is a PostgreSQL database, and the engine runs SQLite: run a fixture on the engine of its dialect (runtime.engineFor(fixture.dialect))`,
    );
  });

  it('reports a prediction error with its neutral code and the server message', async () => {
    expect(await l4('SELECT nope FROM orders', 'SELECT id FROM orders')).toEqual(['fail', 'snapshot base: prediction failed (unknown_column): column "nope" does not exist']);
  });

  describe('text ordering follows the fixture collation', () => {
    let icu: ResolvedFixture;
    const scratch = mkdtempSync(path.join(testDir, 'icu-'));
    beforeAll(async () => {
      const dir = path.join(scratch, 'fixtures', 'pgshop_icu');
      mkdirSync(dir, { recursive: true });
      cpSync(path.join(fixturesDir, 'pgshop'), dir, { recursive: true });
      writeFileSync(path.join(dir, 'fixture.yaml'), 'name: pgshop_icu\ndialect: postgres\ncollation: icu:und\nsearch_path: [shop, public]\nsnapshots:\n  edge: { scripts: [schema.sql, data/base.sql, data/edge.sql] }\n');
      icu = await runtime.resolveFixture('pgshop_icu', undefined, { fixturesDir: path.join(scratch, 'fixtures') });
    });
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('C by default: byte order', async () => {
      expect(await l4('SELECT name FROM customers ORDER BY name COLLATE "C"', 'SELECT name FROM customers ORDER BY name')).toEqual(['pass', 'matches on 2 snapshots']);
    });

    it('a declared ICU collation: its own order', async () => {
      expect(await l4('SELECT name FROM customers ORDER BY name COLLATE "und-x-icu"', 'SELECT name FROM customers ORDER BY name', 'default', icu)).toEqual(['pass', 'matches']);
      expect(icu.snapshots[0]!.checksum).not.toBe(fixture.snapshots[1]!.checksum);
      expect(await l4('SELECT name FROM customers ORDER BY name COLLATE "C"', 'SELECT name FROM customers ORDER BY name', 'default', icu)).toEqual(['fail', "snapshot edge: same rows, but row order differs at row 0: gold 'ada' vs predicted 'Ada'"]);
    });
  });
});
