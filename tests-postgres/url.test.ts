/**
 * The user's own server by URL (here: roles on the run's private server, reached through a URL
 * with the socket folder as its host). `scratch`: the ladder creates only its own roles and
 * databases; `existing`: it only reads, as the URL's role, which may not be a superuser.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { adminClient, fixturesDir, serverDir, testDir, testEngine } from './helpers.js';

const bootstrap = testEngine();
let socket = '';
const urlOf = (role: string, database = 'postgres'): string => `postgres://${role}@${encodeURIComponent(socket)}/${database}`;
const cacheDir = path.join(testDir, 'url-cache');

beforeAll(async () => {
  const server = await bootstrap.server();
  socket = String(server.config('admin', 'postgres').host);
  const admin = await adminClient(bootstrap);
  try {
    await admin.query('CREATE ROLE app_admin LOGIN CREATEDB CREATEROLE');
    await admin.query('CREATE ROLE app_plain LOGIN');
    await admin.query('CREATE ROLE app_reader LOGIN');
    await admin.query('CREATE DATABASE appdb');
  } finally {
    await admin.end();
  }
  const appdb = await adminClient(bootstrap, 'appdb');
  try {
    await appdb.query("CREATE TABLE sales (id int, amount numeric(8,2)); INSERT INTO sales VALUES (1, 9.99), (2, 20); GRANT SELECT ON sales TO app_reader");
  } finally {
    await appdb.end();
  }
});
afterAll(() => bootstrap.close());

describe('a URL in scratch mode', () => {
  it('builds fixtures as its own namespaced owner and runs predictions as its own reader', async () => {
    const engine = createPostgresEngine({ url: urlOf('app_admin'), cacheDir });
    try {
      const fixture = await resolveFixture('pgshop', { fixturesDir, postgres: () => engine });
      const db = fixture.snapshots[0]!.path;
      // The owner role built the tables; the finished database belongs to the URL's admin, so the
      // owner role (every fixture's scripts run as it) owns no database but the one it builds.
      const who = await engine.execute({ db, sql: "SELECT current_user, (SELECT tableowner FROM pg_tables WHERE tablename = 'orders'), (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database())" });
      expect(who).toMatchObject({ ok: true, result: { rows: [[expect.stringMatching(/^ladder_[0-9a-f]{10}_reader$/), expect.stringMatching(/^ladder_[0-9a-f]{10}_owner$/), 'app_admin']] } });
      expect(await engine.execute({ db, sql: 'SELECT count(*) FROM orders' })).toMatchObject({ ok: true, result: { rows: [[5]] } });
      // The roles' passwords stay in the cache folder, readable by this user only.
      const [file] = (await import('node:fs')).readdirSync(path.join(cacheDir, 'url-roles'));
      expect(statSync(path.join(cacheDir, 'url-roles', file!)).mode & 0o777).toBe(0o600);
    } finally {
      await engine.close();
    }
  });

  it('needs CREATEDB and CREATEROLE, and says so', async () => {
    const engine = createPostgresEngine({ url: urlOf('app_plain'), cacheDir });
    try {
      await expect(engine.execute({ db: 'postgres', sql: 'SELECT 1' })).rejects.toThrow(
        "postgres.url connects as app_plain, which lacks CREATEDB and CREATEROLE: the ladder creates its own databases and roles there (ALTER ROLE app_plain CREATEDB CREATEROLE), or use databases: 'existing' to only read databases you loaded",
      );
    } finally {
      await engine.close();
    }
  });

  it('names an unreachable server without its password', async () => {
    const engine = createPostgresEngine({ url: 'postgres://someone:secret@127.0.0.1:1/db', cacheDir });
    try {
      await expect(engine.execute({ db: 'db', sql: 'SELECT 1' })).rejects.toThrow(/^cannot connect to the PostgreSQL server at postgres:\/\/someone@127\.0\.0\.1:1\/db: connect ECONNREFUSED/);
    } finally {
      await engine.close();
    }
  });
});

describe("a URL in 'existing' mode", () => {
  it('reads the databases the user loaded, as the URL role', async () => {
    const engine = createPostgresEngine({ url: urlOf('app_reader'), databases: 'existing', cacheDir });
    try {
      expect(await engine.execute({ db: 'appdb', sql: 'SELECT current_user, sum(amount) FROM sales' })).toMatchObject({ ok: true, result: { rows: [['app_reader', expect.objectContaining({ text: '29.99' })]] } });
      expect(await engine.execute({ db: 'appdb', sql: 'WITH d AS (DELETE FROM sales RETURNING *) SELECT count(*) FROM d' })).toMatchObject({ ok: false });
      await expect(resolveFixture('pgshop', { fixturesDir, postgres: () => engine })).rejects.toThrow("fixture pgshop is built on the server, but the engine's URL is in databases: 'existing' mode");
    } finally {
      await engine.close();
    }
  });

  it('refuses a superuser URL for running predictions', async () => {
    const engine = createPostgresEngine({ url: urlOf('ladder_admin'), databases: 'existing', cacheDir });
    try {
      await expect(engine.execute({ db: 'postgres', sql: 'SELECT 1' })).rejects.toThrow('postgres.url connects as ladder_admin, a superuser: predictions never run as one');
    } finally {
      await engine.close();
    }
  });
});

describe('DATABASE_URL', () => {
  it('is never read', async () => {
    const saved = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = 'postgres://nobody:nothing@127.0.0.1:1/nowhere';
    try {
      const engine = createPostgresEngine({ cacheDir: serverDir });
      expect(engine.options.url).toBeUndefined();
      expect(await engine.execute({ db: 'postgres', sql: 'SELECT 1' })).toMatchObject({ ok: true });
      await engine.close();
    } finally {
      if (saved === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = saved;
    }
    expect(existsSync(serverDir)).toBe(true);
  });
});
