/**
 * A SQLite fixture's scripts are as untrusted as a model's SQL. `fixtures build` (the compiled
 * CLI) on hostile fixtures: a script that ATTACHes another file (absolute, relative, URI), leaves
 * the builder's transaction to `VACUUM INTO` a copy, runs forever (a recursive CTE, a trigger, a
 * role's row filter),
 * grows without end, or is a FIFO, /dev/zero, a path outside the fixture's folder or a symbolic
 * link leading out. Each is exit 2 with one line naming the script (and line), quoting nothing of
 * a file outside the folder; the fixture folder, a victim database and every file outside the
 * cache are byte-identical afterwards, nothing is left in the cache, and the next build is normal.
 * A build killed with SIGKILL, SIGTERM or SIGINT leaves nothing once the next build has run, and
 * its build child does not outlive it.
 *
 * (0.2.0 built the ATTACH and VACUUM INTO scripts with exit 0, writing the victim and the copy; the
 * endless scripts and the FIFO ran past 120 s; /dev/zero aborted the process with std::bad_alloc;
 * /etc/passwd was read and its first word printed.)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, commandLine, isRunning, waitFor } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'text2sql-ladder.js');
/** A recursive CTE with no end: CPU only, it grows nothing. */
const ENDLESS = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c';

let work: string;
let victim: string;
let cacheRoot: string;
const launched: ChildProcess[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-fixtures-'));
  victim = path.join(work, 'victim.sqlite');
  const db = new Database(victim);
  db.exec('CREATE TABLE v (a INTEGER); INSERT INTO v VALUES (1);');
  db.close();
  writeFileSync(path.join(work, 'outside.sql'), 'CREATE TABLE secret (a);\n');
  cacheRoot = path.join(work, 'cache');
});

afterAll(() => {
  for (const child of launched) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Every entry under `dir` (the cache left out): a regular file's sha256, else what it is. */
function digest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of (readdirSync(dir, { recursive: true }) as string[]).sort()) {
    if (name === 'cache' || name.startsWith(`cache${path.sep}`)) continue;
    const file = path.join(dir, name);
    const stats = lstatSync(file);
    if (stats.isSymbolicLink()) out[name] = `link to ${readlinkSync(file)}`;
    else if (!stats.isFile()) out[name] = stats.isDirectory() ? 'folder' : 'special';
    else out[name] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return out;
}

/** A fixture folder `fixtures/<name>` whose one snapshot runs `scripts` (written by `write`). */
function fixture(name: string, scripts: string, write: (dir: string) => void, roles?: string): string {
  const dir = path.join(work, 'fixtures', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'fixture.yaml'), `name: ${name}\ndialect: sqlite\nsnapshots:\n  base: { scripts: [${scripts}] }\n${roles === undefined ? '' : `roles:\n${roles}`}`);
  write(dir);
  return dir;
}

function build(dir: string, flags: readonly string[] = []): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'fixtures', 'build', dir, ...flags], {
    cwd: work,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: cacheRoot },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** What the cache holds besides finished builds: temporary folders and files. */
function cacheLeftovers(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.tmp') || name.endsWith('.tmp') || name.includes('-journal') || name.endsWith('-wal')) found.push(path.join(dir, name));
      walk(path.join(dir, name));
    }
  };
  walk(cacheRoot);
  return found;
}

const REFUSED_TAIL = '; a script may use CREATE TABLE / INDEX / VIEW / TRIGGER / VIRTUAL TABLE (FTS, R*Tree, Geopoly), DROP, ALTER TABLE, INSERT, REPLACE, UPDATE, DELETE, WITH … (a data change), ANALYZE, REINDEX, PRAGMA foreign_keys / defer_foreign_keys / recursive_triggers / user_version / application_id, and BEGIN / COMMIT (skipped)';

interface HostileCase {
  readonly name: string;
  readonly scripts?: string;
  readonly write: (dir: string) => void;
  readonly flags?: readonly string[];
  /** The manifest's `roles:` block, indented. */
  readonly roles?: string;
  /** The one stderr line, after `error: `; `<dir>` is the fixture's folder, `<work>` the test's. */
  readonly error: string;
}

const CASES: readonly HostileCase[] = [
  {
    name: 'attach-absolute',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\nATTACH '${victim}' AS w;\nCREATE TABLE w.pwn (a);\nINSERT INTO w.pwn VALUES (1);\n`),
    error: `<dir>/s.sql:2: refused while building snapshot "base" of fixture attach-absolute: ATTACH opens or closes another database file; a fixture script builds its own database only${REFUSED_TAIL}`,
  },
  {
    name: 'attach-relative',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), "CREATE TABLE t (a);\nATTACH 'here.sqlite' AS w;\nCREATE TABLE w.pwn (a);\n"),
    error: `<dir>/s.sql:2: refused while building snapshot "base" of fixture attach-relative: ATTACH opens or closes another database file; a fixture script builds its own database only${REFUSED_TAIL}`,
  },
  {
    name: 'attach-uri',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\n  attach database 'file:${victim}?mode=rw' as w;\n`),
    error: `<dir>/s.sql:2: refused while building snapshot "base" of fixture attach-uri: ATTACH opens or closes another database file; a fixture script builds its own database only${REFUSED_TAIL}`,
  },
  {
    name: 'vacuum-into',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\nCOMMIT; VACUUM INTO '${path.join(work, 'copy.sqlite')}'; BEGIN;\n`),
    error: `<dir>/s.sql:2: refused while building snapshot "base" of fixture vacuum-into: VACUUM INTO writes a copy of the database to a file; a fixture script builds its own database only${REFUSED_TAIL}`,
  },
  {
    name: 'endless-cte',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\n\nINSERT INTO t SELECT count(*) FROM (${ENDLESS});\n`),
    flags: ['--timeout-ms', '2000'],
    error: '<dir>/s.sql:3: building fixture endless-cte, snapshot "base": the script ran past its deadline of 2000 ms and was stopped (timeoutMs: fixtures build --timeout-ms, or TEXT2SQL_LADDER_BUILD_TIMEOUT_MS, raises it)',
  },
  {
    name: 'endless-trigger',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\nCREATE TRIGGER spin AFTER INSERT ON t BEGIN\n  INSERT INTO t SELECT count(*) FROM (${ENDLESS});\nEND;\nINSERT INTO t VALUES (1);\n`),
    flags: ['--timeout-ms', '2000'],
    error: '<dir>/s.sql:5: building fixture endless-trigger, snapshot "base": the script ran past its deadline of 2000 ms and was stopped (timeoutMs: fixtures build --timeout-ms, or TEXT2SQL_LADDER_BUILD_TIMEOUT_MS, raises it)',
  },
  {
    name: 'endless-row-filter',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), 'CREATE TABLE t (a);\nINSERT INTO t VALUES (1);\n'),
    roles: `  spin:\n    tables: [t]\n    rows: { t: "a IN (SELECT count(*) FROM (${ENDLESS}))" }\n`,
    flags: ['--timeout-ms', '2000'],
    error: 'snapshot "base" (role spin): the builder\'s role copy: building fixture endless-row-filter: the step ran past its deadline of 2000 ms and was stopped (timeoutMs: fixtures build --timeout-ms, or TEXT2SQL_LADDER_BUILD_TIMEOUT_MS, raises it)',
  },
  {
    name: 'huge-insert',
    write: (dir) => writeFileSync(path.join(dir, 's.sql'), 'CREATE TABLE t (a);\nINSERT INTO t WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000000) SELECT randomblob(2000) FROM c;\n'),
    flags: ['--max-database-bytes', String(16 * 2 ** 20), '--timeout-ms', '600000'],
    error: '<dir>/s.sql:2: snapshot "base" of fixture huge-insert grew past the size cap of 16777216 bytes (maxDatabaseBytes: fixtures build --max-database-bytes, or TEXT2SQL_LADDER_BUILD_MAX_DATABASE_BYTES, raises it)',
  },
  {
    name: 'fifo',
    write: (dir) => spawnSync('mkfifo', [path.join(dir, 's.sql')]),
    error: '<dir>/fixture.yaml:4: snapshot "base": script s.sql is a FIFO (named pipe), not a regular file',
  },
  {
    name: 'dev-zero',
    write: (dir) => symlinkSync('/dev/zero', path.join(dir, 's.sql')),
    error: "<dir>/fixture.yaml:4: snapshot \"base\": script s.sql is outside the fixture's folder <dir> (it leads to /dev/zero); a fixture reads only files inside its own folder",
  },
  {
    name: 'absolute-path',
    scripts: '/etc/passwd',
    write: () => undefined,
    error: "<dir>/fixture.yaml:4: snapshot \"base\": script /etc/passwd is outside the fixture's folder <dir>; a fixture reads only files inside its own folder",
  },
  {
    name: 'traversal',
    scripts: '../../outside.sql',
    write: () => undefined,
    error: "<dir>/fixture.yaml:4: snapshot \"base\": script ../../outside.sql is outside the fixture's folder <dir>; a fixture reads only files inside its own folder",
  },
  {
    name: 'symlink-out',
    write: (dir) => symlinkSync('/etc/shadow', path.join(dir, 's.sql')),
    error: "<dir>/fixture.yaml:4: snapshot \"base\": script s.sql is outside the fixture's folder <dir> (it leads to /etc/shadow); a fixture reads only files inside its own folder",
  },
  {
    name: 'folder-link-out',
    scripts: 'sub/outside.sql',
    write: (dir) => symlinkSync(work, path.join(dir, 'sub')),
    error: `<dir>/fixture.yaml:4: snapshot "base": script sub/outside.sql is outside the fixture's folder <dir> (it leads to <work>/outside.sql); a fixture reads only files inside its own folder`,
  },
];

describe('fixtures build on a hostile SQLite fixture', () => {
  it.each(CASES)('$name: exit 2, one line naming the script, nothing outside the cache changed, nothing left in it', (hostile) => {
    const dir = fixture(hostile.name, hostile.scripts ?? 's.sql', hostile.write, hostile.roles);
    const before = digest(work);
    const run = build(dir, hostile.flags);
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 2, stdout: '', stderr: `error: ${hostile.error.replaceAll('<dir>', dir).replaceAll('<work>', work)}\n` });
    expect(run.stderr).not.toMatch(/root|secret/);
    expect(digest(work)).toEqual(before);
    expect(cacheLeftovers()).toEqual([]);
    rmSync(path.join(work, 'fixtures', hostile.name), { recursive: true });
  });

  it('the next build is normal', () => {
    const dir = fixture('normal', 's.sql', (d) => writeFileSync(path.join(d, 's.sql'), 'CREATE TABLE t (a);\nINSERT INTO t VALUES (1);\n'));
    const run = build(dir);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^fixture normal: 1 files in \S+ \(built\)\n.*\n {2}base {6}- {5}[0-9a-f]{64} {2}base\.sqlite\n$/);
    expect(cacheLeftovers()).toEqual([]);
    rmSync(dir, { recursive: true });
  });
});

describe('a build interrupted while a script runs', () => {
  it.each(['SIGKILL', 'SIGTERM', 'SIGINT'] as const)('%s: the build child ends, and nothing is left once the next build has run', async (signal) => {
    const dir = fixture(`killed-${signal}`, 's.sql', (d) => writeFileSync(path.join(d, 's.sql'), `CREATE TABLE t (a);\nINSERT INTO t SELECT count(*) FROM (${ENDLESS});\n`));
    const before = digest(work);
    const child = spawn(process.execPath, [CLI, 'fixtures', 'build', dir, '--timeout-ms', '600000'], { cwd: work, stdio: 'ignore', env: { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: cacheRoot } });
    launched.push(child);
    // The build child is running the endless statement and its temporary folder exists.
    const builderOf = (): number | undefined => descendants(child.pid!).find((pid) => commandLine(pid).includes('build-child'));
    expect(await waitFor(() => builderOf() !== undefined && cacheLeftovers().length > 0, 60_000)).toBeDefined();
    const builder = builderOf()!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    expect(await waitFor(() => !isRunning(builder), 5_000), `build child ${builder} still ran after ${signal}`).toBeDefined();
    if (signal !== 'SIGKILL') expect(cacheLeftovers()).toEqual([]);
    // The next build sweeps what a killed one left, and builds normally.
    const normal = fixture('after-kill', 's.sql', (d) => writeFileSync(path.join(d, 's.sql'), 'CREATE TABLE t (a);\n'));
    const next = build(normal);
    expect(next.status, next.stderr).toBe(0);
    expect(cacheLeftovers()).toEqual([]);
    rmSync(normal, { recursive: true });
    expect(digest(work)).toEqual(before);
    rmSync(dir, { recursive: true });
  });
});
