/**
 * Starting SQLite engine children (sqlite-child.ts): the fork with its memory caps and output
 * tails, the exit hook that kills every child still alive, and the children started ahead of any
 * pool (a command line forks one while it still loads its modules) that the first pool with the
 * same memory cap adopts. The pool (sqlite-pool.ts) decides when a child starts and what it runs.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LadderError } from '../../errors.js';
import type { ChildMessage } from './sqlite-protocol.js';
import { SQLITE_ENGINE_DEFAULTS } from './sqlite-defaults.js';
import { untagRows, type WireCell } from './wire-cells.js';

/** A started child process and what it has said so far (owned by a pool, or standing by). */
export interface StartedChild {
  readonly child: ChildProcess;
  /** The RSS cap it was started with (argv), in bytes. */
  readonly maxMemoryBytes: number;
  /** `performance.now()` when it was forked. */
  readonly forkedAt: number;
  ready: boolean;
  /** `performance.now()` when it announced `ready`. */
  readyAt: number | undefined;
  /** Last bytes of the child's stderr, for failure messages. */
  stderrTail: string;
  /** Last bytes of the child's stdout, where its watchdog writes its report. */
  stdoutTail: string;
  readonly exited: Promise<void>;
  /** Where its messages and its end go; set by the pool that owns it. */
  onMessage: (message: ChildMessage) => void;
  onClose: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** Children alive in this process, across pools: killed on process exit. */
const allChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills every child still alive when this process exits (installed once). */
export function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of allChildren) child.kill('SIGKILL');
  });
}

/** Heap cap of a child's V8 (`--max-old-space-size`) for an RSS cap: the whole cap, at least 16 MiB. */
export function heapMiBFor(maxMemoryBytes: number): number {
  return Math.max(16, Math.floor(maxMemoryBytes / 2 ** 20));
}

/**
 * The environment of a child: this process's, without `NODE_EXTRA_CA_CERTS`. Node reads and parses
 * that certificate file at every process start (about 40 ms for a system bundle), and a child
 * only reads local SQLite files: it never opens a TLS connection.
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env['NODE_EXTRA_CA_CERTS'] === undefined) return env;
  const { NODE_EXTRA_CA_CERTS: _unused, ...rest } = env;
  return rest;
}

/** V8 flags of the children this process starts from now on (default none: V8's own). */
let childV8Flags: readonly string[] = [];

/**
 * Sets the V8 flags of the engine children this process starts from now on (children already
 * running keep theirs). The command line passes `['--no-opt']` for a short run, whose children run
 * too few statements for V8's optimizing compiler to pay for itself (docs/performance.md); a
 * library user's children get V8's defaults.
 * @param flags - e.g. `['--no-opt']`; V8 flags only (a child's memory caps are added to them).
 */
export function setEngineChildV8Flags(flags: readonly string[]): void {
  childV8Flags = [...flags];
}

/** Forks one child; its events go to the handlers its owner sets (until then: recorded only). */
export function startChild(entry: { file: string; execArgv: string[] }, maxMemoryBytes: number): StartedChild {
  installExitHook();
  const child = fork(entry.file, [String(process.pid), String(maxMemoryBytes)], {
    serialization: 'json',
    execArgv: [...entry.execArgv, ...childV8Flags, `--max-old-space-size=${heapMiBFor(maxMemoryBytes)}`],
    env: childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  allChildren.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started: StartedChild = {
    child,
    maxMemoryBytes,
    forkedAt: performance.now(),
    ready: false,
    readyAt: undefined,
    stderrTail: '',
    stdoutTail: '',
    exited,
    onMessage: () => {},
    onClose: () => {},
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    started.stderrTail = (started.stderrTail + chunk).slice(-4096);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    started.stdoutTail = (started.stdoutTail + chunk).slice(-4096);
  });
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  child.on('message', (message: ChildMessage) => {
    if (message.type === 'result' && message.tagged && message.outcome.ok && 'result' in message.outcome && 'rows' in message.outcome.result) untagRows(message.outcome.result.rows as unknown as WireCell[][]);
    if (message.type === 'rows' && message.tagged) untagRows(message.rows as WireCell[][]);
    started.onMessage(message);
  });
  // 'close' (not 'exit'): stderr is fully read by then, so a V8 heap overflow is recognised.
  child.once('close', (code, signal) => {
    allChildren.delete(child);
    started.onClose(code, signal);
  });
  child.on('error', () => {
    // 'exit' follows (or the spawn failed and 'exit' reports it); nothing else to do here.
  });
  return started;
}

/** Children started ahead of any pool ({@link startSqliteChildrenAhead}), not yet adopted. */
const standby: StartedChild[] = [];

/**
 * Live children owned by pools, by RSS cap. While a pool with that cap has one, a child started
 * ahead would wait unadopted (a pool takes a standby child only when it grows) and cost a Node
 * start for nothing, so {@link startSqliteChildrenAhead} starts none.
 */
const poolChildrenByCap = new Map<number, number>();

/** Records that a pool owns `started` until its process exits (see {@link startSqliteChildrenAhead}). */
export function claimForPool(started: StartedChild): void {
  poolChildrenByCap.set(started.maxMemoryBytes, (poolChildrenByCap.get(started.maxMemoryBytes) ?? 0) + 1);
  started.child.once('exit', () => {
    const left = (poolChildrenByCap.get(started.maxMemoryBytes) ?? 1) - 1;
    if (left > 0) poolChildrenByCap.set(started.maxMemoryBytes, left);
    else poolChildrenByCap.delete(started.maxMemoryBytes);
  });
}

/**
 * Takes a child standing by that was started with this RSS cap, for a pool to adopt.
 * @returns the child (its handlers still the standby ones: the pool sets its own), or `undefined`.
 */
export function takeStandbyChild(maxMemoryBytes: number): StartedChild | undefined {
  const index = standby.findIndex((started) => started.maxMemoryBytes === maxMemoryBytes);
  return index >= 0 ? standby.splice(index, 1)[0] : undefined;
}

/** Keeps Node alive for a child (its process and IPC channel) or not. */
export function setChildRef(child: ChildProcess, on: boolean): void {
  const channel = child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
  if (on) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}

/**
 * Starts engine children before any pool exists, so that their start-up overlaps the caller's
 * (a command line loading its modules). The first pool created with the same `maxMemoryBytes`
 * adopts them; until then they keep nothing alive, and a process that never creates such a pool
 * kills them at exit. At most `count` stand by at once. None starts while a pool with that cap
 * already has a live child (a warm-up that comes after the first statement): it would never be
 * adopted unless that pool grew.
 * @param count - children to have standing by (≥ 1).
 * @param maxMemoryBytes - the RSS cap they are started with (the pool's must be equal to adopt them).
 */
export function startSqliteChildrenAhead(count: number, maxMemoryBytes: number): void {
  if ((poolChildrenByCap.get(maxMemoryBytes) ?? 0) > 0) return;
  const entry = childEntry();
  while (standby.length < count) {
    const started = startChild(entry, maxMemoryBytes);
    standby.push(started);
    started.onMessage = (message) => {
      if (message.type !== 'ready') return;
      started.ready = true;
      started.readyAt = performance.now();
    };
    started.onClose = () => {
      const index = standby.indexOf(started);
      if (index >= 0) standby.splice(index, 1);
    };
    setChildRef(started.child, false);
  }
}

/**
 * Starts one engine child now, before any engine exists, with the default memory cap: the first
 * engine created with that cap (the default) adopts it instead of forking its own. For a command
 * line that will run SQL, called before it loads its modules, so the child's start-up (a Node
 * start, better-sqlite3, the watchdog thread) overlaps the parent's. Until adopted the child keeps
 * nothing alive; a process that never creates such an engine kills it at exit.
 */
export function startSqliteChildAhead(): void {
  startSqliteChildrenAhead(1, SQLITE_ENGINE_DEFAULTS.maxMemoryBytes);
}

/** The child entry next to this module: `.ts` under a TypeScript runner (vitest), `.js` in dist. */
export function childEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const file = path.join(path.dirname(here), `sqlite-child${extension}`);
  if (extension !== '.ts') return { file, execArgv: [] };
  let loader: string;
  try {
    loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  } catch (error) {
    throw new LadderError('engine_failure', `running the engine from TypeScript sources needs the tsx package to start ${file}`, { cause: error });
  }
  return { file, execArgv: ['--import', loader] };
}
