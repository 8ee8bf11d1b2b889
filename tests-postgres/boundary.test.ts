/**
 * The boundary is the database's own: each setting the engine pins is tried by a prediction that
 * lifts it, and the next statement on the same connection runs under the pinned value again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { CANCEL_GRACE_MS, type PostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { adminClient, fixturesDir, serverDir, testEngine } from './helpers.js';

// One connection, so a statement that lifted a setting and the next one share it.
const engine = testEngine({ poolSize: 1, timeoutMs: 1_000 });
afterAll(() => engine.close());
const run = (sql: string, extra: { maxRows?: number; timeoutMs?: number; db?: string } = {}) => engine.execute({ db: 'postgres', sql, ...extra });
const setting = async (name: string): Promise<unknown> => {
  const outcome = await run(`SELECT current_setting('${name}')`);
  return outcome.ok ? outcome.result.rows[0]![0] : outcome.error;
};

describe('the login role', () => {
  it('is no superuser, NOINHERIT, no BYPASSRLS, creates nothing, owns nothing, and has temp_file_limit set', async () => {
    await run('SELECT 1');
    const admin = await adminClient(engine);
    try {
      const role = (await admin.query("SELECT rolsuper, rolinherit, rolbypassrls, rolcreatedb, rolcreaterole, rolreplication, rolcanlogin, rolconfig FROM pg_roles WHERE rolname = 'ladder_reader'")).rows[0];
      expect(role).toEqual({
        rolsuper: false,
        rolinherit: false,
        rolbypassrls: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
        rolcanlogin: true,
        rolconfig: ['temp_file_limit=262144kB', 'idle_in_transaction_session_timeout=60s'],
      });
      const owned = (await admin.query("SELECT (SELECT count(*) FROM pg_database WHERE datdba = r.oid)::int + (SELECT count(*) FROM pg_class WHERE relowner = r.oid)::int + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid)::int AS n, (SELECT count(*) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND (g.rolcanlogin OR g.rolsuper OR g.rolbypassrls OR g.rolname !~ '^ladder_[a-z0-9_]+_(r_[a-z0-9_]+|allrows)$'))::int AS memberships FROM pg_roles r WHERE rolname = 'ladder_reader'")).rows[0];
      // Its only memberships are the fixtures' item roles (non-login, no BYPASSRLS), which it may
      // SET ROLE to but, being NOINHERIT, never draws rights from.
      expect(owned).toEqual({ n: 0, memberships: 0 });
    } finally {
      await admin.end();
    }
  });
});

describe('a prediction that lifts a pinned setting', () => {
  it.each([
    ['TimeZone', "'Asia/Tokyo'", 'UTC'],
    ['DateStyle', "'SQL, DMY'", 'ISO, YMD'],
    ['IntervalStyle', "'iso_8601'", 'postgres'],
    ['extra_float_digits', "'-15'", '3'],
    ['bytea_output', "'escape'", 'hex'],
    ['work_mem', "'4GB'", '16MB'],
    ['lock_timeout', "'0'", '1s'],
  ])('%s: is not a query, and the next statement runs under the pinned value', async (name, lifted, pinned) => {
    expect(await run(`SELECT set_config('${name}', ${lifted}, false)`)).toEqual({
      ok: false,
      error: { code: 'not_a_query', message: `not a query: the statement changed the session setting ${name} (set_config), which fixes how results print or how long a statement may run` },
    });
    expect(await setting(name)).toBe(pinned);
  });

  it('statement_timeout: the client-side cancel at the deadline stops a statement that switched the server timer off', async () => {
    // After its first 1 000 rows the statement has set statement_timeout to 0, and the server
    // re-arms its timer with that value on the next Execute: only the client's cancel can stop it.
    const pid = async (): Promise<unknown> => {
      const outcome = await run('SELECT pg_backend_pid()');
      return outcome.ok ? outcome.result.rows[0]![0] : outcome.error;
    };
    const backend = await pid();
    const started = performance.now();
    const outcome = await run("SELECT set_config('statement_timeout', '0', true) AS s, pg_sleep(CASE WHEN g > 1000 THEN 30 ELSE 0 END) FROM generate_series(1, 1200) g", { maxRows: 5_000 });
    const elapsed = performance.now() - started;
    expect(outcome).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 1000 ms passed; the server cancelled the statement', engineCode: '57014' } });
    expect(elapsed).toBeLessThan(1_000 + CANCEL_GRACE_MS);
    // The cancel request travels on a connection of its own and could reach the backend late, when
    // it runs the next statement: a connection a cancel was sent for is closed, never reused.
    expect(await pid()).not.toBe(backend);
    expect(await setting('statement_timeout')).toBe('1s');
  });

  it('temp_file_limit: a superuser-only setting, refused', async () => {
    expect(await run("SELECT set_config('temp_file_limit', '-1', true)")).toMatchObject({ ok: false, error: { code: 'permission_denied', engineCode: '42501' } });
    expect(await setting('temp_file_limit')).toBe('256MB');
  });

  it('read only: the transaction cannot be made read-write', async () => {
    expect(await run("SELECT set_config('transaction_read_only', 'off', true)")).toMatchObject({ ok: false });
    expect(await setting('transaction_read_only')).toBe('on');
  });

  it('role: cannot become another role', async () => {
    expect(await run("SELECT set_config('role', 'ladder_owner', true)")).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
    expect(await run("SELECT set_config('session_authorization', 'ladder_admin', true)")).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
    expect(await setting('role')).toBe('none');
  });

  it('advisory locks: released when the statement ends', async () => {
    expect(await run('SELECT pg_advisory_lock(42)')).toMatchObject({ ok: true });
    const admin = await adminClient(engine);
    try {
      expect((await admin.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'")).rows[0]).toEqual({ n: 0 });
    } finally {
      await admin.end();
    }
  });
});

describe('resource limits', () => {
  let small: PostgresEngine;
  beforeAll(() => {
    small = testEngine({ tempFileLimitBytes: 1024 * 1024, workMemBytes: 64 * 1024, poolSize: 1 });
  });
  afterAll(async () => {
    await small.close();
    // Back to the default limit for the other files' engines.
    await testEngine().close();
  });

  it('a sort that spills past temp_file_limit is memory_limit', async () => {
    expect(await small.execute({ db: 'postgres', sql: 'SELECT count(*) FROM (SELECT g FROM generate_series(1, 400000) g ORDER BY md5(g::text)) s' })).toMatchObject({
      ok: false,
      error: { code: 'memory_limit', engineCode: '53400', message: 'temporary file size exceeds temp_file_limit (1024kB)' },
    });
  });
});

describe('a connection that does not answer the cancel', () => {
  it('is terminated and replaced', async () => {
    const pidOutcome = await run('SELECT pg_backend_pid()');
    const backend = pidOutcome.ok ? (pidOutcome.result.rows[0]![0] as number) : 0;
    // The backend is stopped (SIGSTOP) while it sleeps: it can answer neither the server's timer
    // nor the cancel, so only closing the connection ends the statement for the engine.
    const pending = run('SELECT pg_sleep(5)', { timeoutMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(backend, 'SIGSTOP');
    try {
      expect(await pending).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 300 ms passed; the connection did not answer the cancel and was terminated', engineCode: '57014' } });
    } finally {
      process.kill(backend, 'SIGCONT');
    }
    const next = await run('SELECT pg_backend_pid()');
    expect(next.ok && next.result.rows[0]![0]).not.toBe(backend);
  });
});

describe('writes on a fixture', () => {
  it('are refused, and its checksum does not change', async () => {
    const runtime = createLadderRuntime({ postgres: { cacheDir: serverDir }, fixtures: { fixturesDir } });
    try {
      const fixture = await runtime.resolveFixture('pgshop');
      const fixtureEngine = await runtime.postgresEngine();
      const db = fixture.snapshots[0]!.path;
      for (const [sql, code] of [
        ['WITH d AS (DELETE FROM shop.orders RETURNING *) SELECT count(*) FROM d', 'not_a_query'],
        ['SELECT * FROM shop.orders FOR UPDATE', 'not_a_query'],
        ["SELECT lo_import('/etc/passwd')", 'permission_denied'],
        ["SELECT pg_read_file('/etc/passwd')", 'permission_denied'],
        // The reader's other statements are its own backends: it may not end them.
        ['SELECT pg_terminate_backend(pg_backend_pid())', 'permission_denied'],
        ['SELECT pg_cancel_backend(pg_backend_pid())', 'permission_denied'],
      ] as const) {
        expect(await fixtureEngine.execute({ db, sql }), sql).toMatchObject({ ok: false, error: { code } });
      }
      const admin = await adminClient(fixtureEngine, db);
      try {
        const { databaseChecksum } = await import('../src/engine/postgres/pg-checksum.js');
        expect(await databaseChecksum(admin)).toBe(fixture.snapshots[0]!.checksum);
      } finally {
        await admin.end();
      }
    } finally {
      await runtime.close();
    }
  });
});
