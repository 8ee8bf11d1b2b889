/**
 * Bad input on PostgreSQL through the front ends: no server reachable (an ERROR row in promptfoo,
 * exit 3 from the command line, a thrown engine failure in vitest, unscored items in spider, the
 * password never shown), a wrong password, a server older than the minimum, and a fixture script
 * that fails half-way (its file and line); each names the item or the command and the cause, and
 * nothing else of the run is lost.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../matchers/vitest.js';
import { closeMatcherEngine } from '../matchers/matcher-engine.js';
import { ladder } from '../assertions/ladder.js';
import type { AssertionContext } from '../src/promptfoo/adapter.js';
import { closeSharedEngine } from '../src/promptfoo/runtime.js';
import { runCheckCommand } from '../src/cli/check.js';
import { runSpiderCommand } from '../src/cli/spider.js';
import { createPostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { adminClient, testDir } from './helpers.js';

const UNREACHABLE = 'postgres://ladder:s3cret@127.0.0.1:1/postgres';
const dir = path.join(testDir, 'bad-input');
process.env['TEXT2SQL_LADDER_CACHE_DIR'] = path.join(dir, 'cache');

beforeAll(() => {
  rmSync(dir, { recursive: true, force: true });
  // A PostgreSQL fixture whose data script fails on its 3rd line.
  mkdirSync(path.join(dir, 'fixtures', 'broken', 'data'), { recursive: true });
  writeFileSync(path.join(dir, 'fixtures', 'broken', 'fixture.yaml'), 'name: broken\ndialect: postgres\nsnapshots:\n  base:\n    scripts: [schema.sql, data/base.sql]\n');
  writeFileSync(path.join(dir, 'fixtures', 'broken', 'schema.sql'), 'CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL);\n');
  writeFileSync(path.join(dir, 'fixtures', 'broken', 'data', 'base.sql'), "INSERT INTO t VALUES (1, 'one');\nINSERT INTO t VALUES (2, 'two');\nINSERT INTO t VALUES (3, NULL);\nINSERT INTO t VALUES (4, 'four');\n");
  mkdirSync(path.join(dir, 'spider', 'db', 'shop'), { recursive: true });
  writeFileSync(path.join(dir, 'spider', 'db', 'shop', 'shop.sql'), 'CREATE TABLE t (id int);\n');
  writeFileSync(path.join(dir, 'spider', 'gold.sql'), 'SELECT count(*) FROM t\tshop\n');
  writeFileSync(path.join(dir, 'spider', 'pred.sql'), 'SELECT count(*) FROM t\n');
});
afterAll(async () => {
  await closeSharedEngine();
  await closeMatcherEngine();
  rmSync(dir, { recursive: true, force: true });
});

function context(db: string, config: Record<string, unknown>): AssertionContext {
  return {
    vars: { id: 'bad-1', question: 'How many?', db, expected_behavior: 'answer', gold_sql: ['SELECT count(*) FROM t'] },
    test: { metadata: { id: 'bad-1', source: 'datasets/bad.yaml:3' } },
    config: { fixturesDir: path.join(dir, 'fixtures'), ...config },
    providerResponse: { metadata: {} },
  };
}

describe('a fixture script that fails half-way', () => {
  it('is an ERROR row naming the script, its line and the cause (promptfoo)', async () => {
    await expect(ladder('SELECT count(*) FROM t', context('broken', {}))).rejects.toThrow(
      `${path.join(dir, 'fixtures', 'broken', 'data', 'base.sql')}:3: fails while building snapshot "base" of fixture broken: null value in column "label" of relation "t" violates not-null constraint (in assertions/ladder.ts:ladder)`,
    );
  });
});

describe('no server reachable', () => {
  it('promptfoo: an ERROR row naming the server without its password, not a failing answer', async () => {
    // The process's runtime starts over on another server (one server per run).
    await closeSharedEngine();
    const error = await ladder('SELECT 1', context('broken', { postgres: { url: UNREACHABLE } })).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot connect to the PostgreSQL server at postgres:\/\/ladder@127\.0\.0\.1:1\/postgres: connect ECONNREFUSED 127\.0\.0\.1:1 \(in assertions\/ladder\.ts:ladder\)$/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('check: exit 3 and one line', async () => {
    let err = '';
    const code = await runCheckCommand({ db: 'postgres://ladder:s3cret@127.0.0.1:1/shop', json: false }, { stdin: async () => 'SELECT 1', stdout: { write: () => undefined }, stderr: { write: (text: string) => (err += text) } });
    expect([code, err]).toEqual([3, 'error: cannot connect to the PostgreSQL server at postgres://ladder@127.0.0.1:1/shop: connect ECONNREFUSED 127.0.0.1:1\n']);
  });

  it('vitest: the matcher throws the engine failure (the test errors, it does not fail on the SQL)', async () => {
    await expect(expect('SELECT 1').toBeValidSql({ dialect: 'postgres', db: 'postgres://ladder:s3cret@127.0.0.1:1/shop' })).rejects.toThrow(
      /^cannot connect to the PostgreSQL server at postgres:\/\/ladder@127\.0\.0\.1:1\/shop: connect ECONNREFUSED/,
    );
  });

  it('spider: each item of the database is errored (the machine failed: in no rate) and the run exits 3', async () => {
    let err = '';
    let out = '';
    const spider = path.join(dir, 'spider');
    const code = await runSpiderCommand(
      { gold: path.join(spider, 'gold.sql'), pred: path.join(spider, 'pred.sql'), db: path.join(spider, 'db'), dialect: 'postgres', postgresUrl: UNREACHABLE, preset: 'default', keepDistinct: false },
      { stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) } },
    );
    expect(code).toBe(3);
    expect(err).toBe(
      'item 0 (shop): not graded, the machine failed: cannot connect to the PostgreSQL server at postgres://ladder@127.0.0.1:1/postgres: connect ECONNREFUSED 127.0.0.1:1\n' +
        'error: incomplete run: 1 of 1 items errored (not graded, in no rate; listed above)\n',
    );
    expect(out).toContain('scored 0 of 1');
  });
});

describe('a server that refuses the ladder', () => {
  // A server of this file's own: its pg_hba.conf asks one role for a password.
  const engine = createPostgresEngine({ cacheDir: path.join(dir, 'auth-server'), poolSize: 1, timeoutMs: 5_000 });
  let socket = '';
  const urlOf = (credentials: string, database = 'postgres'): string => `postgres://${credentials}@${encodeURIComponent(socket)}/${database}`;

  beforeAll(async () => {
    const server = await engine.server();
    socket = String(server.config('admin', 'postgres').host);
    const hba = path.join(dir, 'auth-server', '15', 'data', 'pg_hba.conf');
    writeFileSync(hba, `local all pw_user scram-sha-256\n${readFileSync(hba, 'utf8')}`);
    const admin = await adminClient(engine);
    try {
      await admin.query("CREATE ROLE pw_user LOGIN CREATEDB CREATEROLE PASSWORD 'right-horse'");
      // What a PostgreSQL 14 server answers: its version read through a search_path the role sets.
      await admin.query('CREATE ROLE old_server LOGIN CREATEDB CREATEROLE');
      await admin.query('CREATE SCHEMA fake AUTHORIZATION old_server');
      await admin.query("CREATE FUNCTION fake.current_setting(text) RETURNS text LANGUAGE sql AS $$ SELECT CASE WHEN $1 = 'server_version_num' THEN '140012' ELSE pg_catalog.current_setting($1) END $$");
      await admin.query('ALTER ROLE old_server SET search_path = fake, pg_catalog');
      await admin.query('SELECT pg_reload_conf()');
    } finally {
      await admin.end();
    }
  });
  afterAll(() => engine.close());

  it('a wrong password: exit 3 and one line, an ERROR row in promptfoo; the password never shown', async () => {
    let err = '';
    const code = await runCheckCommand({ db: urlOf('pw_user:wrong-horse'), json: false }, { stdin: async () => 'SELECT 1', stdout: { write: () => undefined }, stderr: { write: (text: string) => (err += text) } });
    expect([code, err]).toEqual([3, `error: cannot connect to the PostgreSQL server at postgres://pw_user@${encodeURIComponent(socket)}/postgres: password authentication failed for user "pw_user"\n`]);
    await closeSharedEngine();
    const error = await ladder('SELECT 1', context('broken', { postgres: { url: urlOf('pw_user:wrong-horse') } })).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).toBe(`cannot connect to the PostgreSQL server at postgres://pw_user@${encodeURIComponent(socket)}/postgres: password authentication failed for user "pw_user" (in assertions/ladder.ts:ladder)`);
    await closeSharedEngine();
  });

  it('a server older than PostgreSQL 15: refused with its version (misuse: exit 2), before anything is created', async () => {
    let err = '';
    const code = await runCheckCommand({ db: 'warehouse_pg', postgresUrl: urlOf('old_server'), json: false }, { stdin: async () => 'SELECT 1', stdout: { write: () => undefined }, stderr: { write: (text: string) => (err += text) } });
    expect([code, err]).toEqual([2, `error: the PostgreSQL server at postgres://old_server@${encodeURIComponent(socket)}/postgres is version 14; the engine needs 15 or newer\n`]);
    const admin = await adminClient(engine);
    try {
      expect((await admin.query("SELECT count(*)::int AS n FROM pg_roles WHERE rolname LIKE 'ladder\\_%\\_owner'")).rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
  });
});
