/**
 * PostgreSQL fixtures: built by the owner role into databases renamed into place, recorded with a
 * content checksum, verified on first use, rebuilt when changed; failing scripts name file:line;
 * plain pg_dump output loads and keeps the checksum.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseChecksum } from '../src/engine/postgres/pg-checksum.js';
import { findServerBinaries } from '../src/engine/postgres/pg-binaries.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { adminClient, fixturesDir, testDir, testEngine } from './helpers.js';

const scratch = mkdtempSync(path.join(testDir, 'fixtures-'));
const engines = [testEngine(), testEngine()];
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
  rmSync(scratch, { recursive: true, force: true });
});

/** A fixture folder in the scratch folder with the given files. */
function fixture(name: string, files: Record<string, string>): string {
  const dir = path.join(scratch, 'fixtures');
  mkdirSync(path.join(dir, name, 'data'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, name, file), text);
  return dir;
}

describe('building', () => {
  it('builds each snapshot into its own database, read by the reader role only', async () => {
    const engine = engines[0]!;
    const resolved = await resolveFixture('pgshop', { fixturesDir, postgres: () => engine });
    expect(resolved.dialect).toBe('postgres');
    expect(resolved.snapshots.map((snapshot) => [snapshot.name, snapshot.path.replace(/_[0-9a-f]{12}_/, '_<hash>_'), snapshot.checksum?.slice(0, 7)])).toEqual([
      ['base', 'ladder_pgshop_<hash>_base', 'sha256:'],
      ['edge', 'ladder_pgshop_<hash>_edge', 'sha256:'],
    ]);
    const admin = await adminClient(engine);
    try {
      const rows = (await admin.query("SELECT datname, pg_get_userbyid(datdba) AS owner, datcollate, datacl::text AS acl FROM pg_database WHERE datname = $1", [resolved.snapshots[0]!.path])).rows;
      // A finished database is the admin's: the owner role, which runs every fixture's scripts, cannot reach it.
      expect(rows).toEqual([{ datname: resolved.snapshots[0]!.path, owner: 'ladder_admin', datcollate: 'C', acl: '{ladder_admin=CTc/ladder_admin,ladder_reader=c/ladder_admin}' }]);
    } finally {
      await admin.end();
    }
    // Grants: the reader reads the tables and views, through the declared search_path.
    expect(await engine.execute({ db: resolved.snapshots[0]!.path, sql: 'SELECT count(*) FROM orders' })).toMatchObject({ ok: true, result: { rows: [[5]] } });
    expect(await engine.execute({ db: resolved.snapshots[1]!.path, sql: 'SELECT count(*) FROM shop.v_revenue' })).toMatchObject({ ok: true, result: { rows: [[5]] } });
  });

  it('refuses a database whose contents changed, builds it again, and never uses the changed one', async () => {
    const [first, second] = engines as [ReturnType<typeof testEngine>, ReturnType<typeof testEngine>];
    const resolved = await resolveFixture('pgshop', { fixturesDir, postgres: () => first });
    const db = resolved.snapshots[0]!.path;
    const admin = await adminClient(first, db);
    try {
      await admin.query("UPDATE shop.orders SET total = 0 WHERE id = 10");
      expect(await databaseChecksum(admin)).not.toBe(resolved.snapshots[0]!.checksum);
    } finally {
      await admin.end();
    }
    // A new engine verifies the database before its first use: the changed one is rebuilt.
    const again = await resolveFixture('pgshop', { fixturesDir, postgres: () => second });
    expect(again.snapshots[0]).toEqual(resolved.snapshots[0]);
    expect(await second.execute({ db, sql: 'SELECT total FROM shop.orders WHERE id = 10' })).toMatchObject({ ok: true, result: { rows: [[expect.objectContaining({ text: '120.50' })]] } });
  });

  it('names the script and line of a failing statement, and leaves no database behind', async () => {
    const dir = fixture('broken', {
      'fixture.yaml': 'name: broken\ndialect: postgres\nsnapshots:\n  base: { scripts: [schema.sql] }\n',
      'schema.sql': 'CREATE TABLE t (a int);\n\nINSERT INTO t VALUES (1);\nINSERT INTO nowhere VALUES (2);\n',
    });
    await expect(resolveFixture('broken', { fixturesDir: dir, postgres: () => engines[0]! })).rejects.toThrow(
      `${path.join(dir, 'broken', 'schema.sql')}:4: fails while building snapshot "base" of fixture broken: relation "nowhere" does not exist`,
    );
    const admin = await adminClient(engines[0]!);
    try {
      expect((await admin.query("SELECT datname FROM pg_database WHERE datname LIKE 'ladder_broken_%'")).rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });

  it('runs no psql meta-command, and no script as a superuser', async () => {
    const dir = fixture('meta', {
      'fixture.yaml': 'name: meta\ndialect: postgres\nsnapshots:\n  base: { scripts: [a.sql] }\n  other: { scripts: [b.sql] }\n',
      'a.sql': 'CREATE TABLE t (a int);\n\\! touch /tmp/ladder-meta-ran\n',
      'b.sql': "COPY (SELECT 1) TO PROGRAM 'touch /tmp/ladder-program-ran';\n",
    });
    await expect(resolveFixture('meta', { fixturesDir: dir, postgres: () => engines[0]! })).rejects.toThrow(`a.sql:2: fails while building snapshot "base" of fixture meta: psql meta-command \\! is not run`);
    writeFileSync(path.join(dir, 'meta', 'a.sql'), 'CREATE TABLE t (a int);\n');
    await expect(resolveFixture('meta', { fixturesDir: dir, postgres: () => engines[0]! })).rejects.toThrow(/b\.sql:1: fails while building snapshot "other" of fixture meta: refused: COPY reads or writes a file or runs a program on the server/);
    expect(spawnSync('test', ['-e', '/tmp/ladder-meta-ran']).status).not.toBe(0);
    expect(spawnSync('test', ['-e', '/tmp/ladder-program-ran']).status).not.toBe(0);
  });

  it("loads plain pg_dump output (COPY blocks, SET lines, OWNER TO, \\restrict) with the same checksum", async () => {
    const engine = engines[0]!;
    const resolved = await resolveFixture('pgshop', { fixturesDir, postgres: () => engine });
    const server = await engine.server();
    const config = server.config('admin', resolved.snapshots[1]!.path);
    const dump = spawnSync(path.join(findServerBinaries().binDir, 'pg_dump'), ['--no-privileges', '-h', String(config.host), '-p', String(config.port), '-U', String(config.user), String(config.database)], { encoding: 'utf8' });
    expect(dump.status, dump.stderr).toBe(0);
    const dir = fixture('dumped', { 'fixture.yaml': 'name: dumped\ndialect: postgres\nsearch_path: [shop, public]\nsnapshots:\n  edge: { scripts: [dump.sql] }\n', 'dump.sql': dump.stdout });
    cpSync(path.join(fixturesDir, 'pgshop', 'schema.sql'), path.join(dir, 'dumped', 'unused.sql'));
    const loaded = await resolveFixture('dumped', { fixturesDir: dir, postgres: () => engine });
    expect(loaded.snapshots[0]!.checksum).toBe(resolved.snapshots[1]!.checksum);
  });
});

describe('misuse', () => {
  it('asks for a PostgreSQL engine, and refuses a role the manifest does not declare', async () => {
    await expect(resolveFixture('pgshop', { fixturesDir })).rejects.toThrow('fixture pgshop is a PostgreSQL fixture (dialect: postgres in');
    await expect(resolveFixture('pgshop', { fixturesDir, role: 'analyst', postgres: () => engines[0]! })).rejects.toThrow(`role "analyst" is not declared by fixture pgshop (${path.join(fixturesDir, 'pgshop', 'fixture.yaml')}); declared roles: (none)`);
  });
});

describe('text2sql-ladder fixtures build', () => {
  it('builds a PostgreSQL fixture on the private server and prints each database with its checksum', async () => {
    const { buildFixtures, renderBuildReport } = await import('../src/cli/fixtures-build.js');
    const saved = process.env['TEXT2SQL_LADDER_CACHE_DIR'];
    process.env['TEXT2SQL_LADDER_CACHE_DIR'] = path.dirname(engines[0]!.options.cacheDir);
    try {
      const report = await buildFixtures(path.join(fixturesDir, 'pgshop'), { cacheDir: path.join(scratch, 'sqlite-cache') });
      expect(report.fixtures.map((entry) => [entry.name, entry.dialect, entry.files.map((file) => [file.snapshot, /^ladder_pgshop_[0-9a-f]{12}_(base|edge)$/.test(file.path), /^[0-9a-f]{64}$/.test(file.sha256)])])).toEqual([
        ['pgshop', 'postgres', [['base', true, true], ['edge', true, true]]],
      ]);
      expect(renderBuildReport(report).split('\n')[0]).toBe(`fixture pgshop: 2 databases on the private PostgreSQL server in ${path.join(path.dirname(engines[0]!.options.cacheDir), 'postgres')} (built, or verified against their checksums)`);
    } finally {
      if (saved === undefined) delete process.env['TEXT2SQL_LADDER_CACHE_DIR'];
      else process.env['TEXT2SQL_LADDER_CACHE_DIR'] = saved;
    }
  });
});
