/** The PostgreSQL engine on a real server: exact cells, neutral errors, caps, prepare, explain, catalog. */
import { afterAll, describe, expect, it } from 'vitest';
import { ArrayCell, DecimalCell, JsonCell, TemporalCell } from '../src/engine/engine.js';
import { testEngine } from './helpers.js';

const engine = testEngine();
afterAll(() => engine.close());
const run = (sql: string, extra: { maxRows?: number; timeoutMs?: number; db?: string } = {}) => engine.execute({ db: 'postgres', sql, ...extra });

describe('cells', () => {
  it('returns every type the ladder compares exactly, by position with duplicate names kept', async () => {
    const outcome = await run(
      "SELECT 1 AS a, 2::bigint AS a, 9007199254740993::int8 AS big, 1.50::numeric(10,2) AS n, 123456789012345678901234567890.000000000001 AS wide, true AS b, DATE '2024-03-01' AS d, TIMESTAMP '2024-03-01 12:00:00.000001' AS ts, TIMESTAMPTZ '2024-03-01 12:00+02' AS tz, INTERVAL '1 month 2 days 03:04:05' AS i, '{\"b\": 1, \"a\": [1, 2]}'::jsonb AS j, '{\"b\":1}'::json AS js, ARRAY[1, NULL, 3] AS arr, ARRAY[['a b', 'c\"d'], ['e', NULL]] AS grid, 0.1::float8 AS f, 'x'::bytea AS by, NULL::text AS nul, 'NaN'::numeric AS nan",
    );
    expect(outcome).toMatchObject({ ok: true });
    if (!outcome.ok) return;
    expect(outcome.result.columns).toEqual(['a', 'a', 'big', 'n', 'wide', 'b', 'd', 'ts', 'tz', 'i', 'j', 'js', 'arr', 'grid', 'f', 'by', 'nul', 'nan']);
    expect(outcome.result.rows).toEqual([
      [
        1,
        2,
        9_007_199_254_740_993n,
        new DecimalCell('1.50'),
        new DecimalCell('123456789012345678901234567890.000000000001'),
        true,
        new TemporalCell('date', '2024-03-01'),
        new TemporalCell('timestamp', '2024-03-01 12:00:00.000001'),
        new TemporalCell('timestamptz', '2024-03-01 10:00:00+00'),
        new TemporalCell('interval', '1 mon 2 days 03:04:05'),
        new JsonCell('{"a": [1, 2], "b": 1}', true),
        new JsonCell('{"b":1}', false),
        new ArrayCell([1, null, 3]),
        new ArrayCell([new ArrayCell(['a b', 'c"d']), new ArrayCell(['e', null])]),
        0.1,
        new Uint8Array([0x78]),
        null,
        new DecimalCell('NaN'),
      ],
    ]);
  });

  it('prints floats with every digit a double needs', async () => {
    expect(await run('SELECT 0.1::float8 + 0.2::float8 AS s, 1e300::float8 * 10 AS big, 1::float4 / 3::float4 AS third')).toMatchObject({ ok: true, result: { rows: [[0.30000000000000004, 1e301, 0.33333334]] } });
  });
});

describe('errors', () => {
  it.each([
    ['SELECT nope FROM pg_class', 'unknown_column', 'column "nope" does not exist'],
    ['SELECT * FROM nowhere', 'unknown_table', 'relation "nowhere" does not exist'],
    ['SELECT no_such_fn(1)', 'unknown_function', 'function no_such_fn(integer) does not exist'],
    ['SELECT 1 FROM (SELECT 1 AS a) x, (SELECT 1 AS a) y WHERE a = 1', 'ambiguous_column', 'column reference "a" is ambiguous'],
    ['SELECT FROM WHERE', 'syntax_error', 'syntax error at or near "WHERE"'],
    ['SELECT 1/0', 'query_error', 'division by zero'],
    ['SELECT 1; SELECT 2', 'multiple_statements', 'multiple statements: the text holds 2 statements; exactly one query runs'],
    ['INSERT INTO t VALUES (1)', 'not_a_query', 'not a query: the statement starts with INSERT; only SELECT, WITH … SELECT, VALUES and TABLE run'],
    ['SELECT 1 INTO new_table', 'not_a_query', 'not a query: PostgreSQL describes the statement as returning no rows; only SELECT, WITH … SELECT, VALUES and TABLE run'],
  ])('%s → %s', async (sql, code, message) => {
    expect(await run(sql)).toMatchObject({ ok: false, error: { code, message } });
  });

  it('keeps the SQLSTATE and the position', async () => {
    expect(await run('SELECT nope FROM pg_class')).toEqual({ ok: false, error: { code: 'unknown_column', message: 'column "nope" does not exist', engineCode: '42703', position: 8 } });
  });

  it('says when a database does not exist, and never creates it', async () => {
    expect(await run('SELECT 1', { db: 'no_such_database' })).toEqual({
      ok: false,
      error: { code: 'db_not_found', message: 'database not found: no_such_database does not exist on the server (it is never created)', engineCode: '3D000' },
    });
  });
});

describe('caps', () => {
  it('stops reading at the row cap', async () => {
    expect(await run('SELECT g FROM generate_series(1, 5000) g', { maxRows: 1500 })).toEqual({
      ok: false,
      error: { code: 'result_too_large', message: 'result too large: more than 1500 rows (maxRows); stopped reading at row 1501' },
    });
    expect(await run('SELECT g FROM generate_series(1, 1500) g', { maxRows: 1500 })).toMatchObject({ ok: true });
  });

  it('stops reading at the byte cap', async () => {
    const small = testEngine({ maxResultBytes: 1000 });
    try {
      expect(await small.execute({ db: 'postgres', sql: "SELECT repeat('x', 100) FROM generate_series(1, 10)" })).toEqual({
        ok: false,
        error: { code: 'result_too_large', message: 'result too large: more than 1000 bytes (maxResultBytes); stopped reading at row 5' },
      });
    } finally {
      await small.close();
    }
  });
});

describe('prepare, explain, catalog', () => {
  it('prepares without running: columns, no rows', async () => {
    expect(await engine.prepare({ db: 'postgres', sql: 'SELECT 1 AS x, pg_sleep(30) AS y' })).toMatchObject({ ok: true, result: { columns: ['x', 'y'], rows: [] } });
    expect(await engine.prepare({ db: 'postgres', sql: 'SELECT x FROM nowhere' })).toMatchObject({ ok: false, error: { code: 'unknown_table' } });
  });

  it('explains as a neutral plan tree with estimates and the tables read', async () => {
    const outcome = await engine.explain({ db: 'postgres', sql: 'SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.tablesRead).toEqual(['pg_class', 'pg_namespace']);
    expect(outcome.result.plan[0]).toMatchObject({ id: 1, parent: 0, estimate: { rows: expect.any(Number), cost: expect.any(Number) } });
    expect(outcome.result.plan.filter((step) => step.relation !== undefined).map((step) => step.detail).sort()).toEqual([expect.stringMatching(/ on pg_class c$/), expect.stringMatching(/ on pg_namespace n$/)]);
  });
});
