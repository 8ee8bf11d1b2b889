/**
 * The red-team slice on PostgreSQL with the static checks (L1–L3) off: every attempt of
 * redteam/slice.ts runs on the warehouse twin's base snapshot three times — through the engine as
 * shipped, through an engine without its text check (the database alone), and through the simple
 * protocol inside the engine's transaction (neither the text check nor the extended protocol: the
 * read-only transaction, the role and the server's settings alone) — and each must stop at the line
 * the slice names. Afterwards: every snapshot's content checksum is the one recorded at build, no
 * file appeared (the sentinel folder every path points into, the server's data folder, its
 * temporary files), no large object exists, no role, grant or server setting changed, no lock,
 * transaction or prepared transaction is left, no notification was delivered, and the next item
 * runs as before on the same connection.
 *
 * The slice has a private server of its own, so the small limits it sets on the reader role
 * (work_mem 1 MiB, temp_file_limit 4 MiB) touch no other test file.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionOutcome } from '../src/engine/engine.js';
import { databaseChecksum } from '../src/engine/postgres/pg-checksum.js';
import { postgresError } from '../src/engine/postgres/pg-errors.js';
import { connect, type PgServer } from '../src/engine/postgres/pg-server.js';
import { beginText, createPostgresEngineWithoutTextCheck, type PostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import type { PostgresEngineOptions } from '../src/engine/postgres/postgres-engine-options.js';
import type { ResolvedFixture } from '../src/fixtures/registry.js';
import { checkSafety } from '../src/rungs/safety.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { CLASSES, DEFAULT_TIMEOUT_MS, SLICE, sliceTable, stopLineOf, type Attempt } from './redteam/slice.js';
import { testDir } from './helpers.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const here = path.join(testDir, 'redteam');
const sentinel = path.join(here, 'sentinel');
const WORK_MEM = 1024 * 1024;
const options: PostgresEngineOptions = {
  cacheDir: path.join(here, 'server'),
  // One connection each: the statement after an attempt runs on the connection the attempt used.
  poolSize: 1,
  workMemBytes: WORK_MEM,
  tempFileLimitBytes: 4 * 1024 * 1024,
  maxRows: 10_000,
  maxResultBytes: 8 * 1024 * 1024,
};
mkdirSync(sentinel, { recursive: true });
// The server runs as another user (as root): it may enter the folder and write in the sentinel.
chmodSync(here, 0o755);
chmodSync(sentinel, 0o777);

const runtime = createLadderRuntime({ postgres: options, fixtures: { fixturesDir: path.join(ROOT, 'fixtures'), cacheDir: path.join(here, 'fixtures') } });
const withoutTextCheck = createPostgresEngineWithoutTextCheck(options);
let fixture: ResolvedFixture;
let engine: PostgresEngine;
let server: PgServer;
let db: string;
let before: { state: string; dataFolder: string[]; gold: ExecutionOutcome; session: ExecutionOutcome };
let listener: pg.Client;
const notifications: string[] = [];

/** A gold of the twin dataset (revenue by region), and the session's settings and identity. */
const GOLD = 'SELECT region_id, sum(net_revenue) AS revenue FROM v_order_revenue GROUP BY region_id ORDER BY region_id';
const SESSION =
  "SELECT current_user, session_user, current_setting('role') AS role, current_setting('search_path') AS search_path, current_setting('statement_timeout') AS statement_timeout, current_setting('work_mem') AS work_mem, current_setting('default_transaction_read_only') AS default_read_only, current_setting('transaction_read_only') AS read_only, current_setting('TimeZone') AS tz";

/** Roles, memberships, per-role and per-database settings, grants, the server's settings and configuration files. */
async function serverState(): Promise<string> {
  const admin = await connect(server, 'admin', db);
  try {
    const queries = [
      'SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconfig::text FROM pg_roles ORDER BY rolname',
      'SELECT roleid::regrole::text, member::regrole::text FROM pg_auth_members ORDER BY 1, 2',
      'SELECT setdatabase, setrole, setconfig::text FROM pg_db_role_setting ORDER BY 1, 2',
      'SELECT datname, datdba::regrole::text, datacl::text FROM pg_database ORDER BY datname',
      'SELECT oid::regprocedure::text, proacl::text FROM pg_proc WHERE proacl IS NOT NULL ORDER BY 1',
      'SELECT name, setting FROM pg_settings ORDER BY name',
      'SELECT sourcefile, name, setting, applied FROM pg_file_settings ORDER BY 1, 2',
      'SELECT extname FROM pg_extension ORDER BY 1',
    ];
    const parts: string[] = [];
    for (const query of queries) parts.push(JSON.stringify((await admin.query(query)).rows));
    parts.push(readFileSync(path.join(dataDir(), 'postgresql.auto.conf'), 'utf8'));
    return parts.join('\n');
  } finally {
    await admin.end();
  }
}

function dataDir(): string {
  return path.join(options.cacheDir!, '15', 'data');
}

/** The data folder's entries, its temporary-file folder's included: where a relative path would land. */
function dataFolder(): string[] {
  const tmp = path.join(dataDir(), 'base', 'pgsql_tmp');
  return [...readdirSync(dataDir()).filter((name) => name !== 'postmaster.pid' && name !== 'postmaster.opts'), ...(existsSync(tmp) ? readdirSync(tmp).map((name) => `pgsql_tmp/${name}`) : [])].sort();
}

const sqlOf = (attempt: Attempt): string => attempt.sql.replaceAll('{sentinel}', sentinel);
const timeoutOf = (attempt: Attempt): number => attempt.timeoutMs ?? DEFAULT_TIMEOUT_MS;

beforeAll(async () => {
  fixture = await runtime.resolveFixture('warehouse_pg');
  engine = await runtime.postgresEngine();
  server = await engine.server();
  db = fixture.snapshots[0]!.path;
  listener = await connect(server, 'admin', db);
  listener.on('notification', (message) => notifications.push(`${message.channel}: ${message.payload ?? ''}`));
  await listener.query('LISTEN ladder_channel');
  before = { state: await serverState(), dataFolder: dataFolder(), gold: await engine.execute({ db, sql: GOLD }), session: await engine.execute({ db, sql: SESSION }) };
  expect(before.gold).toMatchObject({ ok: true, result: { rows: { length: 4 } } });
});

afterAll(async () => {
  await listener?.end();
  await withoutTextCheck.close();
  await runtime.close();
  rmSync(here, { recursive: true, force: true });
});

describe('the slice', () => {
  it("is tabulated in docs/engine.md as it is", () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'engine.md'), 'utf8');
    const start = page.indexOf('| class | attempts | L3 fails');
    expect(start).toBeGreaterThan(0);
    expect(page.slice(start, page.indexOf('\n\n', start))).toBe(sliceTable());
  });

  it('has at least 40 attempts over every class, each id once', () => {
    expect(SLICE.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SLICE.map((attempt) => attempt.id)).size).toBe(SLICE.length);
    expect(CLASSES.filter((name) => !SLICE.some((attempt) => attempt.class === name))).toEqual([]);
  });

  it.each(SLICE.map((attempt) => [attempt.id, attempt] as const))('with the static checks on, L3 gives %s its verdict', (_id, attempt) => {
    const verdict = checkSafety({ sql: attempt.sql, dialect: 'postgres' });
    expect(verdict.status === 'pass' ? 'pass' : verdict.details?.violations[0]?.kind).toBe(attempt.l3);
  });
});

describe('the engine as shipped, static checks off', () => {
  it.each(SLICE.map((attempt) => [attempt.id, attempt] as const))('%s stops at its line', async (_id, attempt) => {
    const outcome = await engine.execute({ db, sql: sqlOf(attempt), timeoutMs: timeoutOf(attempt) });
    expect(stopLineOf(outcome), JSON.stringify(outcome)).toBe(attempt.shipped);
  });
});

describe('the database alone: no text check', () => {
  it.each(SLICE.map((attempt) => [attempt.id, attempt] as const))('%s stops at its line', async (_id, attempt) => {
    const outcome = await withoutTextCheck.execute({ db, sql: sqlOf(attempt), timeoutMs: timeoutOf(attempt) });
    expect(stopLineOf(outcome), JSON.stringify(outcome)).toBe(attempt.alone);
  });
});

/**
 * The statement through the simple protocol (several statements run, nothing is described first)
 * inside the engine's transaction, on a fresh connection of the reader, then the engine's rollback.
 */
async function inTransactionOnly(sql: string, timeoutMs: number): Promise<ExecutionOutcome> {
  const client = await connect(server, 'reader', db);
  // A guard far past the deadline: only a statement the server did not stop would reach it.
  const guard = setTimeout(() => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(), timeoutMs + 30_000);
  try {
    await client.query(beginText(timeoutMs, WORK_MEM));
    try {
      await client.query(sql);
      return { ok: true, result: { columns: [], rows: [], doubleQuoteFallback: false, executedSql: sql, elapsedMs: 0 } };
    } catch (error) {
      return { ok: false, error: postgresError(error as pg.DatabaseError) };
    }
  } finally {
    clearTimeout(guard);
    await client.query('ROLLBACK; SELECT pg_advisory_unlock_all()').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

describe('the transaction and the role alone: no text check, the simple protocol', () => {
  it.each(SLICE.filter((attempt) => attempt.transaction !== 'not run').map((attempt) => [attempt.id, attempt] as const))('%s stops at its line', async (_id, attempt) => {
    const outcome = await inTransactionOnly(sqlOf(attempt), timeoutOf(attempt));
    expect(stopLineOf(outcome), JSON.stringify(outcome)).toBe(attempt.transaction);
  });
});

describe('after the slice', () => {
  it('the next item runs as before, on the same connection, under the same identity and settings', async () => {
    expect(await engine.execute({ db, sql: GOLD })).toEqual({ ...before.gold, result: { ...(before.gold.ok ? before.gold.result : {}), elapsedMs: expect.any(Number) } });
    expect(await engine.execute({ db, sql: SESSION })).toEqual({ ...before.session, result: { ...(before.session.ok ? before.session.result : {}), elapsedMs: expect.any(Number) } });
    expect(before.session).toMatchObject({ ok: true, result: { rows: [['ladder_reader', 'ladder_reader', 'none', '"$user", public', '10s', '1MB', 'off', 'on', 'UTC']] } });
  });

  it("every snapshot's content checksum is the one recorded at build", async () => {
    for (const snapshot of fixture.snapshots) {
      const admin = await connect(server, 'admin', snapshot.path);
      try {
        expect(await databaseChecksum(admin), snapshot.name).toBe(snapshot.checksum);
        expect((await admin.query('SELECT count(*)::int AS n FROM pg_largeobject_metadata')).rows[0], snapshot.name).toEqual({ n: 0 });
      } finally {
        await admin.end();
      }
    }
  });

  it('no file appeared: the sentinel folder is empty, the data folder holds what it held, no temporary file is left', () => {
    expect(readdirSync(sentinel)).toEqual([]);
    expect(dataFolder()).toEqual(before.dataFolder);
  });

  it('no role, grant or server setting changed', async () => {
    expect(await serverState()).toBe(before.state);
  });

  it('no lock, transaction or prepared transaction is left, and no notification was delivered', async () => {
    const admin = await connect(server, 'admin', 'postgres');
    try {
      // Connections the engine closed after a cancel end a moment later; wait for them to go.
      const readers = async (): Promise<{ pid: number; state: string; xact: boolean }[]> =>
        (await admin.query<{ pid: number; state: string; xact: boolean }>("SELECT pid, state, xact_start IS NOT NULL AS xact FROM pg_stat_activity WHERE usename = 'ladder_reader' ORDER BY pid")).rows;
      const until = Date.now() + 30_000;
      while ((await readers()).length > 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      const open = await readers();
      expect(open.map(({ state, xact }) => ({ state, xact }))).toEqual(open.map(() => ({ state: 'idle', xact: false })));
      expect(open.length).toBeLessThanOrEqual(2);
      // The reader's backends hold nothing; no advisory lock is held by anyone (autovacuum's own
      // locks come and go, so other backends are not asked).
      expect((await admin.query("SELECT locktype, mode, pid FROM pg_locks WHERE pid IN (SELECT pid FROM pg_stat_activity WHERE usename = 'ladder_reader') OR locktype = 'advisory'")).rows).toEqual([]);
      expect((await admin.query('SELECT gid FROM pg_prepared_xacts')).rows).toEqual([]);
      // A notification sent by a committed transaction would have arrived with this round trip.
      await listener.query('SELECT 1');
      expect(notifications).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});
