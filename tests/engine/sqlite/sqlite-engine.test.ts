/**
 * createSqliteEngine through its child processes, on the test database of test-db.ts
 * (`music.sqlite` in a fresh temporary folder).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../../src/engine/sqlite/sqlite-engine.js';
import { isLadderError, LadderError } from '../../../src/errors.js';
import { buildTestDb, listDir, sha256, type TestDb } from './test-db.js';

let fixture: TestDb;
let engine: SqliteEngine;
let checksum: string;

beforeAll(() => {
  fixture = buildTestDb();
  checksum = sha256(fixture.file);
  // One child: every statement below runs on the same cached connection, so a statement that
  // changed the connection would show in the ones after it.
  engine = createSqliteEngine({ poolSize: 1 });
});

afterAll(async () => {
  await engine.close();
  fixture.remove();
});

describe('createSqliteEngine options', () => {
  it('rejects misuse before starting any child', () => {
    expect(() => createSqliteEngine({ timeoutMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (-1)' }),
    );
    expect(() => createSqliteEngine({ maxRow: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: 'maxRow is not a createSqliteEngine option (did you mean maxRows?); known createSqliteEngine options: poolSize, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes' }),
    );
  });

  it('exposes the resolved options and starts no child before the first call', () => {
    const lazy = createSqliteEngine({ poolSize: 2, timeoutMs: 1234 });
    expect(lazy.dialect).toBe('sqlite');
    expect(lazy.options).toMatchObject({ poolSize: 2, timeoutMs: 1234, maxRows: 100_000, doubleQuotes: 'legacy' });
    expect(lazy.childPids).toEqual([]);
    return lazy.close();
  });

  it('rejects a bad request with a LadderError, not an outcome', async () => {
    await expect(engine.execute({ db: fixture.file, sql: 'SELECT 1', timeoutMs: 0 })).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'request.timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (0)',
    });
  });
});

describe('execute', () => {
  it('reads rows by position with duplicate column names kept', async () => {
    const outcome = await engine.execute({ db: fixture.file, sql: 'SELECT s.id, c.id, s.name FROM singer s JOIN concert c ON c.singer_id = s.id ORDER BY c.id;' });
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        columns: ['id', 'id', 'name'],
        rows: [
          [1, 10, 'Edith'],
          [1, 11, 'Edith'],
          [3, 12, 'Aznavour'],
        ],
        doubleQuoteFallback: false,
        executedSql: 'SELECT s.id, c.id, s.name FROM singer s JOIN concert c ON c.singer_id = s.id ORDER BY c.id;',
      },
    });
  });

  it('keeps integers beyond 2^53 exact across the process boundary, and maps every storage class', async () => {
    const outcome = await engine.execute({ db: fixture.file, sql: 'SELECT id, big, photo, score, 9007199254740991 FROM singer ORDER BY id' });
    expect(outcome.ok && outcome.result.rows).toEqual([
      [1, 9007199254740993n, new Uint8Array([1, 2, 255]), 1.5, 9007199254740991],
      [2, -9223372036854775808n, null, 175, 9007199254740991],
      [3, 42, new Uint8Array([]), null, 9007199254740991],
    ]);
    const blob = outcome.ok ? outcome.result.rows[0]![2] : undefined;
    expect(blob).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(blob)).toBe(false);
  });

  it('keeps the reals JSON cannot carry (±Infinity, -0) and text with newlines exact', async () => {
    const outcome = await engine.execute({ db: fixture.file, sql: "SELECT 1e999, -1e999, -0.0, 0.0, char(97, 10, 98), ''" });
    const row = outcome.ok ? outcome.result.rows[0]! : [];
    expect(row).toEqual([Infinity, -Infinity, -0, 0, 'a\nb', '']);
    expect(Object.is(row[2], -0)).toBe(true);
    expect(Object.is(row[3], 0)).toBe(true);
  });

  it('runs VALUES and WITH … SELECT', async () => {
    const values = await engine.execute({ db: fixture.file, sql: "VALUES (1, 'a'), (2, 'b')" });
    expect(values).toMatchObject({ ok: true, result: { columns: ['column1', 'column2'], rows: [[1, 'a'], [2, 'b']] } });
    const withSelect = await engine.execute({ db: fixture.file, sql: 'WITH y AS (SELECT year FROM concert) SELECT max(year) AS last FROM y' });
    expect(withSelect).toMatchObject({ ok: true, result: { columns: ['last'], rows: [[2005]] } });
  });

  it('reports SQLite prepare errors with neutral codes (unknown_column, unknown_table)', async () => {
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT nope FROM singer' })).toEqual({
      ok: false,
      error: { code: 'unknown_column', message: 'no such column: nope' },
    });
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT * FROM nowhere' })).toEqual({
      ok: false,
      error: { code: 'unknown_table', message: 'no such table: nowhere' },
    });
    expect(await engine.execute({ db: fixture.file, sql: 'SELEC 1' })).toEqual({
      ok: false,
      error: { code: 'not_a_query', message: 'not a query: the statement starts with SELEC; only SELECT, WITH … SELECT and VALUES run' },
    });
  });

  it('reports a runtime error while stepping as query_error', async () => {
    expect(await engine.execute({ db: fixture.file, sql: "SELECT load_extension('/tmp/nothing.so')" })).toEqual({
      ok: false,
      error: { code: 'query_error', message: 'not authorized' },
    });
  });

  it('stops at the row cap without reading the rest (result_too_large)', async () => {
    const outcome = await engine.execute({
      db: fixture.file,
      sql: 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000000) SELECT i FROM c',
      maxRows: 10,
    });
    expect(outcome).toEqual({
      ok: false,
      error: { code: 'result_too_large', message: 'result too large: more than 10 rows (maxRows); stopped reading at row 11' },
    });
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT id FROM singer', maxRows: 3 })).toMatchObject({ ok: true, result: { rows: [[1], [2], [3]] } });
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT id FROM singer', maxRows: 1 })).toEqual({
      ok: false,
      error: { code: 'result_too_large', message: 'result too large: more than 1 row (maxRows); stopped reading at row 2' },
    });
  });
});

describe('double quotes', () => {
  it.each([
    [
      'a string literal',
      'SELECT name FROM singer WHERE country = "France" ORDER BY id',
      "SELECT name FROM singer WHERE country = 'France' ORDER BY id",
      [['Edith'], ['Aznavour']],
    ],
    [
      'an identifier and a literal side by side',
      'SELECT "name" FROM singer WHERE "country" = "Ireland"',
      `SELECT "name" FROM singer WHERE "country" = 'Ireland'`,
      [["O'Brien"]],
    ],
    [
      'a literal holding a single quote',
      `SELECT id FROM singer WHERE name = "O'Brien"`,
      "SELECT id FROM singer WHERE name = 'O''Brien'",
      [[2]],
    ],
    [
      'two different literals',
      'SELECT count(*) FROM singer WHERE country = "France" OR name = "Nobody"',
      "SELECT count(*) FROM singer WHERE country = 'France' OR name = 'Nobody'",
      [[2]],
    ],
  ])('legacy mode reads %s as SQLite builds with DQS do, and says so', async (_what, sql, executedSql, rows) => {
    const outcome = await engine.execute({ db: fixture.file, sql });
    expect(outcome).toMatchObject({ ok: true, result: { rows, doubleQuoteFallback: true, executedSql } });
  });

  it('legacy mode leaves a double-quoted identifier alone', async () => {
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT "name" FROM singer WHERE id = 1' })).toMatchObject({
      ok: true,
      result: { rows: [['Edith']], doubleQuoteFallback: false, executedSql: 'SELECT "name" FROM singer WHERE id = 1' },
    });
  });

  it('strict mode fails with SQLite’s message', async () => {
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT name FROM singer WHERE country = "France"', doubleQuotes: 'strict' })).toEqual({
      ok: false,
      error: { code: 'unknown_column', message: 'no such column: "France" - should this be a string literal in single-quotes?' },
    });
  });

  it('strict as the engine default', async () => {
    const strict = createSqliteEngine({ poolSize: 1, doubleQuotes: 'strict' });
    try {
      expect(await strict.execute({ db: fixture.file, sql: 'SELECT 1 WHERE "x" = "x"' })).toEqual({
        ok: false,
        error: { code: 'unknown_column', message: 'no such column: "x" - should this be a string literal in single-quotes?' },
      });
      expect(await strict.execute({ db: fixture.file, sql: 'SELECT 1 WHERE "x" = "x"', doubleQuotes: 'legacy' })).toMatchObject({
        ok: true,
        result: { rows: [[1]], executedSql: "SELECT 1 WHERE 'x' = 'x'", doubleQuoteFallback: true },
      });
    } finally {
      await strict.close();
    }
  });
});

describe('the query-only gate', () => {
  const escapeName = 'ladder-engine-escape.sqlite';
  const cwdEscape = path.resolve(escapeName);

  it.each([
    ['ATTACH', `ATTACH DATABASE '${'ESCAPE'}' AS other`, 'not_a_query'],
    ['DETACH', 'DETACH DATABASE main', 'not_a_query'],
    ['INSERT', "INSERT INTO singer (name) VALUES ('x')", 'not_a_query'],
    ['REPLACE', "REPLACE INTO singer (id, name) VALUES (1, 'x')", 'not_a_query'],
    ['UPDATE', "UPDATE singer SET name = 'x'", 'not_a_query'],
    ['DELETE', 'DELETE FROM singer', 'not_a_query'],
    ['CREATE TABLE', 'CREATE TABLE t (x)', 'not_a_query'],
    ['CREATE TEMP TABLE', 'CREATE TEMP TABLE t AS SELECT 1', 'not_a_query'],
    ['CREATE INDEX', 'CREATE INDEX i ON singer(name)', 'not_a_query'],
    ['DROP', 'DROP TABLE singer', 'not_a_query'],
    ['ALTER', 'ALTER TABLE singer ADD COLUMN y', 'not_a_query'],
    ['BEGIN', 'BEGIN', 'not_a_query'],
    ['BEGIN IMMEDIATE', 'BEGIN IMMEDIATE TRANSACTION', 'not_a_query'],
    ['COMMIT', 'COMMIT', 'not_a_query'],
    ['END', 'END', 'not_a_query'],
    ['ROLLBACK', 'ROLLBACK', 'not_a_query'],
    ['SAVEPOINT', 'SAVEPOINT s1', 'not_a_query'],
    ['RELEASE', 'RELEASE s1', 'not_a_query'],
    ['PRAGMA read', 'PRAGMA table_info(singer)', 'not_a_query'],
    ['PRAGMA query_only write', 'PRAGMA query_only = 0', 'not_a_query'],
    ['PRAGMA query_only write (function form)', 'PRAGMA query_only(false)', 'not_a_query'],
    ['PRAGMA mmap_size write', 'PRAGMA mmap_size = 268435456', 'not_a_query'],
    ['PRAGMA journal_mode write', 'PRAGMA journal_mode = WAL', 'not_a_query'],
    ['PRAGMA writable_schema write', 'PRAGMA writable_schema = ON', 'not_a_query'],
    ['VACUUM', 'VACUUM', 'not_a_query'],
    ['VACUUM INTO (absolute)', "VACUUM INTO 'ESCAPE'", 'not_a_query'],
    ['VACUUM INTO (relative)', `VACUUM INTO '${escapeName}'`, 'not_a_query'],
    ['REINDEX', 'REINDEX', 'not_a_query'],
    ['ANALYZE', 'ANALYZE', 'not_a_query'],
    ['WITH … INSERT', "WITH x AS (SELECT 1) INSERT INTO singer (name) SELECT 'x' FROM x", 'not_a_query'],
    ['WITH … DELETE', 'WITH x AS (SELECT 1) DELETE FROM singer', 'not_a_query'],
    ['WITH … UPDATE … RETURNING', "WITH x AS (SELECT 1) UPDATE singer SET name = 'x' RETURNING id", 'not_a_query'],
    ['INSERT … RETURNING', "INSERT INTO singer (name) VALUES ('x') RETURNING id", 'not_a_query'],
    ['EXPLAIN', 'EXPLAIN SELECT 1', 'not_a_query'],
    ['EXPLAIN QUERY PLAN', 'EXPLAIN QUERY PLAN SELECT 1', 'not_a_query'],
    ['a query then a write', 'SELECT 1; DELETE FROM singer', 'multiple_statements'],
    ['a query then PRAGMA', 'SELECT 1; PRAGMA query_only = 0', 'multiple_statements'],
    ['two queries', 'SELECT 1; SELECT 2;', 'multiple_statements'],
    ['empty text', '', 'empty_statement'],
    ['whitespace and a comment', '  -- nothing here\n ', 'empty_statement'],
    ['a lone semicolon', ';', 'empty_statement'],
  ])('refuses %s (%j) with %s, and neither the fixture nor the connection changes', async (_kind, template, code) => {
    const sql = template.replace('ESCAPE', path.join(fixture.dir, 'escape.sqlite'));
    const before = listDir(fixture.dir);
    for (const run of [engine.execute, engine.prepare, engine.explain]) {
      const outcome = await run({ db: fixture.file, sql });
      expect(outcome).toMatchObject({ ok: false, error: { code } });
    }
    expect(sha256(fixture.file)).toBe(checksum);
    expect(listDir(fixture.dir)).toEqual(before);
    expect(existsSync(cwdEscape)).toBe(false);
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT query_only FROM pragma_query_only' })).toMatchObject({ ok: true, result: { rows: [[1]] } });
  });

  it('stops the query_only → VACUUM INTO chain across two items: no file anywhere, guard still on', async () => {
    const target = path.join(fixture.dir, 'copy.sqlite');
    const first = await engine.execute({ db: fixture.file, sql: 'PRAGMA query_only = 0' });
    const second = await engine.execute({ db: fixture.file, sql: `VACUUM INTO '${target}'` });
    const relative = await engine.execute({ db: fixture.file, sql: `VACUUM INTO '${escapeName}'` });
    expect([first, second, relative]).toEqual([
      { ok: false, error: { code: 'not_a_query', message: 'not a query: the statement starts with PRAGMA; only SELECT, WITH … SELECT and VALUES run' } },
      { ok: false, error: { code: 'not_a_query', message: 'not a query: the statement starts with VACUUM; only SELECT, WITH … SELECT and VALUES run' } },
      { ok: false, error: { code: 'not_a_query', message: 'not a query: the statement starts with VACUUM; only SELECT, WITH … SELECT and VALUES run' } },
    ]);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(cwdEscape)).toBe(false);
    expect(listDir(fixture.dir)).toEqual(['music.sqlite']);
    expect(sha256(fixture.file)).toBe(checksum);
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT * FROM pragma_query_only' })).toMatchObject({ ok: true, result: { rows: [[1]] } });
  });

  it('refuses WITH … INSERT after SQLite compiled it, with its own message', async () => {
    expect(await engine.execute({ db: fixture.file, sql: "WITH x AS (SELECT 1) INSERT INTO singer (name) SELECT 'x' FROM x" })).toEqual({
      ok: false,
      error: { code: 'not_a_query', message: 'not a query: SQLite reports that the statement writes (e.g. WITH … INSERT/UPDATE/DELETE)' },
    });
  });
});

describe('missing databases', () => {
  it('returns db_not_found and creates no file', async () => {
    const missing = path.join(fixture.dir, 'absent', 'nothing.sqlite');
    expect(await engine.execute({ db: missing, sql: 'SELECT 1' })).toEqual({
      ok: false,
      error: { code: 'db_not_found', message: `database not found: ${missing} does not exist (it is never created)` },
    });
    expect(await engine.prepare({ db: path.join(fixture.dir, 'x.sqlite'), sql: 'SELECT 1' })).toMatchObject({ ok: false, error: { code: 'db_not_found' } });
    expect(existsSync(path.join(fixture.dir, 'x.sqlite'))).toBe(false);
    expect(await engine.execute({ db: fixture.dir, sql: 'SELECT 1' })).toEqual({
      ok: false,
      error: { code: 'db_not_found', message: `database not found: ${fixture.dir} is not a file` },
    });
  });

  it('makes catalog() throw LadderError db_not_found', async () => {
    const missing = path.join(fixture.dir, 'nothing.sqlite');
    const error = await engine.catalog(missing).catch((caught: unknown) => caught);
    expect(isLadderError(error, 'db_not_found')).toBe(true);
    expect((error as LadderError).message).toBe(`database not found: ${missing} does not exist (it is never created)`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('prepare', () => {
  it('compiles without stepping and returns the columns', async () => {
    const outcome = await engine.prepare({
      db: fixture.file,
      sql: 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000000) SELECT count(*) AS n, "x" AS y FROM c',
    });
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        columns: ['n', 'y'],
        rows: [],
        doubleQuoteFallback: true,
        executedSql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000000) SELECT count(*) AS n, 'x' AS y FROM c",
      },
    });
  });

  it('reports what SQLite rejects', async () => {
    expect(await engine.prepare({ db: fixture.file, sql: 'SELECT FROM singer' })).toEqual({
      ok: false,
      error: { code: 'syntax_error', message: 'near "FROM": syntax error' },
    });
  });
});

describe('explain', () => {
  it.each([
    ['a join', 'SELECT s.name FROM singer s JOIN concert c ON c.singer_id = s.id', ['concert', 'singer']],
    ['a view (seen through to its table)', 'SELECT name FROM french_singers', ['singer']],
    ['a covering index (mapped to its table)', 'SELECT year FROM concert WHERE year > 2000', ['concert']],
    ['no table', 'SELECT 1', []],
    ['the schema table', 'SELECT count(*) FROM sqlite_master', ['sqlite_schema']],
  ])('lists the base tables read by %s', async (_what, sql, tablesRead) => {
    expect(await engine.explain({ db: fixture.file, sql })).toMatchObject({ ok: true, result: { tablesRead, doubleQuoteFallback: false } });
  });

  it('returns EXPLAIN QUERY PLAN rows', async () => {
    expect(await engine.explain({ db: fixture.file, sql: 'SELECT year FROM concert WHERE year > "2000"' })).toEqual({
      ok: true,
      result: {
        plan: [{ id: 2, parent: 0, detail: 'SEARCH concert USING COVERING INDEX idx_concert_year (year>?)' }],
        tablesRead: ['concert'],
        doubleQuoteFallback: true,
      },
    });
  });
});

describe('catalog', () => {
  it('lists tables and views with their columns in creation order', async () => {
    expect(await engine.catalog(fixture.file)).toEqual({
      tables: [
        {
          name: 'singer',
          kind: 'table',
          schema: 'main',
          columns: [
            { name: 'id', type: 'INTEGER', primaryKey: true },
            { name: 'name', type: 'TEXT', primaryKey: false },
            { name: 'country', type: 'TEXT', primaryKey: false },
            { name: 'big', type: 'INTEGER', primaryKey: false },
            { name: 'photo', type: 'BLOB', primaryKey: false },
            { name: 'score', type: 'REAL', primaryKey: false },
          ],
        },
        {
          name: 'concert',
          kind: 'table',
          schema: 'main',
          columns: [
            { name: 'id', type: 'INTEGER', primaryKey: true },
            { name: 'singer_id', type: 'INTEGER', primaryKey: false },
            { name: 'year', type: 'INTEGER', primaryKey: false },
          ],
        },
        {
          name: 'french_singers',
          kind: 'view',
          schema: 'main',
          columns: [
            { name: 'id', type: 'INTEGER', primaryKey: false },
            { name: 'name', type: 'TEXT', primaryKey: false },
          ],
        },
      ],
    });
  });
});

describe('after everything above', () => {
  it('left the fixture bytes and folder unchanged', () => {
    expect(sha256(fixture.file)).toBe(checksum);
    expect(listDir(fixture.dir)).toEqual(['music.sqlite']);
  });
});
