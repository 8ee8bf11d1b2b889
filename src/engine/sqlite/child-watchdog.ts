/**
 * The watchdog inside each engine child process: a worker thread that enforces the statement's
 * deadline and the child's memory cap, and ends the child when its parent is gone. It lives in
 * the child on purpose: a parent busy in synchronous grading (or dead) cannot starve it.
 *
 * Why a thread: SQLite's step is synchronous, so the child's main thread is blocked for as long
 * as a statement runs and cannot watch itself. A worker thread runs beside it and may call
 * `process.kill(process.pid, 'SIGKILL')` while the main thread is still inside SQLite (measured
 * with better-sqlite3 12 on Node 20: the child dies within one sample).
 *
 * Protocol (one `SharedArrayBuffer`, no messages):
 * - the main thread writes the running job's start and deadline (monotonic ms), then stores the
 *   job id in the state word; when the job ends it swaps the id back to 0 with compare-and-swap.
 *   It wakes the thread only when the thread sleeps idle (the idle word is 1): while jobs follow
 *   one another the thread is sampling anyway, and a wake per job (a futex call and a thread
 *   switch each way) cost about as much as a short Spider query;
 * - after a job ends the thread goes on sampling for {@link IDLE_AFTER_MS} ms before it sleeps
 *   idle, so a job that starts after a short wait for the parent (the usual gap between batches)
 *   needs no wake either: it is seen at the next sample, as a job that follows another is;
 * - the thread samples every {@link WATCHDOG_SAMPLE_MS} ms while a job runs: above the memory
 *   cap (process RSS, which counts SQLite's heap and its in-memory temp storage) or past the
 *   deadline it claims the job with compare-and-swap (id → −1), writes one report line to the
 *   report fd and SIGKILLs the process. Whoever swaps first decides, so a statement that has
 *   finished is never turned into a timeout, and a killed one never reports a result;
 * - while idle it wakes every {@link PARENT_POLL_MS} ms and checks `process.ppid`: a child whose
 *   parent died (any signal, SIGKILL included) has been re-parented and kills itself.
 *
 * Report lines start with {@link WATCHDOG_REPORT_PREFIX} and hold JSON
 * ({@link WatchdogReport}); the parent reads them from the child's stdout.
 *
 * The child takes jobs before the thread runs: a thread boots a Node environment of its own (50–100
 * ms, longer than the child's own start), and it boots on its own even while a statement blocks
 * the main thread. A job begun before then is in the shared state already, so the thread's first
 * sample judges it by its own start and deadline like any other; only the slack of that first
 * check is longer (the thread's boot instead of one sample).
 */
import { Worker } from 'node:worker_threads';

/** How often a running job's RSS and deadline are sampled, in milliseconds. */
export const WATCHDOG_SAMPLE_MS = 10;

/** How often an idle child checks that its parent is alive, in milliseconds. */
export const PARENT_POLL_MS = 100;

/** How long the thread keeps sampling after the last job ended before it sleeps idle, in milliseconds. */
export const IDLE_AFTER_MS = 100;

/** Marks a watchdog report line on the child's stdout. */
export const WATCHDOG_REPORT_PREFIX = 'text2sql-ladder-watchdog ';

/** What the watchdog reports just before it kills its process. */
export type WatchdogReport =
  /** The job ran past its deadline; `elapsedMs` as the child measured it. */
  | { readonly kind: 'timeout'; readonly job: number; readonly timeoutMs: number; readonly elapsedMs: number }
  /** The process RSS passed the cap while the job ran. */
  | { readonly kind: 'memory_limit'; readonly job: number; readonly rssBytes: number; readonly maxMemoryBytes: number };

/** Settings of the watchdog thread. */
export interface WatchdogSettings {
  /** RSS cap of the whole child process, in bytes. */
  readonly maxMemoryBytes: number;
  /** The pid the child was started by; when `process.ppid` differs, the parent is gone. */
  readonly parentPid: number;
  /** File descriptor the report line is written to (the child's stdout, a pipe to the parent). */
  readonly reportFd: number;
}

/** The main thread's handle on its watchdog. */
export interface ChildWatchdog {
  /**
   * Marks job `id` as running with a deadline of `timeoutMs` from now.
   * @param id - job id (≥ 1).
   * @param timeoutMs - deadline in milliseconds.
   */
  begin(id: number, timeoutMs: number): void;
  /**
   * Marks job `id` as finished.
   * @returns true when the job finished before the watchdog claimed it; false when the watchdog
   *   is killing the process (the caller must not report a result).
   */
  end(id: number): boolean;
}

/** Slots of the shared state (Int32 view). */
const STATE = 0;
/** 1 while the thread sleeps with no job (it then needs a wake to start sampling), else 0. */
const IDLE = 1;
/** Slots of the shared times (Float64 view, after the Int32 words). */
const STARTED_AT = 0;
const DEADLINE_AT = 1;
/** State word value while the watchdog is killing the process. */
const CLAIMED = -1;
/** Bytes of the Int32 words before the Float64 times (8-byte aligned). */
const TIMES_OFFSET = 8;

/** Everything the thread needs, passed as `workerData` (its code cannot see this module's constants). */
interface ThreadData extends WatchdogSettings {
  readonly control: SharedArrayBuffer;
  readonly sampleMs: number;
  readonly parentPollMs: number;
  readonly idleAfterMs: number;
  readonly prefix: string;
  readonly layout: { readonly state: number; readonly idle: number; readonly startedAt: number; readonly deadlineAt: number; readonly claimed: number; readonly timesOffset: number };
}

/**
 * Starts the watchdog thread of this process. The handle works at once: jobs begun before the
 * thread runs are judged at its first sample (see the module doc).
 *
 * @param settings - memory cap, parent pid and report fd.
 * @param onFailure - called when the thread cannot start or stops (the child must not run jobs
 *   unwatched: the caller ends the process).
 * @returns the handle.
 */
export function startChildWatchdog(settings: WatchdogSettings, onFailure: (error: unknown) => void): ChildWatchdog {
  const control = new SharedArrayBuffer(TIMES_OFFSET + 2 * Float64Array.BYTES_PER_ELEMENT);
  const state = new Int32Array(control, 0, 2);
  const times = new Float64Array(control, TIMES_OFFSET, 2);
  const data: ThreadData = {
    ...settings,
    control,
    sampleMs: WATCHDOG_SAMPLE_MS,
    parentPollMs: PARENT_POLL_MS,
    idleAfterMs: IDLE_AFTER_MS,
    prefix: WATCHDOG_REPORT_PREFIX,
    layout: { state: STATE, idle: IDLE, startedAt: STARTED_AT, deadlineAt: DEADLINE_AT, claimed: CLAIMED, timesOffset: TIMES_OFFSET },
  };
  // The thread's code is this module's own function, run from source: worker threads do not get
  // the TypeScript loader of the main thread, and the compiled function text needs no import.
  // `__name` is the helper a TypeScript runner may insert into compiled functions.
  // `require` goes in as an argument: a bundler rewrites a `require` it sees in this module's code.
  const source = `const __name = (fn) => fn;\n(${watchdogThread.toString()})(require('node:worker_threads').workerData, require);`;
  // No inherited options: the code is self-contained CommonJS (the child's `--import` of a
  // TypeScript loader under a test runner has nothing to do here).
  const worker = new Worker(source, { eval: true, execArgv: [], workerData: data });
  worker.once('error', onFailure);
  // The thread loops until it kills the process: any exit of its own is a failure.
  worker.once('exit', (code) => onFailure(new Error(`watchdog thread exited with code ${code}`)));
  // The thread must never keep the child alive by itself (the IPC channel decides that).
  worker.unref();
  return {
    begin(id, timeoutMs) {
      const now = monotonicMs();
      times[STARTED_AT] = now;
      times[DEADLINE_AT] = now + timeoutMs;
      Atomics.store(state, STATE, id);
      if (Atomics.load(state, IDLE) === 1) Atomics.notify(state, STATE);
    },
    end(id) {
      // No wake: the thread sees the job gone at its next sample (at most WATCHDOG_SAMPLE_MS).
      return Atomics.compareExchange(state, STATE, id, 0) === id;
    },
  };
}

/** Monotonic milliseconds, the same clock in every thread of the process. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The thread's body (see the module doc). Self-contained on purpose: it is run from its source
 * text, so it may use only its arguments and globals.
 * @param data - the thread's settings.
 * @param load - the thread's `require`.
 */
function watchdogThread(data: ThreadData, load: NodeJS.Require): void {
  const fs = load('node:fs') as typeof import('node:fs');
  const { state: STATE_SLOT, idle: IDLE_SLOT, startedAt, deadlineAt, claimed, timesOffset } = data.layout;
  const state = new Int32Array(data.control, 0, 2);
  const times = new Float64Array(data.control, timesOffset, 2);
  /** When the thread last saw a job running (monotonic ms). */
  let lastBusyAt = -Infinity;
  for (;;) {
    if (process.ppid !== data.parentPid) process.kill(process.pid, 'SIGKILL');
    const job = Atomics.load(state, STATE_SLOT);
    if (job <= 0 && Number(process.hrtime.bigint()) / 1e6 - lastBusyAt < data.idleAfterMs) {
      // Lately busy: keep sampling, not idle, so the next job needs no wake.
      Atomics.wait(state, STATE_SLOT, job, data.sampleMs);
      continue;
    }
    if (job <= 0) {
      // Idle: say so before sleeping, then look again, so a job begun in between is not slept through.
      Atomics.store(state, IDLE_SLOT, 1);
      if (Atomics.load(state, STATE_SLOT) === job) Atomics.wait(state, STATE_SLOT, job, data.parentPollMs);
      Atomics.store(state, IDLE_SLOT, 0);
      continue;
    }
    const now = Number(process.hrtime.bigint()) / 1e6;
    lastBusyAt = now;
    const started = times[startedAt]!;
    const deadline = times[deadlineAt]!;
    const rss = process.memoryUsage.rss();
    let report: WatchdogReport | undefined;
    if (rss > data.maxMemoryBytes) report = { kind: 'memory_limit', job, rssBytes: rss, maxMemoryBytes: data.maxMemoryBytes };
    else if (now >= deadline) report = { kind: 'timeout', job, timeoutMs: Math.round(deadline - started), elapsedMs: now - started };
    if (report !== undefined && Atomics.compareExchange(state, STATE_SLOT, job, claimed) === job) {
      try {
        fs.writeSync(data.reportFd, `${data.prefix}${JSON.stringify(report)}\n`);
      } finally {
        process.kill(process.pid, 'SIGKILL');
      }
    }
    Atomics.wait(state, STATE_SLOT, job, Math.max(1, Math.min(data.sampleMs, deadline - now)));
  }
}

/**
 * Reads a watchdog report out of the child's stdout text.
 * @param text - what the child wrote to stdout (any number of lines).
 * @returns the last report, or `undefined` when there is none.
 */
export function readWatchdogReport(text: string): WatchdogReport | undefined {
  let found: WatchdogReport | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(WATCHDOG_REPORT_PREFIX)) continue;
    try {
      const parsed = JSON.parse(line.slice(WATCHDOG_REPORT_PREFIX.length)) as WatchdogReport;
      if (parsed.kind === 'timeout' || parsed.kind === 'memory_limit') found = parsed;
    } catch {
      // A torn line (the process died mid-write) is no report.
    }
  }
  return found;
}
