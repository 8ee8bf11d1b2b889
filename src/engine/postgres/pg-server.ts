/**
 * The server an engine talks to and the roles it uses there:
 * - `admin`: creates and drops the ladder's databases (the private server's bootstrap superuser,
 *   or the URL's role in `scratch` mode). Never runs a statement of a fixture or a model.
 * - `owner` (`ladder_owner`): owns the fixture databases and runs their scripts. Not a superuser,
 *   so a script cannot run `COPY … TO PROGRAM` as the server.
 * - `reader` (`ladder_reader`): the login every prediction and gold runs as. Owns nothing, holds
 *   only `SELECT` (granted per fixture database), NOINHERIT, not a superuser, no BYPASSRLS, no
 *   CREATEDB / CREATEROLE / REPLICATION; `temp_file_limit` set on the role (a superuser-only
 *   setting, so a statement cannot lift it).
 * In `existing` mode (a URL whose databases the user loaded) the URL's role is the reader, and it
 * is refused when it is a superuser or has BYPASSRLS.
 *
 * On a user's server the roles are namespaced by the URL's role (`ladder_<hash>_owner`) and get
 * random passwords kept in the cache folder (a file of mode 0600), so the ladder's roles never
 * collide with the user's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { shownUrl } from './postgres-url.js';
import { LadderError } from '../../errors.js';
import { findServerBinaries } from './pg-binaries.js';
import { ADMIN_ROLE, startPrivateServer, type PrivateServer } from './private-server.js';
import type { ResolvedPostgresEngineOptions } from './postgres-engine-options.js';

/** Which of the three roles a connection logs in as. */
export type ServerRole = 'admin' | 'owner' | 'reader';

/** The server an engine uses. */
export interface PgServer {
  readonly kind: 'private' | 'url';
  /** `server_version_num`, e.g. 150018. */
  readonly versionNum: number;
  /** Role names on the server. */
  readonly roles: Readonly<Record<ServerRole, string>>;
  /** True when the ladder may create and drop databases here (private server, URL in `scratch` mode). */
  readonly scratch: boolean;
  /** The database the admin connects to (`postgres`, or the URL's). */
  readonly adminDatabase: string;
  /** Connection settings for `role` on `database`. */
  config(role: ServerRole, database: string): pg.ClientConfig;
  /** Cold or warm start figures of a private server this process started; absent otherwise. */
  readonly start?: { readonly ms: number; readonly initialized: boolean; readonly started: boolean };
  /** Gives up the server (a private one stops when its last user goes). */
  release(): Promise<void>;
  /**
   * Private server only: starts it again when its postmaster is gone; `true` when it runs again
   * (see `PrivateServer.revive`).
   * @throws LadderError `engine_failure` when it cannot be started again.
   */
  revive?(): Promise<boolean>;
}

/** Connects as `role` to `database`; the caller ends the client. */
export async function connect(server: PgServer, role: ServerRole, database: string): Promise<pg.Client> {
  const client = new pg.Client(server.config(role, database));
  client.on('error', () => {
    // A broken connection is reported by the statement that used it; the pool drops it.
  });
  await client.connect();
  return client;
}

/** The roles' attributes: the boundary the issue of every statement relies on. */
function roleStatements(roles: Readonly<Record<ServerRole, string>>, options: ResolvedPostgresEngineOptions, superuser: boolean, passwords?: { owner: string; reader: string }): string[] {
  const id = (name: string): string => pg.escapeIdentifier(name);
  const password = (value: string | undefined): string => (value === undefined ? '' : ` PASSWORD ${pg.escapeLiteral(value)}`);
  const tempKiB = Math.max(1, Math.floor(options.tempFileLimitBytes / 1024));
  // Only a superuser may even say NOSUPERUSER / NOREPLICATION / NOBYPASSRLS (PostgreSQL 15); a role
  // made by CREATEROLE lacks them, and checkRoles verifies it.
  const privileged = superuser ? ' NOSUPERUSER NOREPLICATION NOBYPASSRLS' : '';
  return [
    `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${pg.escapeLiteral(roles.owner)}) THEN CREATE ROLE ${id(roles.owner)}; END IF; IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${pg.escapeLiteral(roles.reader)}) THEN CREATE ROLE ${id(roles.reader)}; END IF; END $$`,
    `ALTER ROLE ${id(roles.owner)} LOGIN NOCREATEDB NOCREATEROLE${privileged}${password(passwords?.owner)}`,
    `ALTER ROLE ${id(roles.reader)} LOGIN NOCREATEDB NOCREATEROLE NOINHERIT${privileged}${password(passwords?.reader)}`,
    ...(superuser ? [`ALTER ROLE ${id(roles.reader)} SET temp_file_limit = '${tempKiB}kB'`] : []),
    `ALTER ROLE ${id(roles.reader)} SET idle_in_transaction_session_timeout = '60s'`,
  ];
}

/** The private server's connection settings: the socket, no password. */
function privateConfig(server: PrivateServer, roles: Readonly<Record<ServerRole, string>>): (role: ServerRole, database: string) => pg.ClientConfig {
  return (role, database) => ({ host: server.socketDir, port: server.port, user: roles[role], database, application_name: 'text2sql-ladder' });
}

/**
 * Starts the private server (or joins one) and makes sure the ladder's roles are as the module doc
 * says. The figures of a start this process made are in `start`.
 * @throws LadderError `engine_failure` from the server's start (binaries, root, folders).
 */
async function privateServer(options: ResolvedPostgresEngineOptions): Promise<PgServer> {
  const binaries = findServerBinaries(options.binDir);
  const server = await startPrivateServer({ cacheDir: options.cacheDir, binaries, maxMemoryBytes: options.maxMemoryBytes, ...(options.serverUser === undefined ? {} : { serverUser: options.serverUser }) });
  const roles = { admin: ADMIN_ROLE, owner: 'ladder_owner', reader: 'ladder_reader' } as const;
  const config = privateConfig(server, roles);
  try {
    const admin = new pg.Client(config('admin', 'postgres'));
    await admin.connect();
    try {
      for (const statement of roleStatements(roles, options, true)) await admin.query(statement);
      const version = Number((await admin.query<{ v: string }>('SELECT current_setting(\'server_version_num\') AS v')).rows[0]!.v);
      return {
        kind: 'private',
        versionNum: version,
        roles,
        scratch: true,
        adminDatabase: 'postgres',
        config,
        start: { ms: server.startMs, initialized: server.initialized, started: server.started },
        release: () => server.release(),
        revive: () => server.revive(),
      };
    } finally {
      await admin.end();
    }
  } catch (error) {
    await server.release();
    throw error instanceof LadderError ? error : new LadderError('engine_failure', `the private PostgreSQL server in ${server.dataDir} does not answer: ${(error as Error).message}`, { cause: error });
  }
}

/** Passwords of the ladder's roles on a user's server, kept in the cache folder (mode 0600). */
function rolePasswords(cacheDir: string, key: string): { owner: string; reader: string } {
  const file = path.join(cacheDir, 'url-roles', `${key}.json`);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { owner?: unknown; reader?: unknown };
    if (typeof saved.owner === 'string' && typeof saved.reader === 'string') return { owner: saved.owner, reader: saved.reader };
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fresh = { owner: randomBytes(24).toString('base64url'), reader: randomBytes(24).toString('base64url') };
  writeFileSync(file, JSON.stringify(fresh), { mode: 0o600 });
  return fresh;
}

/** A URL's parts, and the URL without its password for messages. */
function describeUrl(url: string): { config: pg.ClientConfig; shown: string } {
  const parsed = new URL(url);
  const shown = shownUrl(url);
  const sslmode = parsed.searchParams.get('sslmode');
  const socketHost = parsed.searchParams.get('host');
  const config: pg.ClientConfig = {
    host: parsed.hostname !== '' ? decodeURIComponent(parsed.hostname) : (socketHost ?? 'localhost'),
    port: parsed.port === '' ? 5432 : Number(parsed.port),
    ...(parsed.username === '' ? {} : { user: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    database: parsed.pathname.length > 1 ? decodeURIComponent(parsed.pathname.slice(1)) : 'postgres',
    ...(sslmode === 'require' || sslmode === 'verify-ca' || sslmode === 'verify-full' ? { ssl: { rejectUnauthorized: sslmode !== 'require' } } : {}),
    application_name: 'text2sql-ladder',
  };
  return { config, shown };
}

/**
 * The user's server by URL. `scratch`: the URL's role needs CREATEDB and CREATEROLE (the ladder
 * creates its namespaced owner and reader roles and its databases); `existing`: the URL's role is
 * the reader and must not be a superuser or have BYPASSRLS.
 * @throws LadderError `engine_failure` when the server cannot be reached (the URL shown without its
 *   password); `invalid_option` for a role that lacks what the mode needs, or a superuser in
 *   `existing` mode, or a server older than 15.
 */
async function urlServer(options: ResolvedPostgresEngineOptions): Promise<PgServer> {
  const { config: base, shown } = describeUrl(options.url!);
  const client = new pg.Client(base);
  try {
    await client.connect();
  } catch (error) {
    throw new LadderError('engine_failure', `cannot connect to the PostgreSQL server at ${shown}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const facts = (
      await client.query<{ v: string; su: boolean; bypass: boolean; createdb: boolean; createrole: boolean; login: string; db: string }>(
        "SELECT current_setting('server_version_num') AS v, rolsuper AS su, rolbypassrls AS bypass, rolcreatedb AS createdb, rolcreaterole AS createrole, current_user AS login, current_database() AS db FROM pg_roles WHERE rolname = current_user",
      )
    ).rows[0]!;
    const versionNum = Number(facts.v);
    if (versionNum < 150000) throw new LadderError('invalid_option', `the PostgreSQL server at ${shown} is version ${Math.floor(versionNum / 10000)}; the engine needs 15 or newer`);
    if (options.databases === 'existing') {
      if (facts.su || facts.bypass) {
        throw new LadderError(
          'invalid_option',
          `postgres.url connects as ${facts.login}, a ${facts.su ? 'superuser' : 'role with BYPASSRLS'}: predictions never run as one (a superuser can read files and run programs as the server); give the URL of a role that can only read (docs/engine.md, "Your own server")`,
        );
      }
      const roles = { admin: facts.login, owner: facts.login, reader: facts.login } as const;
      return { kind: 'url', versionNum, roles, scratch: false, adminDatabase: facts.db, config: (_role, database) => ({ ...base, database }), release: async () => {} };
    }
    if (!facts.su && (!facts.createdb || !facts.createrole)) {
      throw new LadderError(
        'invalid_option',
        `postgres.url connects as ${facts.login}, which lacks ${[facts.createdb ? '' : 'CREATEDB', facts.createrole ? '' : 'CREATEROLE'].filter(Boolean).join(' and ')}: the ladder creates its own databases and roles there (ALTER ROLE ${facts.login} CREATEDB CREATEROLE), or use databases: 'existing' to only read databases you loaded`,
      );
    }
    const key = createHash('sha256').update(`${new URL(options.url!).host}\u0000${facts.login}`).digest('hex').slice(0, 10);
    const roles = { admin: facts.login, owner: `ladder_${key}_owner`, reader: `ladder_${key}_reader` } as const;
    const passwords = rolePasswords(options.cacheDir, key);
    for (const statement of roleStatements(roles, options, facts.su, passwords)) await client.query(statement);
    const unsafe = (
      await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY ($1) AND (rolsuper OR rolbypassrls OR rolreplication)', [[roles.owner, roles.reader]])
    ).rows;
    if (unsafe.length > 0) {
      throw new LadderError('invalid_option', `the ladder's role ${unsafe[0]!.rolname} on ${shown} is a superuser or has BYPASSRLS or REPLICATION (someone changed it); drop it (DROP ROLE after DROP OWNED) and the ladder creates it again`);
    }
    if (!facts.su) {
      // CREATEROLE alone grants no membership in the roles it creates (PostgreSQL 15); the admin
      // needs the owner's rights to drop the databases it owns.
      await client.query(`GRANT ${pg.escapeIdentifier(roles.owner)} TO ${pg.escapeIdentifier(facts.login)}`).catch(() => undefined);
    }
    return {
      kind: 'url',
      versionNum,
      roles,
      scratch: true,
      adminDatabase: facts.db,
      config: (role, database) => (role === 'admin' ? { ...base, database } : { ...base, database, user: roles[role], password: passwords[role] }),
      release: async () => {},
    };
  } finally {
    await client.end();
  }
}

/** The engine's server: the private one, or the user's by URL. */
export function openServer(options: ResolvedPostgresEngineOptions): Promise<PgServer> {
  return options.url === undefined ? privateServer(options) : urlServer(options);
}
