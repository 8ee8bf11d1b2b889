/**
 * A PostgreSQL fixture's scripts are as untrusted as a model's SQL: a script that reaches past its
 * own database (another fixture's database, a role, a server file or program), runs forever, or
 * grows without end is stopped with one error naming the script and line; the other fixtures'
 * databases, the roles and the fixture folder are exactly as they were, nothing half-built stays
 * on the server, and the next build is normal.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFixture } from '../src/fixtures/registry.js';
import { adminClient, fixturesDir, testDir, testEngine } from './helpers.js';

const scratch = mkdtempSync(path.join(testDir, 'hostile-'));
const engine = testEngine();
let victim: { readonly path: string; readonly checksum: string };
afterAll(async () => {
  await engine.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The victim: the bundled test fixture, built first. */
beforeAll(async () => {
  const built = await resolveFixture('pgshop', { fixturesDir, postgres: () => engine });
  victim = { path: built.snapshots[0]!.path, checksum: built.snapshots[0]!.checksum! };
});

/** A fixture folder holding one snapshot of one script. */
function hostile(name: string, script: string): string {
  const dir = path.join(scratch, 'fixtures');
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, 'fixture.yaml'), `name: ${name}\ndialect: postgres\nsnapshots:\n  base: { scripts: [s.sql] }\n`);
  writeFileSync(path.join(dir, name, 's.sql'), script);
  return dir;
}

/** Every file of a folder with its sha256, to show it is byte-identical after a build. */
function folderDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    try {
      out[name] = createHash('sha256').update(readFileSync(file)).digest('hex');
    } catch {
      out[name] = 'folder';
    }
  }
  return out;
}

/** What a hostile build could have touched on the server: databases (with owners and comments), and the ladder roles' settings. */
async function serverState(): Promise<unknown> {
  const admin = await adminClient(engine);
  try {
    const databases = (await admin.query("SELECT datname, pg_get_userbyid(datdba) AS owner, datconnlimit, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname LIKE 'ladder\\_%' ORDER BY datname")).rows;
    const settings = (await admin.query("SELECT r.rolname, s.setconfig::text AS config FROM pg_db_role_setting s LEFT JOIN pg_roles r ON r.oid = s.setrole ORDER BY 1, 2")).rows;
    const roles = (await admin.query("SELECT rolname, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname LIKE 'ladder\\_%' ORDER BY 1")).rows;
    return { databases, settings, roles };
  } finally {
    await admin.end();
  }
}

/** The victim's checksum, computed again (a fresh engine has verified nothing yet). */
async function victimChecksum(): Promise<string> {
  const fresh = testEngine();
  try {
    const again = await resolveFixture('pgshop', { fixturesDir, postgres: () => fresh });
    return again.snapshots[0]!.checksum!;
  } finally {
    await fresh.close();
  }
}

describe('a script that reaches past its database', () => {
  it.each([
    ['DROP DATABASE', () => `CREATE TABLE t (a int);\nDROP DATABASE ${victim.path};\n`, 's.sql:2: fails while building snapshot "base" of fixture reach: refused: DROP DATABASE'],
    ['ALTER DATABASE', () => `CREATE TABLE t (a int);\nALTER DATABASE ${victim.path} CONNECTION LIMIT 0;\n`, 's.sql:2: fails while building snapshot "base" of fixture reach: refused: ALTER DATABASE'],
    ['COMMENT ON DATABASE', () => `COMMENT ON DATABASE ${victim.path} IS 'x';\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: refused: COMMENT ON DATABASE'],
    ['ALTER ROLE', () => `ALTER ROLE ladder_owner SET search_path = nowhere;\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: refused: ALTER ROLE LADDER_OWNER'],
    ['SET ROLE', () => `SET ROLE ladder_admin;\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: refused: SET ROLE LADDER_ADMIN'],
    ['COPY TO a file', () => `CREATE TABLE t (a int);\nCOPY t TO '${path.join(scratch, 'copied')}';\n`, 's.sql:2: fails while building snapshot "base" of fixture reach: refused: COPY reads or writes a file'],
    ['COPY FROM a file', () => `CREATE TABLE t (a text);\nCOPY t FROM '/etc/passwd';\n`, 's.sql:2: fails while building snapshot "base" of fixture reach: refused: COPY reads or writes a file'],
    ['standard_conforming_strings off', () => `SET standard_conforming_strings = off;\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: refused: standard_conforming_strings stays on'],
    ['dynamic SQL on another database', () => `DO $$ BEGIN EXECUTE 'ALTER DATABASE ${victim.path} CONNECTION LIMIT 0'; END $$;\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: must be owner of database'],
    ['dynamic SQL turning standard_conforming_strings off', () => `DO $$ BEGIN EXECUTE 'SET standard_' || 'conforming_strings = off'; END $$;\nSELECT 1;\n`, 's.sql:1: fails while building snapshot "base" of fixture reach: refused: the script turned standard_conforming_strings off'],
  ])('%s: one error naming the line, nothing else changed', async (_label, script, expected) => {
    const before = await serverState();
    const dir = hostile('reach', script());
    const folder = folderDigest(path.join(dir, 'reach'));
    await expect(resolveFixture('reach', { fixturesDir: dir, postgres: () => engine })).rejects.toThrow(path.join(dir, 'reach', expected));
    expect(await serverState()).toEqual(before);
    expect(folderDigest(path.join(dir, 'reach'))).toEqual(folder);
    expect(readdirSync(scratch)).not.toContain('copied');
    expect(await victimChecksum()).toBe(victim.checksum);
  });

  it("a role setting made by dynamic SQL does not reach the next build", async () => {
    const dir = hostile('rolesetting', "DO $$ BEGIN EXECUTE 'ALTER ROLE ' || current_user || ' SET search_path = nowhere'; END $$;\nCREATE TABLE t (a int);\n");
    await resolveFixture('rolesetting', { fixturesDir: dir, postgres: () => engine });
    const next = hostile('afterwards', 'CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);\n');
    const built = await resolveFixture('afterwards', { fixturesDir: next, postgres: () => engine });
    expect(await engine.execute({ db: built.snapshots[0]!.path, sql: 'SELECT a FROM public.t' })).toMatchObject({ ok: true, result: { rows: [[1]] } });
    const admin = await adminClient(engine, built.snapshots[0]!.path);
    try {
      // The table went into public, the default schema: the role's search_path was reset before the build.
      expect((await admin.query("SELECT table_schema FROM information_schema.tables WHERE table_name = 't'")).rows).toEqual([{ table_schema: 'public' }]);
    } finally {
      await admin.end();
    }
  });
});

describe('a script that runs forever or grows without end', () => {
  it.each([
    ['an endless query', 'CREATE TABLE t (a int);\nSELECT count(*) FROM generate_series(1, 1000000000000);\n', 2],
    ['an endless loop in a DO block', 'CREATE TABLE t (a int);\n\nDO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$;\n', 3],
    ['a trigger that never ends', 'CREATE TABLE t (a int);\nCREATE FUNCTION spin() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN LOOP PERFORM 1; END LOOP; END $$;\nCREATE TRIGGER spin AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION spin();\nINSERT INTO t VALUES (1);\n', 4],
  ])('%s: stopped at the deadline, naming the line, nothing left on the server', async (_label, script, line) => {
    const before = await serverState();
    const dir = hostile('endless', script);
    await expect(resolveFixture('endless', { fixturesDir: dir, postgres: () => engine, build: { timeoutMs: 1_500, maxDatabaseBytes: 2 ** 40 } })).rejects.toThrow(
      `${path.join(dir, 'endless', 's.sql')}:${line}: building fixture endless, snapshot "base": the script ran past its deadline of 1500 ms and was stopped (timeoutMs: fixtures build --timeout-ms, or TEXT2SQL_LADDER_BUILD_TIMEOUT_MS, raises it)`,
    );
    expect(await serverState()).toEqual(before);
  });

  it('a huge INSERT: stopped at the size cap, nothing left on the server', async () => {
    const before = await serverState();
    const dir = hostile('huge', "CREATE TABLE t (a text);\nINSERT INTO t SELECT repeat('x', 2000) || g FROM generate_series(1, 100000000) g;\n");
    await expect(resolveFixture('huge', { fixturesDir: dir, postgres: () => engine, build: { timeoutMs: 600_000, maxDatabaseBytes: 32 * 2 ** 20 } })).rejects.toThrow(
      new RegExp(`^${path.join(dir, 'huge', 's.sql').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2: snapshot "base" of fixture huge grew past the size cap of 33554432 bytes \\((the database held \\d+|a statement's temporary files reached it)\\) and was stopped`),
    );
    expect(await serverState()).toEqual(before);
    // The next build is normal.
    const ok = hostile('normal', 'CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);\n');
    expect((await resolveFixture('normal', { fixturesDir: ok, postgres: () => engine })).snapshots).toHaveLength(1);
  });
});
