/**
 * Options of `createPostgresEngine` and of each request, read with the library's one option reader
 * (src/options.ts): apply defaults, validate, interpret. Every misuse throws
 * `LadderError('invalid_option')` naming the option, what was expected and what was received.
 */
import { splitDatabaseRef } from './role-ref.js';
import os from 'node:os';
import path from 'node:path';
import { optionReader } from '../../options.js';
import type { DoubleQuoteMode } from '../engine.js';

/** Options of `createPostgresEngine`. Every field is optional. */
export interface PostgresEngineOptions {
  /**
   * The user's own server, `postgres://user:password@host:port/database` (the database is where
   * the ladder connects to manage its own). Absent: a private server is started for the run. Never
   * read from `DATABASE_URL`. Its role may not be a superuser when `databases` is `existing`.
   */
  readonly url?: string;
  /**
   * With `url`: `scratch` (default) — the ladder creates and drops only its own databases and
   * roles (names starting `ladder_`); `existing` — it only reads databases the user loaded, as the
   * URL's role.
   */
  readonly databases?: 'scratch' | 'existing';
  /** Folder of the private server (one subfolder per major version). Default: `$TEXT2SQL_LADDER_CACHE_DIR/postgres`, else a per-user cache folder. */
  readonly cacheDir?: string;
  /** Folder of the server programs (`initdb`, `postgres`); default: found (pg-binaries.ts). */
  readonly binDir?: string;
  /** As root: the unprivileged user the private server runs as (default `postgres`). */
  readonly serverUser?: string;
  /** Most connections open at once (statements in flight). Integer 1 … 256. Default: `os.availableParallelism()`. */
  readonly poolSize?: number;
  /** Default deadline per statement, ms (`statement_timeout` and a client-side cancel). Default 10 000. */
  readonly timeoutMs?: number;
  /** Default row cap. Default 100 000. */
  readonly maxRows?: number;
  /** Largest result one statement may bring back, bytes (8 per cell plus 2 per character). Default 64 MiB. */
  readonly maxResultBytes?: number;
  /** Private server: data-segment limit of each server process (RLIMIT_DATA), bytes. Default 512 MiB; at least 64 MiB. */
  readonly maxMemoryBytes?: number;
  /** `work_mem` of each statement, bytes (set with `SET LOCAL`). Default 16 MiB. */
  readonly workMemBytes?: number;
  /** `temp_file_limit` of the ladder's login role, bytes (needs a superuser: the private server, or a superuser URL in `scratch` mode). Default 256 MiB. */
  readonly tempFileLimitBytes?: number;
}

/** {@link PostgresEngineOptions} with every default applied. */
export interface ResolvedPostgresEngineOptions {
  readonly url: string | undefined;
  readonly databases: 'scratch' | 'existing';
  readonly cacheDir: string;
  readonly binDir: string | undefined;
  readonly serverUser: string | undefined;
  readonly poolSize: number;
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxResultBytes: number;
  readonly maxMemoryBytes: number;
  readonly workMemBytes: number;
  readonly tempFileLimitBytes: number;
}

/** A request after validation. */
export interface ResolvedPostgresRequest {
  /** The database name (without a `#role=` part). */
  readonly db: string;
  /** The server role every statement runs as (`SET LOCAL ROLE`), from a `<database>#role=<role>` reference. */
  readonly role?: string;
  readonly sql: string;
  readonly timeoutMs: number;
  readonly maxRows: number;
}

/** Defaults of {@link PostgresEngineOptions} other than `poolSize` and `cacheDir`. */
export const POSTGRES_ENGINE_DEFAULTS = {
  timeoutMs: 10_000,
  maxRows: 100_000,
  maxResultBytes: 64 * 2 ** 20,
  maxMemoryBytes: 512 * 2 ** 20,
  workMemBytes: 16 * 2 ** 20,
  tempFileLimitBytes: 256 * 2 ** 20,
} as const;

const OPTION_NAMES = ['url', 'databases', 'cacheDir', 'binDir', 'serverUser', 'poolSize', 'timeoutMs', 'maxRows', 'maxResultBytes', 'maxMemoryBytes', 'workMemBytes', 'tempFileLimitBytes'] as const;
const REQUEST_NAMES = ['db', 'sql', 'timeoutMs', 'maxRows', 'doubleQuotes'] as const;
const RENAMED: Readonly<Record<string, string>> = {
  connectionString: 'url',
  databaseUrl: 'url',
  DATABASE_URL: 'url',
  timeout: 'timeoutMs',
  statementTimeout: 'timeoutMs',
  workMem: 'workMemBytes',
  work_mem: 'workMemBytes',
  tempFileLimit: 'tempFileLimitBytes',
  pool: 'poolSize',
};
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The default folder of the private server: `$TEXT2SQL_LADDER_CACHE_DIR/postgres` when set; as
 * root `/var/tmp/text2sql-ladder/postgres` (the server's unprivileged user cannot enter `/root`);
 * else `$XDG_CACHE_HOME/text2sql-ladder/postgres` (`~/.cache/…`).
 */
export function defaultPostgresCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['TEXT2SQL_LADDER_CACHE_DIR'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return path.resolve(fromEnv, 'postgres');
  if (process.getuid?.() === 0) return '/var/tmp/text2sql-ladder/postgres';
  const base = env['XDG_CACHE_HOME'] !== undefined && env['XDG_CACHE_HOME'] !== '' ? env['XDG_CACHE_HOME'] : path.join(os.homedir(), '.cache');
  return path.join(base, 'text2sql-ladder', 'postgres');
}

/**
 * Validates engine options and applies defaults.
 * @throws LadderError `invalid_option` for a non-object, an unknown or misspelt name (with a
 *   did-you-mean), a wrong kind or an out-of-range value, a URL that is not `postgres://` /
 *   `postgresql://`, or `databases` without `url`.
 */
export function resolvePostgresEngineOptions(options: unknown): ResolvedPostgresEngineOptions {
  const read = optionReader(options, { at: 'createPostgresEngine: ', nullIsAbsent: false });
  read.unknownKeys(OPTION_NAMES, RENAMED);
  const url = read.string('url', 'a postgres:// URL');
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) throw read.invalid('url', 'a postgres:// or postgresql:// URL', url);
  const databases = read.oneOf('databases', ['scratch', 'existing'] as const);
  if (databases !== undefined && url === undefined) throw read.invalid('databases', 'absent unless url is given (the private server always uses its own databases)', databases);
  const bytes = (name: string, min: number): number | undefined => read.number(name, { min, integer: true, expected: `an integer ≥ ${min} (bytes)` });
  return {
    url,
    databases: databases ?? 'scratch',
    cacheDir: path.resolve(read.string('cacheDir', 'a folder path') ?? defaultPostgresCacheDir()),
    binDir: read.string('binDir', 'a folder path'),
    serverUser: read.string('serverUser', 'a user name'),
    poolSize: read.number('poolSize', { min: 1, max: 256, integer: true }) ?? os.availableParallelism(),
    timeoutMs: read.number('timeoutMs', { min: 1, max: MAX_TIMEOUT_MS, integer: true, expected: `an integer from 1 to ${MAX_TIMEOUT_MS} (ms)` }) ?? POSTGRES_ENGINE_DEFAULTS.timeoutMs,
    maxRows: read.positiveInteger('maxRows', 'rows') ?? POSTGRES_ENGINE_DEFAULTS.maxRows,
    maxResultBytes: bytes('maxResultBytes', 1) ?? POSTGRES_ENGINE_DEFAULTS.maxResultBytes,
    maxMemoryBytes: bytes('maxMemoryBytes', 64 * 2 ** 20) ?? POSTGRES_ENGINE_DEFAULTS.maxMemoryBytes,
    workMemBytes: bytes('workMemBytes', 64 * 1024) ?? POSTGRES_ENGINE_DEFAULTS.workMemBytes,
    tempFileLimitBytes: bytes('tempFileLimitBytes', 1024) ?? POSTGRES_ENGINE_DEFAULTS.tempFileLimitBytes,
  };
}

/**
 * Validates one request and fills it from the engine's options. `doubleQuotes` is accepted and
 * ignored (a SQLite setting: PostgreSQL has no legacy double quotes).
 * @throws LadderError `invalid_option` naming the field (`request.db`, `request.timeoutMs`, …).
 */
export function resolvePostgresRequest(request: unknown, defaults: ResolvedPostgresEngineOptions): ResolvedPostgresRequest {
  const read = optionReader(request, { prefix: 'request.', nullIsAbsent: false });
  if (request === undefined) throw read.invalid('db', 'a database name', undefined);
  read.unknownKeys(REQUEST_NAMES);
  const db = read.string('db', 'a database name (a PostgreSQL database on the engine\'s server)');
  if (db === undefined || db.includes('\0')) throw read.invalid('db', "a database name (a PostgreSQL database on the engine's server)", db);
  const sql = read.raw('sql');
  if (typeof sql !== 'string') throw read.invalid('sql', 'a string', sql);
  const doubleQuotes = read.raw('doubleQuotes') as DoubleQuoteMode | undefined;
  if (doubleQuotes !== undefined && doubleQuotes !== 'legacy' && doubleQuotes !== 'strict') throw read.invalid('doubleQuotes', "'legacy' or 'strict'", doubleQuotes);
  const { database, role } = splitDatabaseRef(db);
  return {
    db: database,
    ...(role === undefined ? {} : { role }),
    sql,
    timeoutMs: read.number('timeoutMs', { min: 1, max: MAX_TIMEOUT_MS, integer: true, expected: `an integer from 1 to ${MAX_TIMEOUT_MS} (ms)` }) ?? defaults.timeoutMs,
    maxRows: read.positiveInteger('maxRows', 'rows') ?? defaults.maxRows,
  };
}
