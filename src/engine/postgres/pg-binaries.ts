/**
 * Where the PostgreSQL server programs (`initdb`, `postgres`) are: the system's own, as the
 * operating system's packages install them. Looked for in this order:
 * 1. the `binDir` option, or `$TEXT2SQL_LADDER_PG_BIN`;
 * 2. Debian / Ubuntu's `/usr/lib/postgresql/<major>/bin` (highest major first);
 * 3. RHEL / Fedora's `/usr/pgsql-<major>/bin`, Homebrew's `…/opt/postgresql@<major>/bin`;
 * 4. the folder of an `initdb` or `pg_config --bindir` on the PATH.
 * Why the system's and not an npm package: see docs/engine.md, "Where the server comes from".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { LadderError } from '../../errors.js';

/** The oldest server major version the engine runs on (docs/engine.md, "PostgreSQL"). */
export const MIN_SERVER_MAJOR = 15;

/** Environment variable naming the folder of the server programs. */
export const PG_BIN_ENV = 'TEXT2SQL_LADDER_PG_BIN';

/** Server programs found on this machine. */
export interface ServerBinaries {
  /** Folder holding `initdb` and `postgres`. */
  readonly binDir: string;
  /** Major version, e.g. 15. */
  readonly major: number;
  /** Full version text, e.g. `15.18`. */
  readonly version: string;
}

function majorFolders(base: string, pattern: RegExp): string[] {
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .map((name) => ({ name, major: Number(pattern.exec(name)?.[1]) }))
    .filter((entry) => Number.isInteger(entry.major))
    .sort((a, b) => b.major - a.major)
    .map((entry) => path.join(base, entry.name));
}

function onPath(program: string): string | undefined {
  for (const folder of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (folder !== '' && existsSync(path.join(folder, program))) return folder;
  }
  return undefined;
}

/** Candidate folders, most preferred first. */
function candidates(binDir: string | undefined): string[] {
  const fromEnv = process.env[PG_BIN_ENV];
  if (binDir !== undefined) return [binDir];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return [fromEnv];
  const found = [
    ...majorFolders('/usr/lib/postgresql', /^(\d+)$/).map((folder) => path.join(folder, 'bin')),
    ...majorFolders('/usr', /^pgsql-(\d+)$/).map((folder) => path.join(folder, 'bin')),
    ...['/opt/homebrew/opt', '/usr/local/opt'].flatMap((base) => majorFolders(base, /^postgresql@(\d+)$/).map((folder) => path.join(folder, 'bin'))),
  ];
  const initdb = onPath('initdb');
  if (initdb !== undefined) found.push(initdb);
  const pgConfig = onPath('pg_config');
  if (pgConfig !== undefined) {
    try {
      found.push(execFileSync(path.join(pgConfig, 'pg_config'), ['--bindir'], { encoding: 'utf8' }).trim());
    } catch {
      // pg_config of a client-only install: no server programs there.
    }
  }
  return found;
}

/**
 * Finds the server programs.
 * @param binDir - an explicit folder (the `binDir` option); otherwise the search above.
 * @throws LadderError `engine_failure` saying how to install them (or to give a server URL) when
 *   none are found, or when the newest found is older than {@link MIN_SERVER_MAJOR}.
 */
export function findServerBinaries(binDir?: string): ServerBinaries {
  const tried = candidates(binDir);
  let tooOld: ServerBinaries | undefined;
  for (const folder of tried) {
    if (!existsSync(path.join(folder, 'initdb')) || !existsSync(path.join(folder, 'postgres'))) continue;
    let text: string;
    try {
      text = execFileSync(path.join(folder, 'postgres'), ['--version'], { encoding: 'utf8' });
    } catch {
      continue;
    }
    const version = /PostgreSQL\)? (\d+(?:\.\d+)*)/.exec(text)?.[1];
    if (version === undefined) continue;
    const found = { binDir: folder, major: Number(version.split('.')[0]), version };
    if (found.major >= MIN_SERVER_MAJOR) return found;
    tooOld ??= found;
  }
  if (tooOld !== undefined) {
    throw new LadderError('engine_failure', `PostgreSQL ${tooOld.version} in ${tooOld.binDir} is older than ${MIN_SERVER_MAJOR}, the oldest the engine runs on; install a newer one (Debian/Ubuntu: apt-get install postgresql) or give a server URL (option postgres.url)`);
  }
  throw new LadderError(
    'engine_failure',
    `PostgreSQL's server programs (initdb, postgres) were not found${tried.length > 0 ? ` (looked in ${tried.join(', ')})` : ''}; install them (Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server; macOS: brew install postgresql@16), set ${PG_BIN_ENV} to their folder, or give a server URL (option postgres.url)`,
  );
}
