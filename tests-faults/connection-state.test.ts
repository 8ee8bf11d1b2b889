/**
 * What a child's connection runs under, through real children and batches: a fixture replaced
 * while a statement runs is read afresh by the next statement of the same batch (the file's
 * identity is checked before every statement, not once per batch), and texts that try to change
 * the connection, sent in one batch between queries, leave `query_only` on, temp storage in
 * memory, no transaction open and the fixture's bytes unchanged.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { createTempSqlite, type TempSqlite } from '../tests/helpers/temp-sqlite.js';

/** About a second of SQLite work on an idle machine. */
const SLOW = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 8000000) SELECT count(*) FROM c';
const READ = 'SELECT v FROM t';

let db: TempSqlite;
let engine: SqliteEngine;

beforeAll(async () => {
  db = createTempSqlite('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);', { prefix: 'ladder-faults-state-', name: 'fixture.sqlite' });
  engine = createSqliteEngine({ poolSize: 1, timeoutMs: 60_000 });
  expect(await engine.execute({ db: db.file, sql: READ })).toMatchObject({ ok: true, result: { rows: [[1]] } });
});

afterAll(async () => {
  await engine.close();
  db.remove();
});

describe('a fixture replaced while a statement of the batch runs', () => {
  it('is read afresh by the next statement of that batch, with the same text as before', async () => {
    const rebuilt = path.join(db.dir, 'rebuilt.sqlite');
    const writer = new Database(rebuilt);
    writer.exec('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (2);');
    writer.close();
    // One turn: the first statement leaves at once, the other three together in one message.
    const blocker = engine.execute({ db: db.file, sql: 'SELECT count(*) FROM t' });
    const slow = engine.execute({ db: db.file, sql: SLOW });
    const after = [engine.execute({ db: db.file, sql: READ }), engine.execute({ db: db.file, sql: READ })];
    expect(await blocker).toMatchObject({ ok: true, result: { rows: [[1]] } });
    // The slow statement is running now, on the old file's connection.
    renameSync(rebuilt, db.file);
    expect(await slow).toMatchObject({ ok: true, result: { rows: [[8_000_000]] } });
    expect(await Promise.all(after)).toMatchObject([
      { ok: true, result: { rows: [[2]] } },
      { ok: true, result: { rows: [[2]] } },
    ]);
  });
});

describe('texts that try to change the connection, in one batch between queries', () => {
  it('leave query_only on, temp storage in memory, no transaction and the fixture unchanged', async () => {
    const checksum = createHash('sha256').update(readFileSync(db.file)).digest('hex');
    const attempts: [string, string][] = [
      ['PRAGMA query_only = 0', 'not_a_query'],
      ['PRAGMA temp_store = FILE', 'not_a_query'],
      ['BEGIN', 'not_a_query'],
      ['SAVEPOINT s', 'not_a_query'],
      [`ATTACH '${path.join(db.dir, 'other.sqlite')}' AS o`, 'not_a_query'],
      ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', 'not_a_query'],
      ['SELECT 1; PRAGMA query_only = 0', 'multiple_statements'],
      ['SELECT * FROM pragma_query_only WHERE "query_only" = "0"', 'ok'],
      ['SELECT nope FROM t', 'unknown_column'],
      ['SELECT load_extension(\'x\')', 'query_error'],
    ];
    const state = "SELECT (SELECT query_only FROM pragma_query_only), (SELECT temp_store FROM pragma_temp_store), (SELECT count(*) FROM pragma_database_list)";
    const sent = attempts.flatMap(([sql]) => [engine.execute({ db: db.file, sql }), engine.execute({ db: db.file, sql: state })]);
    const outcomes = await Promise.all(sent);
    attempts.forEach(([sql, code], i) => {
      const attempt = outcomes[2 * i]!;
      expect([sql, attempt.ok ? 'ok' : attempt.error.code]).toEqual([sql, code]);
      expect([sql, outcomes[2 * i + 1]]).toMatchObject([sql, { ok: true, result: { rows: [[1, 2, 1]] } }]);
    });
    expect(createHash('sha256').update(readFileSync(db.file)).digest('hex')).toBe(checksum);
    expect(readdirSync(db.dir).sort()).toEqual(['fixture.sqlite']);
  });
});
