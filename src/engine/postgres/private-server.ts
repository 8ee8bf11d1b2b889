/**
 * The private PostgreSQL server: a real server started for the run from the system's programs,
 * in a cache folder, reachable only through a Unix socket in a folder of mode 0700 (no TCP port,
 * no password: `local all all trust` in a folder only its owner can enter).
 *
 * Life cycle, shared by every process that uses the same cache folder (a vitest run's workers, a
 * CLI next to an eval):
 * - A process that wants the server takes the folder's lock (`lock.d`, a folder holding the
 *   holder's pid; a holder that is gone is taken over), writes a lease (`leases/<pid>`) and
 *   releases the lock. A running server with a live lease is shared.
 * - A running server with no live lease was left by a run that was killed (SIGKILL runs no exit
 *   handler): it is stopped, and a fresh one started. A `postmaster.pid` whose process is gone,
 *   or is no PostgreSQL process, is removed before the start.
 * - A server killed mid-run is started again by `revive()` (the engine calls it when it cannot
 *   connect and the postmaster is gone), on the same socket, the lease kept.
 * - `release()` (the engine's `close`) removes the lease; the last lease out stops the server
 *   (fast shutdown, then immediate, then SIGKILL). A process that exits without `close` removes its
 *   lease and signals the server the same way from its `exit` handler.
 * - First use runs `initdb` into a temporary folder renamed into place, so a killed `initdb` never
 *   leaves a half cluster.
 *
 * `initdb` refuses to run as root, so as root the server runs as an unprivileged user (`postgres`
 * unless `serverUser` names another; spawned with that uid and gid). Each server process gets a
 * data-segment limit (`ulimit -d`, RLIMIT_DATA) of `maxMemoryBytes`, so one backend's memory is
 * capped whatever `work_mem` a statement sets.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LadderError } from '../../errors.js';
import type { ServerBinaries } from './pg-binaries.js';

/** The private server's bootstrap superuser (`initdb -U`). Never used for a statement of a fixture or a model. */
export const ADMIN_ROLE = 'ladder_admin';

/** Port number in the socket's name (`.s.PGSQL.5432`); no TCP port is opened. */
const PORT = 5432;
/** Longest Unix socket path Linux accepts (sun_path is 108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH = 107;
/** How long to wait for the server to accept connections, or for the folder's lock. */
const START_TIMEOUT_MS = 60_000;

/** Options of {@link startPrivateServer}. */
export interface PrivateServerOptions {
  /** Folder holding the server (one subfolder per major version). Created when missing. */
  readonly cacheDir: string;
  readonly binaries: ServerBinaries;
  /** Data-segment limit of each server process, bytes. */
  readonly maxMemoryBytes: number;
  /** As root: the user the server runs as (default `postgres`). Ignored when not root. */
  readonly serverUser?: string;
}

/** A running private server this process holds a lease on. */
export interface PrivateServer {
  /** Folder of the Unix socket (the `host` of a connection). */
  readonly socketDir: string;
  readonly port: number;
  /** The server's data folder. */
  readonly dataDir: string;
  /** The postmaster's pid. */
  readonly pid: number;
  /** True when this process started the server (a cold or warm start), false when it joined one. */
  readonly started: boolean;
  /** What the start cost, in milliseconds (`initdb` included when it ran). */
  readonly startMs: number;
  /** True when `initdb` ran for this start. */
  readonly initialized: boolean;
  /** Removes this process's lease; the last one out stops the server. Idempotent. */
  release(): Promise<void>;
  /**
   * Starts the server again when its postmaster is gone (killed mid-run), under the folder's lock,
   * on the same socket; the lease is kept.
   * @returns `true` when a server is running again (started here, or by another process meanwhile),
   *   `false` when the postmaster is still the one this lease started (it is alive: the fault was
   *   elsewhere) or the lease was released.
   * @throws LadderError `engine_failure` when the data folder is gone (deleted mid-run) or the
   *   server does not start (with the log's last lines).
   */
  revive(): Promise<boolean>;
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
  readonly name: string;
  readonly root: boolean;
}

/** The user the server runs as: this process's own, or (as root) an unprivileged one. */
function serverAccount(serverUser: string | undefined): RunAs {
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? -1, name: os.userInfo().username, root: false };
  const name = serverUser ?? 'postgres';
  const id = (flag: string): number => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  const userId = id('-u');
  const groupId = id('-g');
  if (!Number.isInteger(userId) || userId <= 0 || !Number.isInteger(groupId) || spawnSync('id', ['-u', name]).status !== 0) {
    throw new LadderError(
      'engine_failure',
      `this process runs as root and PostgreSQL's initdb refuses root, so the private server runs as an unprivileged user, but there is no user "${name}": create one (useradd --system --no-create-home ${name}) or name another with postgres.serverUser, run as a user other than root, or give a server URL (option postgres.url)`,
    );
  }
  return { uid: userId, gid: groupId, name, root: true };
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when `pid` is a PostgreSQL server process (Linux: its command line; elsewhere `ps`). */
function isPostgresProcess(pid: number): boolean {
  if (!processAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync('/proc/self/cmdline')) {
    try {
      return /postgres|postmaster/.test(readFileSync(cmdline, 'utf8'));
    } catch {
      return false;
    }
  }
  const ps = spawnSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
  return /postgres|postmaster/.test(ps.stdout ?? '');
}

/** The postmaster pid and status recorded in `postmaster.pid`, if the file is there. */
function readPostmasterFile(dataDir: string): { pid: number; status: string } | undefined {
  try {
    const lines = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), status: (lines[7] ?? '').trim() };
  } catch {
    return undefined;
  }
}

/** The server folder's layout. */
function layout(options: PrivateServerOptions): { root: string; dataDir: string; socketDir: string; leases: string; lock: string; log: string } {
  const root = path.resolve(options.cacheDir, String(options.binaries.major));
  const near = path.join(root, 's');
  const socketDir =
    Buffer.byteLength(path.join(near, `.s.PGSQL.${PORT}`)) <= MAX_SOCKET_PATH
      ? near
      : path.join('/tmp', `text2sql-ladder-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
  return { root, dataDir: path.join(root, 'data'), socketDir, leases: path.join(root, 'leases'), lock: path.join(root, 'lock.d'), log: path.join(root, 'server.log') };
}

/** Takes the folder's lock: a folder holding the holder's pid; a holder that is gone is taken over. */
async function lock(lockDir: string): Promise<() => void> {
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      // Written a moment after the folder; an old folder without it is a leftover.
    }
    const age = (() => {
      try {
        return Date.now() - statSync(lockDir).mtimeMs;
      } catch {
        return 0;
      }
    })();
    if ((Number.isNaN(holder) && age > 5_000) || (!Number.isNaN(holder) && !processAlive(holder))) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - started > START_TIMEOUT_MS) {
      throw new LadderError('engine_failure', `the private PostgreSQL server's folder ${path.dirname(lockDir)} is locked by process ${holder} for more than ${START_TIMEOUT_MS / 1000} s`);
    }
    await sleep(50);
  }
}

/** Pids holding a lease; leases of processes that are gone are removed. */
function liveLeases(leasesDir: string): number[] {
  if (!existsSync(leasesDir)) return [];
  const live: number[] = [];
  for (const name of readdirSync(leasesDir)) {
    const pid = Number(name);
    if (processAlive(pid)) live.push(pid);
    else rmSync(path.join(leasesDir, name), { force: true });
  }
  return live;
}

/** Stops a postmaster: fast shutdown, then immediate, then SIGKILL; resolves when it is gone. */
async function stopPostmaster(pid: number): Promise<void> {
  const steps: readonly (readonly [NodeJS.Signals, number])[] = [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, waitMs] of steps) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      if (!processAlive(pid)) return;
      await sleep(20);
    }
  }
}

/** Runs `command` as the server's account; throws `engine_failure` with its output on failure. */
function runAs(account: RunAs, command: string, args: readonly string[], what: string): void {
  const result = spawnSync(command, args, { encoding: 'utf8', ...(account.root ? { uid: account.uid, gid: account.gid } : {}), env: serverEnvironment(), cwd: '/' });
  if (result.status !== 0) {
    const output = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-5).join(' | ');
    throw new LadderError('engine_failure', `${what} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}): ${output}`);
  }
}

/** A small, predictable environment for the server: C locale, no PG* variables. */
function serverEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
}

/** Creates a folder owned by the server's account with the given mode. */
function ownedFolder(account: RunAs, folder: string, mode: number): void {
  mkdirSync(folder, { recursive: true, mode });
  if (account.root) chownSync(folder, account.uid, account.gid);
}

/** `initdb` into a temporary folder renamed into place; `pg_hba.conf` then admits the socket only. */
function initialize(account: RunAs, options: PrivateServerOptions, dataDir: string): void {
  const temporary = `${dataDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  ownedFolder(account, temporary, 0o700);
  try {
    runAs(
      account,
      path.join(options.binaries.binDir, 'initdb'),
      ['-D', temporary, '-A', 'trust', '-U', ADMIN_ROLE, '--no-locale', '-E', 'UTF8', '--no-sync', '--no-instructions'],
      `initdb (as ${account.name}) in ${temporary}`,
    );
    writeFileSync(path.join(temporary, 'pg_hba.conf'), '# text2sql-ladder private server: the Unix socket only, in a folder of mode 0700\nlocal all all trust\n');
    renameSync(temporary, dataDir);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}

/** Server settings: socket only, no sync to disk (a cache that is rebuilt; commits survive a killed server, not a crashed machine), no parallel workers, no JIT. */
function serverArguments(dataDir: string, socketDir: string): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '',
    unix_socket_directories: socketDir,
    unix_socket_permissions: '0700',
    fsync: 'off',
    // A commit is written to the kernel before it returns (not synced: fsync is off), so a build
    // that committed survives a server killed mid-run; only the machine crashing loses it.
    synchronous_commit: 'on',
    full_page_writes: 'off',
    max_connections: '100',
    shared_buffers: '32MB',
    jit: 'off',
    max_parallel_workers_per_gather: '0',
    log_min_messages: 'warning',
    logging_collector: 'off',
    huge_pages: 'off',
  };
  return ['-D', dataDir, '-p', String(PORT), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}

/** Processes of this run that hold a lease, for the exit handler. */
const heldLeases = new Set<string>();
let exitHandlerInstalled = false;

function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const entry of heldLeases) {
      const [leasesDir, dataDir] = entry.split('\u0000') as [string, string];
      rmSync(path.join(leasesDir, String(process.pid)), { force: true });
      if (liveLeases(leasesDir).length > 0) continue;
      const postmaster = readPostmasterFile(dataDir);
      if (postmaster !== undefined && isPostgresProcess(postmaster.pid)) {
        try {
          process.kill(postmaster.pid, 'SIGINT');
        } catch {
          // Gone already.
        }
      }
    }
  });
}

/** This process's holds on each server folder: engines of one process share one lease. */
const inProcess = new Map<string, { holders: number; server: Promise<PrivateServer> }>();

/**
 * Starts (or joins) the private server of `options.cacheDir` and takes a lease on it; engines of
 * one process share the lease (the last `release()` in the process gives it up).
 * @throws LadderError `engine_failure` naming the cause and the fix: no server user as root, a
 *   folder the server user cannot reach, `initdb` or the server failing (with the log's last
 *   lines), a start past {@link START_TIMEOUT_MS}.
 */
export async function startPrivateServer(options: PrivateServerOptions): Promise<PrivateServer> {
  const root = layout(options).root;
  let shared = inProcess.get(root);
  if (shared === undefined) {
    shared = { holders: 0, server: leaseServer(options) };
    inProcess.set(root, shared);
    shared.server.catch(() => inProcess.delete(root));
  }
  shared.holders += 1;
  const server = await shared.server;
  const holder = shared;
  let released = false;
  return {
    socketDir: server.socketDir,
    port: server.port,
    dataDir: server.dataDir,
    get pid() {
      return server.pid;
    },
    started: server.started,
    startMs: server.startMs,
    initialized: server.initialized,
    revive: () => server.revive(),
    async release() {
      if (released) return;
      released = true;
      holder.holders -= 1;
      if (holder.holders > 0) return;
      if (inProcess.get(root) === holder) inProcess.delete(root);
      await server.release();
    },
  };
}

async function leaseServer(options: PrivateServerOptions): Promise<PrivateServer> {
  const account = serverAccount(options.serverUser);
  const where = layout(options);
  mkdirSync(where.root, { recursive: true });
  if (account.root) {
    const reach = spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', where.root], { uid: account.uid, gid: account.gid });
    if (reach.status !== 0) {
      throw new LadderError(
        'engine_failure',
        `the private PostgreSQL server runs as user ${account.name}, who cannot reach ${where.root} (a folder above it is not searchable by others, e.g. /root); set TEXT2SQL_LADDER_CACHE_DIR or postgres.cacheDir to a folder outside it`,
      );
    }
  }
  const begun = performance.now();
  const unlock = await lock(where.lock);
  let started = false;
  let initialized = false;
  let pid: number;
  try {
    mkdirSync(where.leases, { recursive: true });
    const others = liveLeases(where.leases).filter((leaseholder) => leaseholder !== process.pid);
    const running = readPostmasterFile(where.dataDir);
    if (running !== undefined && isPostgresProcess(running.pid) && others.length > 0 && running.status === 'ready') {
      pid = running.pid;
    } else {
      if (running !== undefined && isPostgresProcess(running.pid)) await stopPostmaster(running.pid);
      // A postmaster.pid whose process is gone (or whose pid now names another program).
      rmSync(path.join(where.dataDir, 'postmaster.pid'), { force: true });
      if (!existsSync(path.join(where.dataDir, 'PG_VERSION'))) {
        rmSync(where.dataDir, { recursive: true, force: true });
        initialize(account, options, where.dataDir);
        initialized = true;
      }
      ownedFolder(account, where.socketDir, 0o700);
      pid = await launch(account, options, where);
      started = true;
    }
    writeFileSync(path.join(where.leases, String(process.pid)), '');
  } finally {
    unlock();
  }
  const entry = `${where.leases}\u0000${where.dataDir}`;
  heldLeases.add(entry);
  installExitHandler();
  let released = false;
  let reviving: Promise<boolean> | undefined;
  const revive = async (): Promise<boolean> => {
    if (released) return false;
    const gone = (): LadderError =>
      new LadderError('engine_failure', `the private PostgreSQL server's data folder ${where.dataDir} is gone (deleted while the run used it); the fixtures it held are gone with it: start the run again`);
    if (!existsSync(path.join(where.dataDir, 'PG_VERSION'))) throw gone();
    const unlock = await lock(where.lock);
    try {
      const running = readPostmasterFile(where.dataDir);
      if (running !== undefined && isPostgresProcess(running.pid)) {
        if (running.pid === pid) return false;
        // Another process started it again meanwhile.
        pid = running.pid;
        return true;
      }
      if (!existsSync(path.join(where.dataDir, 'PG_VERSION'))) throw gone();
      rmSync(path.join(where.dataDir, 'postmaster.pid'), { force: true });
      ownedFolder(account, where.socketDir, 0o700);
      // The killed postmaster's backends hold its shared memory until they notice it is gone (a
      // busy one at its statement's deadline); until then a new postmaster refuses to start.
      const until = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        try {
          pid = await launch(account, options, where);
          return true;
        } catch (error) {
          if (Date.now() > until || !/pre-existing shared memory block/.test((error as Error).message)) throw error;
          rmSync(path.join(where.dataDir, 'postmaster.pid'), { force: true });
          await sleep(100);
        }
      }
    } finally {
      unlock();
    }
  };
  return {
    socketDir: where.socketDir,
    port: PORT,
    dataDir: where.dataDir,
    get pid() {
      return pid;
    },
    started,
    initialized,
    startMs: performance.now() - begun,
    revive() {
      // Statements that fail together share one restart.
      reviving ??= revive().finally(() => {
        reviving = undefined;
      });
      return reviving;
    },
    async release() {
      if (released) return;
      released = true;
      heldLeases.delete(entry);
      const release = await lock(where.lock);
      try {
        rmSync(path.join(where.leases, String(process.pid)), { force: true });
        if (liveLeases(where.leases).length === 0) {
          const postmaster = readPostmasterFile(where.dataDir);
          if (postmaster !== undefined && isPostgresProcess(postmaster.pid)) await stopPostmaster(postmaster.pid);
        }
      } finally {
        release();
      }
    },
  };
}

/** Starts the postmaster detached (it outlives a killed run, which the next run finds) and waits until it is ready. */
async function launch(account: RunAs, options: PrivateServerOptions, where: ReturnType<typeof layout>): Promise<number> {
  const log = openSync(where.log, 'a', 0o600);
  const dataKiB = Math.max(1, Math.floor(options.maxMemoryBytes / 1024));
  let exited: string | undefined;
  try {
    const child = spawn('/bin/sh', ['-c', `ulimit -d ${dataKiB} && exec "$0" "$@"`, path.join(options.binaries.binDir, 'postgres'), ...serverArguments(where.dataDir, where.socketDir)], {
      detached: true,
      stdio: ['ignore', log, log],
      env: serverEnvironment(),
      cwd: '/',
      ...(account.root ? { uid: account.uid, gid: account.gid } : {}),
    });
    child.on('exit', (code, signal) => {
      exited = `exit ${code ?? signal}`;
    });
    child.on('error', (error) => {
      exited = error.message;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until) {
    const postmaster = readPostmasterFile(where.dataDir);
    if (postmaster !== undefined && postmaster.status === 'ready' && processAlive(postmaster.pid)) return postmaster.pid;
    if (exited !== undefined) break;
    await sleep(15);
  }
  const tail = existsSync(where.log) ? readFileSync(where.log, 'utf8').trim().split('\n').slice(-5).join(' | ') : '';
  throw new LadderError('engine_failure', `the private PostgreSQL server in ${where.dataDir} did not start (${exited ?? `not ready after ${START_TIMEOUT_MS / 1000} s`}): ${tail}`);
}
