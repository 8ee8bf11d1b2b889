/**
 * The session's connection cache: what it checks after a job (the cheap check for proven jobs,
 * the settings query otherwise), the file identity before one, and the prepared queries it keeps.
 * Uses test-db.ts's `music.sqlite`; connection settings are changed behind the cache's back
 * (`connection.exec`), the way no gated statement can.
 */
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cachedQuery,
  createSessionConnections,
  keepQuery,
  MAX_OPEN_CONNECTIONS,
  MAX_PREPARED_QUERIES,
  queryKey,
  settingsUnchanged,
  type PreparedQuery,
  type SessionConnection,
  type SessionConnections,
} from '../../../src/engine/sqlite/session-connections.js';
import { createSqliteSession, isProvenJob } from '../../../src/engine/sqlite/sqlite-session.js';
import type { ChildRequest } from '../../../src/engine/sqlite/sqlite-protocol.js';
import { buildTestDb, type TestDb } from './test-db.js';

let fixture: TestDb;
let connections: SessionConnections;

beforeAll(() => {
  fixture = buildTestDb();
  connections = createSessionConnections(2 ** 20);
});

afterAll(() => {
  connections.close();
  fixture.remove();
});

function acquire(file = fixture.file): SessionConnection {
  const open = connections.acquire(file);
  if (!('connection' in open)) throw new Error(`cannot open ${file}: ${open.message}`);
  return open;
}

function request(op: ChildRequest['op'], sql: string, extra: Partial<ChildRequest> = {}): ChildRequest {
  return { id: 1, op, db: fixture.file, sql, maxRows: 100, maxResultBytes: 2 ** 20, timeoutMs: 10_000, doubleQuotes: 'legacy', ...extra };
}

describe('release after a job', () => {
  it('keeps the connection after a proven job that left it as it was', () => {
    const open = acquire();
    connections.release(fixture.file, open, true);
    expect(acquire()).toBe(open);
    connections.release(fixture.file, open, false);
    expect(acquire()).toBe(open);
  });

  it('runs the settings query for a job that is not proven: query_only switched off → a fresh connection', () => {
    const open = acquire();
    open.connection.exec('PRAGMA query_only = 0');
    expect(settingsUnchanged(open.connection)).toBe(false);
    connections.release(fixture.file, open, false);
    expect(open.connection.open).toBe(false);
    const fresh = acquire();
    expect(fresh).not.toBe(open);
    expect(fresh.connection.prepare('SELECT query_only FROM pragma_query_only').pluck().safeIntegers(false).get()).toBe(1);
    connections.release(fixture.file, fresh, true);
  });

  it('runs it for temp_store too', () => {
    const open = acquire();
    open.connection.exec('PRAGMA temp_store = FILE');
    connections.release(fixture.file, open, false);
    expect(acquire()).not.toBe(open);
  });

  it('discards a connection with an open transaction even after a proven job', () => {
    const open = acquire();
    open.connection.exec('BEGIN');
    connections.release(fixture.file, open, true);
    expect(open.connection.open).toBe(false);
    expect(acquire()).not.toBe(open);
  });

  it('discards a connection that was closed', () => {
    const open = acquire();
    open.connection.close();
    connections.release(fixture.file, open, true);
    const fresh = acquire();
    expect(fresh).not.toBe(open);
    expect(fresh.connection.open).toBe(true);
  });
});

describe('which jobs are proven', () => {
  const session = createSqliteSession();
  afterAll(() => session.close());
  const proven = (op: ChildRequest['op'], sql: string, extra: Partial<ChildRequest> = {}) => isProvenJob(session.handle(request(op, sql, extra)));

  it('a query that ran, was prepared or explained from its own text', () => {
    expect(proven('execute', 'SELECT name FROM singer ORDER BY id')).toBe(true);
    expect(proven('prepare', 'WITH x AS (SELECT 1) SELECT * FROM x')).toBe(true);
    expect(proven('explain', 'VALUES (1)')).toBe(true);
  });

  it('not a rewritten text, an error, a refused text, a capped result or a catalog read', () => {
    expect(proven('execute', 'SELECT name FROM singer WHERE country = "France"')).toBe(false);
    expect(proven('execute', 'SELECT nope FROM singer')).toBe(false);
    expect(proven('execute', 'PRAGMA query_only = 0')).toBe(false);
    expect(proven('execute', 'SELECT name FROM singer', { maxRows: 1 })).toBe(false);
    expect(proven('catalog', '')).toBe(false);
  });
});

describe('file identity', () => {
  it('opens the new file when another one is renamed over the path, closing the old connection', () => {
    const other = buildTestDb();
    const moved = path.join(fixture.dir, 'music-old.sqlite');
    try {
      const writer = new Database(other.file);
      writer.exec("UPDATE singer SET name = 'Piaf' WHERE id = 1");
      writer.close();
      const before = acquire();
      expect(acquire()).toBe(before);
      renameSync(fixture.file, moved);
      renameSync(other.file, fixture.file);
      const after = acquire();
      expect(after).not.toBe(before);
      expect(before.connection.open).toBe(false);
      expect(after.connection.prepare('SELECT name FROM singer WHERE id = 1').pluck().get()).toBe('Piaf');
      connections.release(fixture.file, after, true);
    } finally {
      renameSync(moved, fixture.file);
      other.remove();
    }
  });

  it('reports a path that is not a regular file as db_not_found', () => {
    expect(connections.acquire(fixture.dir)).toEqual({ code: 'db_not_found', message: `database not found: ${fixture.dir} is not a file` });
    expect(connections.acquire(path.join(fixture.dir, 'none.sqlite'))).toEqual({
      code: 'db_not_found',
      message: `database not found: ${path.join(fixture.dir, 'none.sqlite')} does not exist (it is never created)`,
    });
  });
});

describe('how many connections stay open', () => {
  it(`keeps at most ${MAX_OPEN_CONNECTIONS}: the least recently used one is closed, and opened again when asked for`, () => {
    const own = createSessionConnections(2 ** 20);
    try {
      const files = Array.from({ length: MAX_OPEN_CONNECTIONS + 2 }, (_, i) => {
        const file = path.join(fixture.dir, `copy-${i}.sqlite`);
        copyFileSync(fixture.file, file);
        return file;
      });
      const opened = files.map((file) => {
        const open = own.acquire(file);
        if (!('connection' in open)) throw new Error(open.message);
        own.release(file, open, true);
        // The first file stays the most recently used, so the second and third go first.
        if (file !== files[0]) own.acquire(files[0]!);
        return open;
      });
      expect(opened.map((o) => o.connection.open)).toEqual(files.map((_, i) => i !== 1 && i !== 2));
      const again = own.acquire(files[1]!);
      expect('connection' in again && again !== opened[1] && again.connection.open).toBe(true);
      expect(opened[3]!.connection.open).toBe(false);
    } finally {
      own.close();
    }
  });
});

describe('what a connection keeps', () => {
  it('answers a text run again on its connection exactly as the first time, whatever op and mode come between', () => {
    const session = createSqliteSession();
    try {
      const sql = 'SELECT id FROM singer ORDER BY id';
      expect(session.handle(request('execute', sql))).toMatchObject({ ok: true, result: { columns: ['id'], rows: [[1], [2], [3]], executedSql: sql } });
      expect(session.handle(request('prepare', sql))).toMatchObject({ ok: true, result: { columns: ['id'], rows: [] } });
      expect(session.handle(request('execute', sql, { maxRows: 1 }))).toEqual({
        ok: false,
        error: { code: 'result_too_large', message: 'result too large: more than 1 row (maxRows); stopped reading at row 2' },
      });
      expect(session.handle(request('execute', sql))).toMatchObject({ ok: true, result: { columns: ['id'], rows: [[1], [2], [3]] } });
      const quoted = 'SELECT id FROM singer WHERE country = "France"';
      expect(session.handle(request('execute', quoted))).toMatchObject({ ok: true, result: { rows: [[1], [3]], doubleQuoteFallback: true, executedSql: "SELECT id FROM singer WHERE country = 'France'" } });
      expect(session.handle(request('execute', quoted, { doubleQuotes: 'strict' }))).toEqual({
        ok: false,
        error: { code: 'unknown_column', message: 'no such column: "France" - should this be a string literal in single-quotes?' },
      });
      expect(session.handle(request('execute', quoted))).toMatchObject({ ok: true, result: { rows: [[1], [3]], doubleQuoteFallback: true } });
    } finally {
      session.close();
    }
  });

  it('reads the catalog and the root pages once per connection, and afresh for a file rebuilt at the path', () => {
    const other = buildTestDb();
    const moved = path.join(fixture.dir, 'music-old.sqlite');
    const session = createSqliteSession();
    try {
      const writer = new Database(other.file);
      writer.exec('CREATE TABLE venue (id INTEGER PRIMARY KEY); DROP VIEW french_singers;');
      writer.close();
      const names = () => {
        const outcome = session.handle(request('catalog', ''));
        return outcome.ok && 'catalog' in outcome ? outcome.catalog.tables.map((table) => table.name) : outcome;
      };
      const tablesRead = () => {
        const outcome = session.handle(request('explain', 'SELECT * FROM venue, singer'));
        return outcome.ok && 'result' in outcome && 'tablesRead' in outcome.result ? outcome.result.tablesRead : !outcome.ok && outcome.error.message;
      };
      expect(names()).toEqual(['singer', 'concert', 'french_singers']);
      expect(names()).toEqual(['singer', 'concert', 'french_singers']);
      expect(tablesRead()).toBe('no such table: venue');
      renameSync(fixture.file, moved);
      renameSync(other.file, fixture.file);
      expect(names()).toEqual(['singer', 'concert', 'venue']);
      expect(tablesRead()).toEqual(['singer', 'venue']);
    } finally {
      session.close();
      renameSync(moved, fixture.file);
      other.remove();
    }
  });

  it('keeps the last MAX_PREPARED_QUERIES, least recently used out first', () => {
    const open = acquire();
    const query = (sql: string): PreparedQuery => {
      const statement = open.connection.prepare(sql);
      return { statement, columns: ['x'], executedSql: sql, doubleQuoteFallback: false };
    };
    for (let i = 0; i < MAX_PREPARED_QUERIES; i += 1) keepQuery(open, queryKey('legacy', `SELECT ${i} AS x`), query(`SELECT ${i} AS x`));
    expect(cachedQuery(open, queryKey('legacy', 'SELECT 0 AS x'))?.executedSql).toBe('SELECT 0 AS x');
    keepQuery(open, queryKey('legacy', 'SELECT 64 AS x'), query('SELECT 64 AS x'));
    expect(open.queries.size).toBe(MAX_PREPARED_QUERIES);
    expect(cachedQuery(open, queryKey('legacy', 'SELECT 1 AS x'))).toBeUndefined();
    expect(cachedQuery(open, queryKey('legacy', 'SELECT 0 AS x'))?.executedSql).toBe('SELECT 0 AS x');
    expect(cachedQuery(open, queryKey('strict', 'SELECT 0 AS x'))).toBeUndefined();
    connections.release(fixture.file, open, true);
  });
});
