/**
 * A pool of child processes that run SQLite jobs (sqlite-child.ts). A child runs one job at a
 * time; up to {@link MAX_JOBS_IN_FLIGHT} jobs are sent to it ahead, so it never idles waiting for
 * the parent between jobs. The jobs queued for a child in one turn of the parent's event loop go
 * in one IPC message (one pipe write; a job for an idle child leaves at once); the child answers
 * each job on its own, in order, so the first unanswered job is the running one.
 *
 * - Children start lazily and one at a time: the first with the first job, another only when a
 *   job has waited in the queue, with every ready child full, for as long as a child took to
 *   start ({@link shouldGrow}); up to `size`. Each child costs a Node start plus its watchdog
 *   thread (about 100 ms of CPU on an idle machine), so a run of short statements stays on one
 *   child, while slow statements (or a stuck one) bring in more. `warm(n)` starts n ahead of the
 *   first job; {@link startSqliteChildrenAhead} starts one before the pool exists (a command line
 *   that will run SQL, while it still loads its modules), and the first pool with the same memory
 *   cap adopts it. A child announces `ready` when it can take jobs.
 * - Deadline and memory cap are enforced inside each child by its watchdog thread
 *   (child-watchdog.ts), measured from the job's own start in the child: a parent blocked in
 *   synchronous work neither lets a runaway statement grow nor turns a finished statement into a
 *   timeout. The watchdog writes one report line to the child's stdout and SIGKILLs the child; the
 *   parent reads the report when the child's pipes close and answers the running job with
 *   `timeout` or `memory_limit`. SQLite's `hard_heap_limit` is not enforced in this build, so the
 *   watchdog reads the process RSS, which also counts SQLite's in-memory temp storage. The
 *   child's V8 heap is capped too (`--max-old-space-size`); a child that dies of a JavaScript
 *   heap overflow is reported as `memory_limit`.
 * - A backstop in the parent kills a child that has not answered {@link backstopMs} after the
 *   parent saw the job start (only a wedged child, never a slow statement: the watchdog ends those
 *   first). Before it acts it lets the event loop read pending IPC twice, so a result that
 *   arrived while the parent was blocked wins.
 * - When a child is killed or dies, only the job it was running fails; the jobs sent ahead to it
 *   go back to the front of the queue, and a replacement starts.
 * - Jobs sent ahead never wait long behind a slow one: once a job has run for a child's start-up
 *   time ({@link stallMs}), the jobs behind it go back to the front of the queue, where an idle
 *   child or one started for them ({@link shouldGrow}) takes them; the stalled child gets no new
 *   job until it has answered all it holds, and the first answer for a job wins.
 * - Idle children are `unref`ed (process, IPC channel and pipes), so an engine that is never
 *   closed does not keep Node alive; on process exit every child still alive is SIGKILLed; a child
 *   ends itself when its parent dies, whatever the signal (IPC `disconnect` while idle, the
 *   watchdog's parent-pid check while a statement runs).
 */
import { LadderError } from '../../errors.js';
import type { ExecutionError, ExecutionOutcome, ExplainOutcome } from '../engine.js';
import { readWatchdogReport } from './child-watchdog.js';
import { childEntry, claimForPool, heapMiBFor, installExitHook, setChildRef, startChild, takeStandbyChild, type StartedChild } from './sqlite-children.js';
export { startSqliteChildrenAhead } from './sqlite-children.js';
import type { CatalogOutcome, ChildBatch, ChildMessage, ChildRequest } from './sqlite-protocol.js';

/**
 * Most jobs in flight per child: the running one plus those sent ahead. Deep enough that a run of
 * short statements (a Spider item's gold and prediction, eight items at once) never waits for
 * the parent; a job stuck behind a slow one is handed back after {@link stallMs}.
 */
export const MAX_JOBS_IN_FLIGHT = 32;

/** Start-up failures in a row after which queued jobs are rejected instead of retried. */
const MAX_START_FAILURES = 3;

/** Any job's outcome. */
export type PoolOutcome = ExecutionOutcome | ExplainOutcome | CatalogOutcome;

/** Resolved pool settings (validated by sqlite-engine-options.ts). */
export interface SqlitePoolOptions {
  /** Most children alive at once (≥ 1). */
  readonly size: number;
  /** RSS cap per child, in bytes. */
  readonly maxMemoryBytes: number;
}

/** The pool's surface. */
export interface SqlitePool {
  /**
   * Runs one job on a child.
   * @param request - the job without its id; its `timeoutMs` counts from the moment the child
   *   starts the job.
   * @returns the child's outcome, or `timeout` / `memory_limit` / `engine_failure` when the child
   *   was killed or died.
   * @throws LadderError `engine_closed` after {@link SqlitePool.close} (also for jobs still queued
   *   or running when it is called); `engine_failure` when children cannot start.
   */
  run(request: Omit<ChildRequest, 'id'>): Promise<PoolOutcome>;
  /**
   * Starts children now, up to `count` alive (at most `size`), so that their start-up overlaps the
   * caller's own (loading input, parsing); idle, they keep nothing alive. Never needed for results.
   */
  warm(count: number): void;
  /** Number of live child processes (starting, idle or busy). */
  readonly liveChildren: number;
  /** Process ids of the live children (for tests and diagnostics). */
  readonly childPids: readonly number[];
  /** IPC messages that carried jobs to children so far, and the jobs they carried (for tests and diagnostics). */
  readonly sent: { readonly batches: number; readonly jobs: number };
  /** SIGKILLs every child and resolves once all have exited. Idempotent. */
  close(): Promise<void>;
}

interface Job {
  readonly id: number;
  readonly request: ChildRequest;
  readonly resolve: (outcome: PoolOutcome) => void;
  readonly reject: (error: unknown) => void;
  /** `performance.now()` when it was queued. */
  readonly queuedAt: number;
  /** Set once the job has its outcome (or was rejected): any later answer for it is dropped. */
  settled: boolean;
  /** Whether it waits in the queue. */
  queued: boolean;
  /** Live children it was sent to that have not answered it (2 while a copy handed back runs elsewhere). */
  holders: number;
}

interface Slot extends StartedChild {
  /** Jobs sent to the child and not answered yet, in the order it answers them; the first one is running. */
  readonly sent: Job[];
  /** Jobs picked for this child in the current turn, sent together in one message. */
  readonly outbox: ChildRequest[];
  /** Databases this child has open (preferred for later jobs on the same db). */
  readonly dbs: Set<string>;
  /** Set when the parent killed the child on purpose. */
  killedFor: 'backstop' | 'close' | undefined;
  /**
   * Set when the jobs waiting behind a long-running one were handed back to the queue
   * ({@link stallMs}): the child gets no new job until it has answered everything it was sent.
   */
  stalled: boolean;
  /** The parent's backstop for the running job (see {@link backstopMs}). */
  backstop: NodeJS.Timeout | undefined;
  /** Hands the jobs waiting behind the running one back to the queue (see {@link stallMs}). */
  stallTimer: NodeJS.Timeout | undefined;
  /** Rows of the running job's result received ahead of its `result` message (`rows` messages). */
  rowsAhead: unknown[][][];
}

/**
 * How long the parent waits for a child's answer, from the moment it saw the job start, before
 * it kills the child itself: twice the deadline plus 5 s. Only a child whose watchdog failed gets
 * there; the watchdog ends a slow statement at its deadline.
 */
export function backstopMs(timeoutMs: number): number {
  return Math.min(2 ** 31 - 1, 2 * timeoutMs + 5_000);
}

/**
 * Whether the pool should start one more child: a job has waited in the queue, while every ready
 * child was full, for at least as long as a child takes to start (then a new child would have
 * answered sooner). Never while a child is still starting, and never past `size`.
 * @param waitedMs - how long the oldest queued job has waited since a ready child was full.
 * @param startupMs - how long the latest child took from fork to `ready`.
 */
export function shouldGrow(state: { readonly live: number; readonly starting: number; readonly size: number; readonly waitedMs: number; readonly startupMs: number }): boolean {
  return state.live < state.size && state.starting === 0 && state.waitedMs >= state.startupMs;
}

/**
 * How long a child may run one job, in milliseconds, before the jobs sent ahead to it go back to
 * the queue: as long as a child takes to start (then another child, started or idle, answers them
 * sooner), at least 50 ms.
 * @param startupMs - fork → ready of the latest child.
 */
export function stallMs(startupMs: number): number {
  return Math.max(50, Math.ceil(startupMs));
}

/** Start-up time assumed before any child has been seen start, in milliseconds. */
const DEFAULT_STARTUP_MS = 250;

/**
 * Creates a pool. No child starts until the first job.
 * @param options - resolved settings.
 */
export function createSqlitePool(options: SqlitePoolOptions): SqlitePool {
  installExitHook();
  const entry = childEntry();
  const heapMiB = heapMiBFor(options.maxMemoryBytes);
  const slots: Slot[] = [];
  /** Jobs waiting for a child, oldest first; a settled one (answered by a copy elsewhere) is skipped. */
  const queue: Job[] = [];
  let nextId = 1;
  let closing: Promise<void> | undefined;
  let startFailures = 0;
  /** Fork → ready of the latest child, in ms (see {@link shouldGrow}). */
  let startupMs = DEFAULT_STARTUP_MS;
  /** `performance.now()` of the latest `ready`: a job's wait counts from then at the earliest. */
  let lastReadyAt = 0;
  let growTimer: NodeJS.Timeout | undefined;
  /** Whether a {@link pump} is scheduled for the end of this turn of the event loop. */
  let pumpScheduled = false;
  const sentCounts = { batches: 0, jobs: 0 };

  function spawn(): void {
    const started = takeStandbyChild(options.maxMemoryBytes) ?? startChild(entry, options.maxMemoryBytes);
    claimForPool(started);
    const slot: Slot = Object.assign(started, {
      sent: [] as Job[],
      outbox: [] as ChildRequest[],
      dbs: new Set<string>(),
      killedFor: undefined as Slot['killedFor'],
      stalled: false,
      backstop: undefined,
      stallTimer: undefined,
      rowsAhead: [] as unknown[][][],
    });
    slots.push(slot);
    slot.onMessage = (message) => onMessage(slot, message);
    slot.onClose = (code, signal) => onExit(slot, code, signal);
    if (slot.readyAt !== undefined) {
      lastReadyAt = performance.now();
      startupMs = slot.readyAt - slot.forkedAt;
    }
  }

  function setRef(slot: Slot, on: boolean): void {
    setChildRef(slot.child, on);
  }

  function pump(): void {
    if (closing) return;
    if (queue.length > 0 && slots.length === 0) spawn();
    assignQueued();
    // A child adopted from standby may be ready at once.
    if (growIfWaiting()) assignQueued();
    // Keep Node alive only while a job runs or waits for a starting child.
    for (const slot of slots) setRef(slot, slot.sent.length > 0 || (!slot.ready && queue.length > 0));
  }

  /**
   * Pumps at the end of this turn of the event loop, so that every job queued in the turn (the
   * answers read in one go resolve several items, each queues its next statements) goes to a
   * child in one message.
   */
  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  /** A ready child that can take jobs now. */
  function isOpen(slot: Slot): boolean {
    return slot.ready && !slot.killedFor && !slot.stalled && slot.sent.length < MAX_JOBS_IN_FLIGHT;
  }

  /** Sends queued jobs to ready children with room, in queue order, one message per child. */
  function assignQueued(): void {
    let open = slots.filter(isOpen);
    while (queue.length > 0 && open.length > 0) {
      const job = queue.shift()!;
      job.queued = false;
      if (job.settled) continue;
      // Least loaded first; among those, a child that already has the database open.
      let least = Infinity;
      for (const slot of open) least = Math.min(least, slot.sent.length);
      const candidates = open.filter((slot) => slot.sent.length === least);
      const slot = candidates.find((candidate) => candidate.dbs.has(job.request.db)) ?? candidates[0]!;
      slot.sent.push(job);
      slot.outbox.push(job.request);
      job.holders += 1;
      if (slot.sent.length === 1) startRunning(slot);
      if (slot.sent.length >= MAX_JOBS_IN_FLIGHT) open = open.filter((other) => other !== slot);
    }
    for (const slot of slots) {
      if (slot.outbox.length === 0) continue;
      sentCounts.batches += 1;
      sentCounts.jobs += slot.outbox.length;
      slot.child.send({ jobs: slot.outbox.splice(0) } satisfies ChildBatch);
    }
  }

  /**
   * Starts one more child when the oldest queued job has waited, while a ready child was full,
   * as long as a child takes to start (see {@link shouldGrow}); else looks again when it will have.
   * @returns whether a child was started.
   */
  function growIfWaiting(): boolean {
    const oldest = queue.find((job) => !job.settled);
    if (oldest === undefined || !slots.some((slot) => slot.ready)) return false;
    const now = performance.now();
    const since = Math.max(oldest.queuedAt, lastReadyAt);
    const starting = slots.filter((slot) => !slot.ready).length;
    if (shouldGrow({ live: slots.length, starting, size: options.size, waitedMs: now - since, startupMs })) {
      spawn();
      return true;
    }
    if (growTimer === undefined && starting === 0 && slots.length < options.size) {
      growTimer = setTimeout(() => {
        growTimer = undefined;
        pump();
      }, Math.max(1, Math.ceil(since + startupMs - now)));
      growTimer.unref();
    }
    return false;
  }

  /** The child's first unanswered job is running from now (as far as the parent can see): arm its timers. */
  function startRunning(slot: Slot): void {
    const job = slot.sent[0]!;
    const waitMs = backstopMs(job.request.timeoutMs);
    slot.backstop = setTimeout(() => {
      // Let the event loop read IPC that arrived while the parent was blocked: a result that is
      // already there must win over the backstop.
      setImmediate(() =>
        setImmediate(() => {
          if (slot.sent[0] !== job || slot.killedFor) return;
          kill(slot, {
            code: 'timeout',
            message: `timeout: the child did not answer within ${waitMs} ms (deadline ${job.request.timeoutMs} ms; its watchdog did not end it); child process killed`,
          });
        }),
      );
    }, waitMs);
    slot.backstop.unref();
    // Only a pool that can use another child hands jobs back.
    if (options.size > 1) {
      slot.stallTimer = setTimeout(() => handBack(slot, job), stallMs(startupMs));
      slot.stallTimer.unref();
    }
  }

  function stopTimers(slot: Slot): void {
    if (slot.backstop !== undefined) clearTimeout(slot.backstop);
    if (slot.stallTimer !== undefined) clearTimeout(slot.stallTimer);
    slot.backstop = slot.stallTimer = undefined;
  }

  /**
   * The child has run `running` for a child's start-up time and jobs wait behind it: they go back
   * to the front of the queue (from where another child, or one started for them, takes them).
   * The child still answers them after `running`; whichever answer comes first counts.
   */
  function handBack(slot: Slot, running: Job): void {
    slot.stallTimer = undefined;
    if (slot.sent[0] !== running || slot.killedFor) return;
    const waiting = slot.sent.slice(1).filter((job) => !job.settled && !job.queued);
    if (waiting.length === 0) return;
    slot.stalled = true;
    requeue(waiting);
    pump();
  }

  /** Puts jobs back at the front of the queue, in their order. */
  function requeue(jobs: readonly Job[]): void {
    for (const job of jobs) job.queued = true;
    queue.unshift(...jobs);
  }

  /**
   * Takes every job from a child that is gone or going: the running one is returned (unless it
   * was already answered elsewhere), the others go back to the queue unless they are settled,
   * queued already, or still held by another child.
   */
  function takeJobs(slot: Slot): Job | undefined {
    stopTimers(slot);
    slot.rowsAhead.length = 0;
    const [running, ...waiting] = slot.sent.splice(0);
    if (running) running.holders -= 1;
    for (const job of waiting) job.holders -= 1;
    requeue(waiting.filter((job) => !job.settled && !job.queued && job.holders === 0));
    return running !== undefined && !running.settled ? running : undefined;
  }

  /** Ends the running job with `error`, requeues the rest, SIGKILLs the child, starts a replacement. */
  function kill(slot: Slot, error: ExecutionError): void {
    slot.killedFor = 'backstop';
    const running = takeJobs(slot);
    removeSlot(slot);
    slot.child.kill('SIGKILL');
    if (running) finish(running, { ok: false, error });
    replaceSoon();
  }

  /** Forks a replacement after the caller has seen its result: fork() is synchronous and slow. */
  function replaceSoon(): void {
    setImmediate(() => {
      if (!closing && slots.length < options.size) spawn();
      pump();
    });
  }

  function finish(job: Job, outcome: PoolOutcome): void {
    job.settled = true;
    job.resolve(outcome);
  }

  function fail(job: Job, error: unknown): void {
    job.settled = true;
    job.reject(error);
  }

  function removeSlot(slot: Slot): void {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
  }

  function onMessage(slot: Slot, message: ChildMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      slot.readyAt = lastReadyAt = performance.now();
      startupMs = lastReadyAt - slot.forkedAt;
      startFailures = 0;
      pump();
      return;
    }
    // The child answers in the order it was sent its jobs.
    const job = slot.sent[0];
    if (!job || job.id !== message.id) return;
    if (message.type === 'rows') {
      slot.rowsAhead.push(message.rows);
      return;
    }
    stopTimers(slot);
    const outcome = slot.rowsAhead.length === 0 ? message.outcome : withRowsAhead(message.outcome, slot.rowsAhead.splice(0));
    slot.sent.shift();
    job.holders -= 1;
    slot.dbs.add(job.request.db);
    if (slot.sent.length > 0) startRunning(slot);
    else slot.stalled = false;
    if (!job.settled) finish(job, outcome);
    schedulePump();
  }

  function onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    removeSlot(slot);
    if (slot.killedFor) return;
    const runningId = slot.sent[0]?.id;
    const job = takeJobs(slot);
    const report = readWatchdogReport(slot.stdoutTail);
    if (report && report.job === runningId) {
      if (job) {
        finish(
          job,
          report.kind === 'timeout'
            ? { ok: false, error: { code: 'timeout', message: `timeout: deadline of ${job.request.timeoutMs} ms passed; child process killed` } }
            : {
                ok: false,
                error: {
                  code: 'memory_limit',
                  message: `memory limit: child RSS ${formatMiB(report.rssBytes)} passed the cap of ${formatMiB(options.maxMemoryBytes)} (maxMemoryBytes); child process killed`,
                },
              },
        );
      }
      replaceSoon();
      return;
    }
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const tail = slot.stderrTail.trim().split('\n').slice(-3).join(' | ');
    if (runningId !== undefined) {
      const outOfHeap = /heap out of memory|Reached heap limit/i.test(slot.stderrTail);
      if (job) {
        finish(
          job,
          outOfHeap
            ? { ok: false, error: { code: 'memory_limit', message: `memory limit: the child's JavaScript heap passed ${heapMiB} MiB (maxMemoryBytes); child process died` } }
            : { ok: false, error: { code: 'engine_failure', message: `engine failure: child process died (${how})${tail ? `: ${tail}` : ''}; replaced` } },
        );
      }
    } else if (!slot.ready && !closing) {
      startFailures += 1;
      if (startFailures >= MAX_START_FAILURES) {
        const failure = new LadderError('engine_failure', `engine child ${entry.file} failed to start ${startFailures} times (${how})${tail ? `: ${tail}` : ''}`);
        for (const queued of queue.splice(0)) if (!queued.settled) fail(queued, failure);
        return;
      }
    }
    pump();
  }

  return {
    run(request) {
      if (closing) return Promise.reject(new LadderError('engine_closed', 'the engine is closed; create a new one with createSqliteEngine()'));
      return new Promise<PoolOutcome>((resolve, reject) => {
        const id = nextId;
        nextId += 1;
        queue.push({ id, request: { ...request, id }, resolve, reject, queuedAt: performance.now(), settled: false, queued: true, holders: 0 });
        // An idle child starts the job at once (the caller may block its event loop next); jobs
        // for busy children leave together at the end of the turn.
        if (slots.length === 0 || slots.some((slot) => slot.ready && slot.sent.length === 0 && isOpen(slot))) pump();
        else schedulePump();
      });
    },
    warm(count) {
      if (closing) return;
      while (slots.length < Math.min(count, options.size)) spawn();
      // An adopted child may have announced itself already.
      pump();
      for (const slot of slots) setRef(slot, slot.sent.length > 0 || (!slot.ready && queue.length > 0));
    },
    get liveChildren() {
      return slots.length;
    },
    get childPids() {
      return slots.map((slot) => slot.child.pid).filter((pid): pid is number => pid !== undefined);
    },
    get sent() {
      return { ...sentCounts };
    },
    close() {
      if (closing) return closing;
      const closed = new LadderError('engine_closed', 'the engine was closed before the statement finished');
      for (const job of queue.splice(0)) if (!job.settled) fail(job, closed);
      const ending = slots.splice(0);
      for (const slot of ending) {
        slot.killedFor = 'close';
        stopTimers(slot);
        for (const job of slot.sent.splice(0)) if (!job.settled) fail(job, closed);
        // Keep Node alive until the exit is seen, or `await close()` would never settle.
        setRef(slot, true);
        slot.child.kill('SIGKILL');
      }
      if (growTimer !== undefined) clearTimeout(growTimer);
      closing = Promise.all(ending.map((slot) => slot.exited)).then(() => undefined);
      return closing;
    },
  };
}

/** A result's outcome with the rows sent ahead of it put first, in order. */
function withRowsAhead(outcome: PoolOutcome, ahead: readonly unknown[][][]): PoolOutcome {
  if (!outcome.ok || !('result' in outcome) || !('rows' in outcome.result)) return outcome;
  const rows: unknown[][] = [];
  for (const chunk of ahead) for (const row of chunk) rows.push(row);
  for (const row of outcome.result.rows as unknown as unknown[][]) rows.push(row);
  return { ...outcome, result: { ...outcome.result, rows } } as PoolOutcome;
}

/** Bytes as MiB with one decimal, dropping `.0` (`134217728` → `128 MiB`, `134637568` → `128.4 MiB`). */
function formatMiB(bytes: number): string {
  return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
}
