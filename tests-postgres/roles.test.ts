/**
 * Roles and row-level security on a real server (docs/engine.md, "Roles and row-level
 * security"): each fact the design rests on, the warehouse twin's roles as the engine runs them,
 * L2's `not visible to role`, and escape attempts with the static checks off.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/engine.js';
import type { PgServer } from '../src/engine/postgres/pg-server.js';
import { connect } from '../src/engine/postgres/pg-server.js';
import type { ResolvedFixture } from '../src/fixtures/registry.js';
import { runGates } from '../src/rungs/gates.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { fixturesDir, serverDir } from './helpers.js';

const bundledFixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const runtime = createLadderRuntime({ postgres: { cacheDir: serverDir, poolSize: 2 }, fixtures: { fixturesDir } });
const where = { fixturesDir: bundledFixtures };
let full: ResolvedFixture;
let emea: ResolvedFixture;
let apac: ResolvedFixture;
let engine: Engine;
let server: PgServer;
beforeAll(async () => {
  full = await runtime.resolveFixture('warehouse_pg', undefined, where);
  emea = await runtime.resolveFixture('warehouse_pg', 'support_emea', where);
  apac = await runtime.resolveFixture('warehouse_pg', 'support_apac', where);
  engine = await runtime.postgresEngine();
  server = await (await runtime.postgresEngine()).server();
});
afterAll(() => runtime.close());

const id = pg.escapeIdentifier;
const EMEA = 'ladder_warehouse_pg_r_support_emea';
const APAC = 'ladder_warehouse_pg_r_support_apac';

/** The single cell of a one-row, one-column result, or the error code and message. */
async function cell(db: string, sql: string): Promise<unknown> {
  const outcome = await engine.execute({ db, sql });
  return outcome.ok ? outcome.result.rows[0]?.[0] : `${outcome.error.code}: ${outcome.error.message}`;
}


/**
 * A session as the fixture's owner role in a finished database: the owner role may not connect to
 * one (the admin owns it), so the admin connects and switches to it.
 */
async function asOwner(database: string): Promise<pg.Client> {
  const client = await connect(server, 'admin', database);
  await client.query(`SET ROLE ${id(server.roles.owner)}`);
  return client;
}
/** Runs `body` on a client of `role` (a login made for the test) on the base database, then drops the login. */
async function asLogin<T>(login: string, attributes: string, memberOf: readonly string[], body: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = await connect(server, 'admin', server.adminDatabase);
  try {
    await admin.query(`DROP ROLE IF EXISTS ${id(login)}`);
    await admin.query(`CREATE ROLE ${id(login)} LOGIN ${attributes}`);
    for (const role of memberOf) await admin.query(`GRANT ${id(role)} TO ${id(login)}`);
    await admin.query(`GRANT CONNECT ON DATABASE ${id(full.snapshots[0]!.path)} TO ${id(login)}`);
    const client = new pg.Client({ ...server.config('reader', full.snapshots[0]!.path), user: login });
    await client.connect();
    try {
      return await body(client);
    } finally {
      await client.end();
    }
  } finally {
    await admin.query(`REVOKE CONNECT ON DATABASE ${id(full.snapshots[0]!.path)} FROM ${id(login)}`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${id(login)}`).catch(() => undefined);
    await admin.end();
  }
}

describe('the build: namespaced roles, grants, FORCE ROW LEVEL SECURITY, invoker views', () => {
  it('creates non-login roles named by the fixture, the reader a NOINHERIT member of each', async () => {
    const admin = await connect(server, 'admin', server.adminDatabase);
    try {
      const rows = (await admin.query("SELECT rolname, rolcanlogin, rolinherit, rolbypassrls FROM pg_roles WHERE rolname LIKE 'ladder\\_warehouse\\_pg\\_%' ORDER BY 1")).rows;
      expect(rows.map((row) => row.rolname)).toEqual(['ladder_warehouse_pg_allrows', 'ladder_warehouse_pg_r_analyst', 'ladder_warehouse_pg_r_finance', 'ladder_warehouse_pg_r_support', APAC, EMEA]);
      expect(rows.every((row) => row.rolcanlogin === false && row.rolbypassrls === false)).toBe(true);
      const reader = (await admin.query("SELECT rolinherit, array(SELECT b.rolname::text FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid WHERE m.member = r.oid ORDER BY 1) AS member_of FROM pg_roles r WHERE rolname = 'ladder_reader'")).rows[0];
      expect(reader).toEqual({ rolinherit: false, member_of: rows.map((row) => row.rolname) });
    } finally {
      await admin.end();
    }
    const owner = await asOwner(full.snapshots[0]!.path);
    try {
      const tables = (await owner.query("SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname IN ('customers', 'orders', 'users', 'products') ORDER BY 1")).rows;
      expect(tables).toEqual([
        { relname: 'customers', relrowsecurity: true, relforcerowsecurity: true },
        { relname: 'orders', relrowsecurity: true, relforcerowsecurity: true },
        { relname: 'products', relrowsecurity: false, relforcerowsecurity: false },
        { relname: 'users', relrowsecurity: true, relforcerowsecurity: true },
      ]);
      const views = (await owner.query("SELECT relname, reloptions FROM pg_class WHERE relkind = 'v' AND relnamespace = 'public'::regnamespace ORDER BY 1")).rows;
      expect(views.length).toBe(3);
      expect(views.every((view) => (view.reloptions as string[]).includes('security_invoker=true'))).toBe(true);
      // FORCE: the owner itself sees no customer (no policy admits it).
      expect((await owner.query('SELECT count(*)::int AS n FROM customers')).rows[0]).toEqual({ n: 0 });
    } finally {
      await owner.end();
    }
  });

  it('gives the same item different rows as different roles, one database for all', async () => {
    expect(emea.snapshots[0]!.path).toBe(`${full.snapshots[0]!.path}#role=${EMEA}`);
    expect(new Set([full, emea, apac].map((f) => f.snapshots[0]!.checksum)).size).toBe(3);
    expect(await cell(full.snapshots[0]!.path, 'SELECT count(*) FROM customers')).toBe(30);
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(*) FROM customers')).toBe(9);
    expect(await cell(apac.snapshots[0]!.path, 'SELECT count(*) FROM customers')).toBe(7);
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(*) FROM orders')).toBe(409);
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(*) FROM v_real_customers WHERE region_id <> 2')).toBe(0);
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(full_name) FROM users')).toBe(10);
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(email) FROM users')).toBe('permission_denied: permission denied for table users');
    expect(await cell(emea.snapshots[0]!.path, 'SELECT count(*) FROM refunds')).toBe('permission_denied: permission denied for table refunds');
    expect(await cell(emea.snapshots[0]!.path, "SELECT current_user || ' ' || session_user")).toBe(`${EMEA} ladder_reader`);
  });
});

describe('L2: the role\'s catalog', () => {
  it('fails a table or column outside the role as not visible to it, not as missing', async () => {
    const gates = async (sql: string): Promise<string> => {
      const run = await runGates({ sql, dialect: 'postgres', engine, db: emea.snapshots[0]!.path });
      return `${run.syntax.status} | ${run.schema.status}: ${run.schema.reason}`;
    };
    expect(await gates('SELECT email FROM users')).toBe('pass | fail: column email is not visible to role support_emea at 1:8');
    expect(await gates('SELECT sum(amount) FROM refunds')).toBe('pass | fail: table refunds is not visible to role support_emea at 1:25');
    expect(await gates('SELECT emial FROM users')).toMatch(/^pass \| fail: no such column: emial/);
    expect(await gates('SELECT full_name FROM users')).toMatch(/^pass \| pass/);
  });
});

describe('escape attempts, with the static checks off: no row or column outside the role', () => {
  it.each([
    ['SET ROLE', 'SET ROLE ladder_reader'],
    ['RESET ROLE', 'RESET ROLE'],
    ['SET SESSION AUTHORIZATION', 'SET SESSION AUTHORIZATION ladder_owner'],
    ['set_config then a second statement', "SELECT set_config('role', 'ladder_reader', true); SELECT count(*) FROM customers"],
    ['set_config inside the statement', "SELECT set_config('role', 'ladder_reader', true), (SELECT count(*) FROM customers)"],
    ['set_config of row_security', "SELECT set_config('row_security', 'off', true), (SELECT count(*) FROM customers)"],
    ['pg_authid', 'SELECT count(*) FROM pg_authid'],
    ['current_setting', "SELECT count(*) FROM customers WHERE current_setting('role') <> 'none' OR current_setting('is_superuser') = 'on'"],
    ['another role of the fixture by name', `SELECT count(*) FROM customers WHERE pg_has_role('${APAC}', 'MEMBER')`],
  ])('%s', async (_, sql) => {
    const outcome = await engine.execute({ db: emea.snapshots[0]!.path, sql });
    if (outcome.ok) {
      // What it may return is the role's own rows: never more than EMEA's 9 customers.
      for (const row of outcome.result.rows) for (const value of row) if (typeof value === 'number') expect(value).toBeLessThanOrEqual(9);
    } else {
      expect(['not_a_query', 'multiple_statements', 'permission_denied', 'query_error']).toContain(outcome.error.code);
    }
  });

  it('a SECURITY DEFINER function sees no row: under FORCE the owner has no policy', async () => {
    const owner = await connect(server, 'admin', full.snapshots[0]!.path);
    try {
      // Read as the owner would run them; not created in the fixture (that would change its checksum).
      // The owner has no TEMP right on a finished database: granted inside the rolled-back transaction.
      await owner.query('BEGIN');
      await owner.query(`GRANT TEMP ON DATABASE ${id(full.snapshots[0]!.path)} TO ${id(server.roles.owner)}`);
      await owner.query(`SET LOCAL ROLE ${id(server.roles.owner)}`);
      await owner.query('CREATE FUNCTION pg_temp.all_customers() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS $$ SELECT count(*) FROM public.customers $$');
      expect((await owner.query('SELECT pg_temp.all_customers()::int AS n')).rows[0]).toEqual({ n: 0 });
    } finally {
      await owner.query('ROLLBACK');
      await owner.end();
    }
  });
});

describe('facts of PostgreSQL 15 the design rests on', () => {
  it('an INHERIT login in two item roles sees the union of their rows; a NOINHERIT login is denied', async () => {
    const union = await asLogin('t_inherit', 'INHERIT', [EMEA, APAC], async (client) => (await client.query('SELECT count(*)::int AS n FROM customers')).rows[0]);
    expect(union).toEqual({ n: 16 });
    const denied = await asLogin('t_noinherit', 'NOINHERIT', [EMEA, APAC], async (client) => client.query('SELECT count(*) FROM customers').then(() => 'read', (error: Error) => error.message));
    expect(denied).toBe('permission denied for table customers');
  });

  it("set_config('role', …, true) leaves its own statement as it was and switches the next one", async () => {
    const counts = await asLogin('t_setconfig', 'NOINHERIT', [EMEA, 'ladder_warehouse_pg_r_finance'], async (client) => {
      await client.query(`BEGIN; SET LOCAL ROLE ${id(EMEA)}`);
      const first = (await client.query("SELECT set_config('role', 'ladder_warehouse_pg_r_finance', true), (SELECT count(*)::int FROM customers) AS n")).rows[0].n as number;
      const second = (await client.query('SELECT count(*)::int AS n FROM customers')).rows[0].n as number;
      await client.query('ROLLBACK');
      return [first, second];
    });
    expect(counts).toEqual([9, 30]);
    // The engine refuses such a statement: it changed the role setting.
    expect(await cell(emea.snapshots[0]!.path, "SELECT set_config('role', 'ladder_warehouse_pg_r_finance', true)")).toMatch(/^not_a_query: .*session setting role/);
  });

  it("an item role's own ALTER ROLE … SET values are not applied after SET ROLE", async () => {
    const admin = await connect(server, 'admin', server.adminDatabase);
    try {
      await admin.query(`ALTER ROLE ${id(EMEA)} SET work_mem = '77MB'`);
      expect(await cell(emea.snapshots[0]!.path, "SELECT current_setting('work_mem')")).not.toBe('77MB');
    } finally {
      await admin.query(`ALTER ROLE ${id(EMEA)} RESET work_mem`);
      await admin.end();
    }
  });

  it('under FORCE ROW LEVEL SECURITY, row_security = off raises an error instead of bypassing', async () => {
    const owner = await asOwner(full.snapshots[0]!.path);
    try {
      await owner.query('SET row_security = off');
      await expect(owner.query('SELECT count(*) FROM customers')).rejects.toThrow('query would be affected by row-level security policy for table "customers"');
    } finally {
      await owner.end();
    }
  });

  it('a definer view filters by its owner (0 rows under FORCE), an invoker view by the reader', async () => {
    const owner = await connect(server, 'admin', full.snapshots[0]!.path);
    try {
      // The finished database is the admin's, so its public schema too: the owner role may create
      // there only while this test lends it the right.
      await owner.query('BEGIN');
      await owner.query(`GRANT CREATE ON SCHEMA public TO ${id(server.roles.owner)}`);
      await owner.query(`SET LOCAL ROLE ${id(server.roles.owner)}`);
      await owner.query('CREATE VIEW definer_customers AS SELECT customer_id FROM customers');
      await owner.query('CREATE VIEW invoker_customers WITH (security_invoker = true) AS SELECT customer_id FROM customers');
      await owner.query(`GRANT SELECT ON definer_customers, invoker_customers TO ${id(EMEA)}`);
      // The owner may not SET ROLE; the reader's session is elsewhere: read as the role through a login made for it.
      await owner.query('COMMIT');
      const counts = await asLogin('t_views', 'NOINHERIT', [EMEA], async (client) => {
        await client.query(`BEGIN; SET LOCAL ROLE ${id(EMEA)}`);
        const definer = (await client.query('SELECT count(*)::int AS n FROM definer_customers')).rows[0].n as number;
        const invoker = (await client.query('SELECT count(*)::int AS n FROM invoker_customers')).rows[0].n as number;
        await client.query('ROLLBACK');
        return [definer, invoker];
      });
      expect(counts).toEqual([0, 9]);
    } finally {
      await owner.query('DROP VIEW IF EXISTS definer_customers, invoker_customers').catch(() => undefined);
      await owner.query(`REVOKE CREATE ON SCHEMA public FROM ${id(server.roles.owner)}`).catch(() => undefined);
      await owner.end();
    }
  });

  it('roles are cluster-wide: two fixtures declaring finance, and a user role finance, never meet', async () => {
    const admin = await connect(server, 'admin', server.adminDatabase);
    try {
      await admin.query('DROP ROLE IF EXISTS finance');
      await admin.query('CREATE ROLE finance NOLOGIN');
      const names = (await admin.query("SELECT rolname FROM pg_roles WHERE rolname LIKE '%finance' ORDER BY 1")).rows.map((row) => row.rolname);
      expect(names).toEqual(['finance', 'ladder_warehouse_pg_r_finance']);
      const granted = (await admin.query("SELECT count(*)::int AS n FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = 'finance'")).rows[0];
      expect(granted).toEqual({ n: 0 });
    } finally {
      await admin.query('DROP ROLE IF EXISTS finance');
      await admin.end();
    }
  });
});
