/**
 * The per-child session, run in-process (no deadline or memory cap here: those are the pool's).
 * Uses test-db.ts's `music.sqlite`.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteSession, type SqliteSession } from '../../../src/engine/sqlite/sqlite-session.js';
import type { ChildRequest } from '../../../src/engine/sqlite/sqlite-protocol.js';
import { createTempSqlite } from '../../helpers/temp-sqlite.js';
import { buildTestDb, listDir, sha256, type TestDb } from './test-db.js';

let fixture: TestDb;
let session: SqliteSession;
let checksum: string;

function request(op: ChildRequest['op'], sql: string, extra: Partial<ChildRequest> = {}): ChildRequest {
  return { id: 1, op, db: fixture.file, sql, maxRows: 100, maxResultBytes: 2 ** 20, timeoutMs: 10_000, doubleQuotes: 'legacy', ...extra };
}

beforeAll(() => {
  fixture = buildTestDb();
  checksum = sha256(fixture.file);
  session = createSqliteSession();
});

afterAll(() => {
  session.close();
  expect(sha256(fixture.file)).toBe(checksum);
  expect(listDir(fixture.dir)).toEqual(['music.sqlite']);
  fixture.remove();
});

describe('createSqliteSession', () => {
  it('executes a query with bigint and blob cells', () => {
    expect(session.handle(request('execute', 'SELECT big, photo FROM singer WHERE id = 1'))).toMatchObject({
      ok: true,
      result: { columns: ['big', 'photo'], rows: [[9007199254740993n, new Uint8Array([1, 2, 255])]], doubleQuoteFallback: false },
    });
  });

  it('refuses a pragma before compiling it, so query_only stays on', () => {
    expect(session.handle(request('prepare', 'PRAGMA query_only = 0'))).toMatchObject({ ok: false, error: { code: 'not_a_query' } });
    expect(session.handle(request('execute', 'SELECT query_only FROM pragma_query_only'))).toMatchObject({ ok: true, result: { rows: [[1]] } });
  });

  it('rewrites double-quoted literals round after round in legacy mode', () => {
    expect(session.handle(request('execute', 'SELECT "a", "b", "c"'))).toMatchObject({
      ok: true,
      result: { rows: [['a', 'b', 'c']], doubleQuoteFallback: true, executedSql: "SELECT 'a', 'b', 'c'" },
    });
  });

  it('rewrites only the tokens that name no column where they stand, as stock SQLite reads them', () => {
    // The outer "year" names no column of singer (a string); the inner one is concert.year.
    const sql = 'SELECT name FROM singer WHERE name = "year" OR EXISTS (SELECT 1 FROM concert WHERE concert.singer_id = singer.id AND "year" > 2004)';
    expect(session.handle(request('execute', sql))).toMatchObject({
      ok: true,
      result: { rows: [['Aznavour']], doubleQuoteFallback: true, executedSql: sql.replace('"year" OR', "'year' OR") },
    });
  });

  it('keeps SQLite’s message when the missing column is not double-quoted', () => {
    expect(session.handle(request('execute', 'SELECT s."nope" FROM singer s'))).toEqual({ ok: false, error: { code: 'unknown_column', message: 'no such column: s.nope' } });
  });

  it('answers catalog and missing databases', () => {
    const missing = path.join(fixture.dir, 'missing.sqlite');
    expect(session.handle(request('catalog', '', { db: missing }))).toEqual({
      ok: false,
      error: { code: 'db_not_found', message: `database not found: ${missing} does not exist (it is never created)` },
    });
    const catalog = session.handle(request('catalog', ''));
    expect(catalog.ok && 'catalog' in catalog && catalog.catalog.tables.map((table) => `${table.kind}:${table.name}`)).toEqual([
      'table:singer',
      'table:concert',
      'view:french_singers',
    ]);
  });

  it('reopens a database rebuilt at the same path, and reports one that disappeared', () => {
    const file = path.join(fixture.dir, 'rebuilt.sqlite');
    const build = (value: number) => {
      rmSync(file, { force: true });
      const db = new Database(file);
      db.exec(`CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (${value});`);
      db.close();
    };
    try {
      build(1);
      expect(session.handle(request('execute', 'SELECT v FROM t', { db: file }))).toMatchObject({ ok: true, result: { rows: [[1]] } });
      build(2);
      expect(session.handle(request('execute', 'SELECT v FROM t', { db: file }))).toMatchObject({ ok: true, result: { rows: [[2]] } });
      rmSync(file);
      expect(session.handle(request('execute', 'SELECT v FROM t', { db: file }))).toMatchObject({ ok: false, error: { code: 'db_not_found' } });
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('reports a file that is not a database as db_unavailable (the file is at fault, never the statement)', () => {
    const notADatabase = path.resolve('package.json');
    expect(session.handle(request('execute', 'SELECT 1', { db: notADatabase }))).toEqual({
      ok: false,
      error: { code: 'db_unavailable', message: `cannot open ${notADatabase}: file is not a database` },
    });
  });

  it('keeps temp storage in memory, and a connection that lost the setting is not reused', () => {
    expect(session.handle(request('execute', 'SELECT temp_store FROM pragma_temp_store'))).toMatchObject({ ok: true, result: { rows: [[2]] } });
  });

  it('counts result bytes and stops at maxResultBytes (result_too_large)', () => {
    // 3 rows of one 100-character text: 56 (the row) + 32 + 200 (the text) bytes each (result-bytes.ts).
    const sql = "SELECT printf('%.*c', 100, 'x') FROM singer";
    expect(session.handle(request('execute', sql, { maxResultBytes: 3 * 288 }))).toMatchObject({ ok: true, result: { rows: [[expect.any(String)], [expect.any(String)], [expect.any(String)]] } });
    expect(session.handle(request('execute', sql, { maxResultBytes: 3 * 288 - 1 }))).toEqual({
      ok: false,
      error: { code: 'result_too_large', message: `result too large: more than ${3 * 288 - 1} bytes (maxResultBytes); stopped reading at row 3` },
    });
  });

  it('explains a query that follows empty statements', () => {
    expect(session.handle(request('explain', ' ; ;SELECT name FROM singer WHERE id = 1'))).toMatchObject({ ok: true, result: { tablesRead: ['singer'] } });
  });
});

describe('WAL-mode databases', () => {
  it('are read from a private copy: no -wal or -shm file appears, and a writer\'s un-checkpointed changes are refused', () => {
    const wal = createTempSqlite('PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);', { prefix: 'ladder-wal-', name: 'wal.sqlite' });
    const own = createSqliteSession();
    try {
      const bytes = sha256(wal.file);
      expect(listDir(wal.dir)).toEqual(['wal.sqlite']);
      expect(own.handle(request('execute', 'SELECT v FROM t', { db: wal.file }))).toMatchObject({ ok: true, result: { rows: [[1]] } });
      expect(own.handle(request('execute', 'SELECT temp_store FROM pragma_temp_store', { db: wal.file }))).toMatchObject({ ok: true, result: { rows: [[2]] } });
      expect(own.handle(request('execute', 'SELECT count(*) FROM t', { db: wal.file }))).toMatchObject({ ok: true, result: { rows: [[1]] } });
      expect(listDir(wal.dir)).toEqual(['wal.sqlite']);
      expect(sha256(wal.file)).toBe(bytes);

      // A live writer with changes only in its -wal: reading the main file alone would be stale.
      const writer = new Database(wal.file);
      try {
        writer.pragma('wal_autocheckpoint = 0');
        writer.exec('INSERT INTO t VALUES (2)');
        const shm = sha256(`${wal.file}-shm`);
        const fresh = createSqliteSession();
        try {
          const outcome = fresh.handle(request('execute', 'SELECT v FROM t', { db: wal.file }));
          expect(outcome).toMatchObject({ ok: false, error: { code: 'db_unavailable' } });
          expect(outcome.ok ? '' : outcome.error.message).toMatch(
            /^cannot open .*wal\.sqlite: it is a WAL-mode database with \d+ bytes of changes in wal\.sqlite-wal that are not checkpointed \(a writer has it open, or did not close it\); the engine never touches -wal \/ -shm files: checkpoint it \(PRAGMA wal_checkpoint\(TRUNCATE\)\) or convert it \(PRAGMA journal_mode = DELETE\)$/,
          );
        } finally {
          fresh.close();
        }
        expect(sha256(`${wal.file}-shm`)).toBe(shm);
      } finally {
        writer.close();
      }
    } finally {
      own.close();
      wal.remove();
    }
  });

  it('refuses a WAL-mode database larger than half the memory cap, saying how to convert it', () => {
    const wal = createTempSqlite("PRAGMA journal_mode = WAL; CREATE TABLE t (v); INSERT INTO t VALUES (printf('%.*c', 100000, 'x'));", { prefix: 'ladder-wal-', name: 'big.sqlite' });
    const small = createSqliteSession({ maxMemoryBytes: 100_000 });
    try {
      expect(small.handle(request('execute', 'SELECT 1', { db: wal.file }))).toMatchObject({
        ok: false,
        error: { code: 'db_unavailable', message: expect.stringContaining('is a WAL-mode database of 106496 bytes; the engine reads WAL databases from a private in-memory copy of at most 50000 bytes (half of maxMemoryBytes)') },
      });
      expect(listDir(wal.dir)).toEqual(['big.sqlite']);
    } finally {
      small.close();
      wal.remove();
    }
  });
});
