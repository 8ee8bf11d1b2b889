/**
 * `text2sql-ladder fixtures build [DIR]`: builds every fixture of a folder (each snapshot and each
 * role-scoped copy) into the build cache and prints each file's sha256, so an app can build in CI
 * before `promptfoo eval`, pin the checksums in review, and see a broken data script as one
 * `file:line` error instead of a column of ERROR rows.
 *
 *   text2sql-ladder fixtures build [DIR] [--cache-dir DIR] [--postgres-url URL] [--timeout-ms MS]
 *     [--max-database-bytes N] [--max-memory-bytes N] [--json]
 *
 * Each build runs under limits (fixtures/build-limits.ts), since a fixture's scripts are as
 * untrusted as a model's SQL: a deadline per script and per step of the builder, a size cap per
 * snapshot, a memory cap on the SQLite build's child; the flags (or their environment variables)
 * set them.
 *
 * A `dialect: postgres` fixture is built into databases of a PostgreSQL server: the private one
 * (started for the command and stopped at its end), or the one `--postgres-url` (else
 * `TEXT2SQL_LADDER_POSTGRES_URL`) names; its
 * "files" are databases, with their content checksums.
 *
 * DIR is a folder of fixture folders (each holding a `fixture.yaml`) or one fixture folder; default
 * `$TEXT2SQL_LADDER_FIXTURES`, else `./fixtures`. The cache is the one the promptfoo front end
 * uses (`<working directory>/.text2sql-ladder/cache/fixtures` unless `--cache-dir` or
 * `$TEXT2SQL_LADDER_CACHE_DIR` says otherwise; the bundled fixtures' own cache in a clone).
 *
 * Exit status: 0 when every fixture built; 2 on misuse (no such folder, no fixture in it, a
 * malformed manifest or a failing script: the message names `file:line`).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { LadderError } from '../errors.js';
import { appCacheDir, CACHE_ENV, defaultFixtureCacheDir, listFixtures, resolveFixture } from '../fixtures/registry.js';
import { applyCliConventions, cliIoOf, setExitCode } from './cli-io.js';
import { parsePositiveInteger } from './flags.js';
import { FIXTURE_BUILD_DEFAULTS, FIXTURE_BUILD_ENV, resolveBuildLimits } from '../fixtures/build-limits.js';
import type { CliIo } from './cli-io.js';
import type { PostgresEngine } from '../engine/postgres/postgres-engine.js';
import { shownUrl } from '../engine/postgres/postgres-url.js';
import { POSTGRES_URL_ENV } from '../runtime/ladder-runtime.js';

/** Environment variable naming the app's fixture folder (as the promptfoo front end reads it). */
const FIXTURES_ENV = 'TEXT2SQL_LADDER_FIXTURES';

/** Parsed flags of `fixtures build`. */
export interface FixturesBuildOptions {
  readonly cacheDir?: string;
  readonly json?: boolean;
  /** The PostgreSQL server for `dialect: postgres` fixtures (default: the private one). */
  readonly postgresUrl?: string;
  /** Deadline of each script and builder step, in ms (build-limits.ts). */
  readonly timeoutMs?: number;
  /** Largest database a snapshot may grow to, in bytes. */
  readonly maxDatabaseBytes?: number;
  /** RSS cap of a SQLite build's child process, in bytes. */
  readonly maxMemoryBytes?: number;
}

/** One built file. */
export interface BuiltFile {
  readonly fixture: string;
  readonly snapshot: string;
  /** `null` for the full database. */
  readonly role: string | null;
  /** Absolute path of the SQLite file, or the PostgreSQL database's name. */
  readonly path: string;
  /** sha256 of the file's bytes, or of the PostgreSQL database's canonical dump (hex). */
  readonly sha256: string;
}

/** What `fixtures build` built. */
export interface FixturesBuildReport {
  readonly fixturesDir: string;
  readonly cacheDir: string;
  readonly fixtures: readonly {
    readonly name: string;
    /** The engine the fixture runs on. */
    readonly dialect: 'sqlite' | 'postgres';
    /** The build folder, or for PostgreSQL the server (`private PostgreSQL server in <folder>`, or the URL without its password). */
    readonly buildDir: string;
    /** SQLite: the folder was built before; PostgreSQL: always false (its databases were built or verified). */
    readonly fromCache: boolean;
    readonly files: readonly BuiltFile[];
  }[];
}

/** Registers `build` under the `fixtures` command. */
export function registerFixturesBuildCommand(fixtures: Command): void {
  const command = fixtures.command('build');
  applyCliConventions(command)
    .description('Build every fixture of a folder (snapshots and role-scoped copies) into the cache and print their sha256 checksums')
    .argument('[dir]', `a folder of fixture folders, or one fixture folder (default: $${FIXTURES_ENV}, else ./fixtures)`)
    .option('--cache-dir <dir>', `where builds go (default: ./.text2sql-ladder/cache/fixtures, or $${CACHE_ENV}/fixtures)`)
    .option('--postgres-url <url>', 'the PostgreSQL server for dialect: postgres fixtures (default: $TEXT2SQL_LADDER_POSTGRES_URL, else a private server started for the command); never DATABASE_URL')
    .option('--timeout-ms <ms>', `deadline of each script and of each step of the builder (default ${FIXTURE_BUILD_DEFAULTS.timeoutMs}, or $${FIXTURE_BUILD_ENV.timeoutMs})`, parsePositiveInteger)
    .option('--max-database-bytes <n>', `largest database a snapshot may grow to (default ${FIXTURE_BUILD_DEFAULTS.maxDatabaseBytes}, or $${FIXTURE_BUILD_ENV.maxDatabaseBytes})`, parsePositiveInteger)
    .option('--max-memory-bytes <n>', `resident memory of a SQLite build's child process (default ${FIXTURE_BUILD_DEFAULTS.maxMemoryBytes}, or $${FIXTURE_BUILD_ENV.maxMemoryBytes})`, parsePositiveInteger)
    .option('--json', 'print the report as JSON', false)
    .action(async (dir: string | undefined, options: FixturesBuildOptions) => {
      setExitCode(command, await runFixturesBuild(dir, options, cliIoOf(command)));
    });
}

/**
 * Builds the fixtures and prints the report (text or JSON).
 * @returns the exit status (0).
 * @throws LadderError (misuse, exit 2 through the CLI conventions): `invalid_option` for a folder
 *   that does not exist or holds no fixture; the registry's errors for a malformed manifest or a
 *   failing script.
 */
export async function runFixturesBuild(dir: string | undefined, options: FixturesBuildOptions, io: CliIo): Promise<number> {
  const report = await buildFixtures(dir, options);
  io.stdout.write(options.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderBuildReport(report));
  return 0;
}

/** Builds every fixture of `dir` (see the module doc for the defaults). */
export async function buildFixtures(dir: string | undefined, options: Omit<FixturesBuildOptions, 'json'> = {}): Promise<FixturesBuildReport> {
  const build = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxDatabaseBytes === undefined ? {} : { maxDatabaseBytes: options.maxDatabaseBytes }),
    ...(options.maxMemoryBytes === undefined ? {} : { maxMemoryBytes: options.maxMemoryBytes }),
  };
  const limits = resolveBuildLimits(build, 'fixtures build: ');
  const given = dir ?? (process.env[FIXTURES_ENV]?.trim() ? process.env[FIXTURES_ENV] : 'fixtures')!;
  const resolved = path.resolve(given);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) {
    throw new LadderError('invalid_option', `fixtures build: ${given} is not a folder (give a folder of fixture folders, each with a fixture.yaml)`);
  }
  // One fixture folder, or a folder of them.
  const single = existsSync(path.join(resolved, 'fixture.yaml'));
  const fixturesDir = single ? path.dirname(resolved) : resolved;
  const names = single ? [path.basename(resolved)] : listFixtures(fixturesDir);
  if (names.length === 0) throw new LadderError('invalid_option', `fixtures build: no fixture in ${given} (a fixture is a folder with a fixture.yaml)`);
  const cacheDir = path.resolve(options.cacheDir ?? (process.env[CACHE_ENV]?.trim() ? defaultFixtureCacheDir() : appCacheDir(process.cwd())));
  const fixtures: FixturesBuildReport['fixtures'][number][] = [];
  // Created for the first PostgreSQL fixture only, and closed (its private server stopped) at the end.
  let postgres: PostgresEngine | undefined;
  // --postgres-url, else the environment's URL (never DATABASE_URL), else a private server.
  const fromEnv = process.env[POSTGRES_URL_ENV]?.trim();
  const postgresUrl = options.postgresUrl ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  const postgresEngine = async (): Promise<PostgresEngine> => {
    const { createPostgresEngine } = await import('../engine/postgres/postgres-engine.js');
    postgres ??= createPostgresEngine(postgresUrl === undefined ? {} : { url: postgresUrl });
    return postgres;
  };
  try {
    for (const name of names) {
      const before = new Set(existsSync(cacheDir) ? listBuilds(cacheDir, name) : []);
      const full = await resolveFixture(name, { fixturesDir, cacheDir, postgres: postgresEngine, build: limits });
      const hex = (checksum: string | undefined): string => (checksum ?? '').replace(/^sha256:/, '');
      const files: BuiltFile[] = full.snapshots.map((s) => ({ fixture: name, snapshot: s.name, role: null, path: s.path, sha256: hex(s.checksum) }));
      for (const role of Object.keys(full.roles)) {
        const scoped = await resolveFixture(name, { fixturesDir, cacheDir, role, build: limits });
        files.push(...scoped.snapshots.map((s) => ({ fixture: name, snapshot: s.name, role, path: s.path, sha256: hex(s.checksum) })));
      }
      if (full.dialect === 'postgres') {
        const where = postgresUrl === undefined ? `private PostgreSQL server in ${postgres!.options.cacheDir}` : `PostgreSQL server ${shownUrl(postgresUrl)}`;
        fixtures.push({ name, dialect: 'postgres', buildDir: where, fromCache: false, files });
        continue;
      }
      const buildDir = path.dirname(files[0]!.path);
      fixtures.push({ name, dialect: 'sqlite', buildDir, fromCache: before.has(path.basename(buildDir)), files });
    }
  } finally {
    await postgres?.close();
  }
  return { fixturesDir, cacheDir, fixtures };
}

function listBuilds(cacheDir: string, name: string): string[] {
  try {
    return readdirSync(cacheDir).filter((entry) => entry.startsWith(`${name}-`));
  } catch {
    return [];
  }
}

/**
 * The text report: per fixture, its build folder (and whether it was already built), then one line
 * per file: snapshot, role, sha256, file name.
 */
export function renderBuildReport(report: FixturesBuildReport): string {
  const lines: string[] = [];
  const cwd = process.cwd();
  const shown = (file: string): string => {
    const relative = path.relative(cwd, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  for (const fixture of report.fixtures) {
    if (fixture.dialect === 'postgres') {
      lines.push(`fixture ${fixture.name}: ${fixture.files.length} databases on the ${fixture.buildDir} (built, or verified against their checksums)`);
      const width = Math.max(...fixture.files.map((file) => file.snapshot.length), 'snapshot'.length);
      lines.push(`  ${'snapshot'.padEnd(width)}  sha256${' '.repeat(58)}  database`);
      for (const file of fixture.files) lines.push(`  ${file.snapshot.padEnd(width)}  ${file.sha256}  ${file.path}`);
      continue;
    }
    lines.push(`fixture ${fixture.name}: ${fixture.files.length} files in ${shown(fixture.buildDir)} (${fixture.fromCache ? 'already built' : 'built'})`);
    const width = Math.max(...fixture.files.map((file) => file.snapshot.length), 'snapshot'.length);
    const roleWidth = Math.max(...fixture.files.map((file) => (file.role ?? '-').length), 'role'.length);
    lines.push(`  ${'snapshot'.padEnd(width)}  ${'role'.padEnd(roleWidth)}  sha256${' '.repeat(58)}  file`);
    for (const file of fixture.files) {
      lines.push(`  ${file.snapshot.padEnd(width)}  ${(file.role ?? '-').padEnd(roleWidth)}  ${file.sha256}  ${path.basename(file.path)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
