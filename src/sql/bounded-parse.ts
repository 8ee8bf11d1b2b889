/**
 * Parsing with a hard time limit. Both parsers backtrack exponentially on some failing input —
 * measured with sql-parser-cst 0.42.1: `SELECT` and 18 unclosed `(` took 3 s (×2 per level, so
 * 26 took 22 s), 16 nested `WITH a AS (WITH` 90 s and then "Invalid array length"; a failing
 * parse inside 18 balanced parentheses 0.3 s. No budget checked between parser steps can stop
 * that, because the parser is one synchronous call into generated code.
 *
 * So the parse runs in a worker thread that the calling thread waits for, synchronously, for at
 * most {@link PARSE_TIME_BUDGET_MS}: the worker answers on a MessagePort read with
 * `receiveMessageOnPort` and wakes the caller through `Atomics.notify`. A parse past the limit is
 * abandoned — the worker is terminated (V8 stops JavaScript at once, unlike SQLite's native step)
 * and a fresh one starts on the next call — and reported as a budget reason. The worker has a
 * larger stack (32 MiB), so deeply nested text parses there instead of overflowing, and a heap
 * cap (512 MiB), so a parse that explodes in memory ends the worker, not the process; a tree
 * deeper than the analysis walks is refused in the worker, before it is copied back.
 *
 * A caller that knows it will need a parse soon can start it ahead ({@link parseInWorkerAhead}):
 * the thread parses while the caller does other work (waits for SQL results), and the later
 * {@link parseInWorker} of the same text takes that job's answer. The budget is the same for
 * every job: at most `timeMs` from the moment the thread starts it (the thread records which job
 * it runs and since when), so a job never pays for the jobs ahead of it; a job over its budget
 * ends the thread, and the jobs behind it are parsed afresh on the next one.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BUDGET_REASON, MAX_TREE_DEPTH } from './analysis-budget.js';
import { codeCacheDir, preloadWithCodeCache } from './code-cache.js';
import { activeParseStore } from './parse-store.js';
import { requireSnowflakeParser } from './snowflake-parser.js';
import { BoundedMap } from '../bounded-map.js';

/** Longest one parse may take by default, in milliseconds (a 100 KB chain parses in about 0.7 s). */
export const PARSE_TIME_BUDGET_MS = 2_000;

/** The parse time budget in force (see {@link setParseTimeBudgetMs}). */
let parseTimeBudget = PARSE_TIME_BUDGET_MS;

/** The time budget of one parse now in force, in milliseconds (default {@link PARSE_TIME_BUDGET_MS}). */
export function parseTimeBudgetMs(): number {
  return parseTimeBudget;
}

/**
 * Sets the time budget of every later parse in this process, in milliseconds. Two budgets end a
 * parse — this one and the tree-depth limit ({@link MAX_TREE_DEPTH}, checked once the parse is
 * done) — and on a loaded machine a deep text can run out of time first: a caller that must get
 * the depth verdict whatever the load (a test pinning it) raises this one.
 * @param ms - a positive whole number of milliseconds.
 * @returns the budget it replaces, to restore.
 * @throws RangeError when `ms` is not a positive integer.
 */
export function setParseTimeBudgetMs(ms: number): number {
  if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`setParseTimeBudgetMs: ms must be a positive integer; received ${String(ms)}`);
  const previous = parseTimeBudget;
  parseTimeBudget = ms;
  return previous;
}

/** Longest the first parse waits for the parser thread to start, in milliseconds. */
const START_BUDGET_MS = 30_000;

/** Which parser. */
export type ParserKind = 'sql-parser-cst' | 'node-sql-parser';

/** The outcome of {@link parseInWorker}. */
export type BoundedParse =
  | { readonly ok: true; readonly value: unknown }
  /** The parser threw: its message (and node-sql-parser's `location`). */
  | { readonly ok: false; readonly budget: false; readonly message: string; readonly location?: { readonly start?: { readonly line?: number; readonly column?: number } } }
  /** Over a budget (time, stack, tree depth); `message` starts "not analysed within budget". */
  | { readonly ok: false; readonly budget: true; readonly message: string };

interface ParserThread {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** [{@link ANSWERED}]: id of the last job answered; [{@link LISTENING}]: 1 once the thread listens; [{@link RUNNING}]: id of the job it parses, 0 between jobs. */
  readonly state: Int32Array;
  /** [0]: `Date.now()` when the thread started the job in `state[RUNNING]`. */
  readonly startedAt: Float64Array;
  /** Jobs posted and not answered yet: their budget (ms) and key. */
  readonly pending: Map<number, { timeMs: number; readonly key: string }>;
  /** Jobs started ahead ({@link parseInWorkerAhead}), by key, not yet taken by a caller. */
  readonly ahead: Map<string, number>;
  /** Answers read from the port for ahead jobs not yet taken, by id. */
  readonly replies: Map<number, ParserReply>;
}

/** Slots of {@link ParserThread.state}. */
const ANSWERED = 0;
const LISTENING = 1;
const RUNNING = 2;

/** Most jobs started ahead and not taken (older ones are dropped beyond this). */
export const MAX_AHEAD_PARSES = 64;

let thread: ParserThread | undefined;
let nextJob = 1;

/**
 * How many parse jobs have been sent to the parser thread since the process started (jobs started
 * ahead included). A parse answered from memory (an ahead job's reply, the over-budget memo, the
 * parse store) sends none, which is how tests tell "answered without a round trip" apart without
 * timing it.
 */
export function parseJobsPosted(): number {
  return nextJob - 1;
}

/**
 * The Snowflake parser's file once a Snowflake text asked for it (snowflake-parser.ts); sent with
 * each node-sql-parser job, so the thread loads that package only when such a job comes.
 */
let snowflakeParserFile: string | undefined;

function startThread(): ParserThread {
  const require = createRequire(import.meta.url);
  const shared = new SharedArrayBuffer(24);
  const state = new Int32Array(shared, 0, 3);
  const startedAt = new Float64Array(shared, 16, 1);
  const { port1, port2 } = new MessageChannel();
  const cstPath = require.resolve('sql-parser-cst');
  // sql-parser-cst 0.42's generated parser, compiled with a code cache when it is where it was.
  const generated = path.join(path.dirname(cstPath), 'parser.js');
  const data: ThreadData = {
    port: port2,
    state: shared,
    layout: { answered: ANSWERED, listening: LISTENING, running: RUNNING },
    cstPath,
    ...(existsSync(generated) ? { codeCache: { file: generated, dir: codeCacheDir() } } : {}),
    maxDepth: MAX_TREE_DEPTH,
    budget: BUDGET_REASON,
  };
  // Run from source: worker threads do not get the TypeScript loader of the main thread.
  // `__name` is the helper a TypeScript runner may insert into compiled functions.
  // `require` goes in as an argument: a bundler rewrites a `require` it sees in this module's code.
  const source = `const __name = (fn) => fn;\n(${parserThread.toString()})(require('node:worker_threads').workerData, require, ${preloadWithCodeCache.toString()});`;
  // No inherited options: the code above is self-contained CommonJS, and an inherited
  // `--input-type=module` (a `node --input-type=module -e` caller) would make it an ES module.
  const worker = new Worker(source, { eval: true, execArgv: [], workerData: data, transferList: [port2], resourceLimits: { stackSizeMb: 32, maxOldGenerationSizeMb: 512 } });
  worker.unref();
  worker.on('error', () => {
    // A thread that died (out of memory on a pathological input) is replaced on the next call.
    if (thread?.worker === worker) thread = undefined;
  });
  return { worker, port: port1, state, startedAt, pending: new Map(), ahead: new Map(), replies: new Map() };
}

/**
 * Starts the parser thread now, when it is not running, so that its start-up (a thread and the
 * parser's code, tens of milliseconds) overlaps the caller's work before the first parse.
 */
export function warmParserThread(): void {
  thread ??= startThread();
}

function stopThread(stopped: ParserThread): void {
  if (thread === stopped) thread = undefined;
  stopped.port.close();
  void stopped.worker.terminate();
}

/**
 * Parses `text` in the parser thread, waiting at most `timeMs`.
 *
 * @param kind - `sql-parser-cst` (`parse(text, options)`) or `node-sql-parser`
 *   (`new Parser().astify(text, options)`, from its Snowflake build: snowflake-parser.ts).
 * @param text - the SQL text.
 * @param options - the parser's options (plain data).
 * @param timeMs - the time budget (default {@link parseTimeBudgetMs}).
 * @returns the parser's result, its error, or a budget reason (remembered for the same text and
 *   options, so that the rungs that each parse it pay once). With the parse store on
 *   (parse-store.ts), a result or error it holds is returned without the thread, and a new one is
 *   added to it. Never throws for the text.
 * @throws LadderError `missing_dependency` for `node-sql-parser` when that optional package is
 *   not installed (snowflake-parser.ts).
 */
export function parseInWorker(kind: ParserKind, text: string, options: object, timeMs: number = parseTimeBudget): BoundedParse {
  if (kind === 'node-sql-parser') snowflakeParserFile ??= requireSnowflakeParser();
  // A text that ran out of budget once is not parsed again: L1, L2 and L3 each parse the same text.
  const key = jobKey(kind, text, options);
  const known = overBudget.get(key);
  // Reused only for a budget no larger than the one it ran out of.
  if (known && timeMs <= known.timeMs) return known.outcome;
  const store = activeParseStore();
  const stored = store?.get(key) as BoundedParse | undefined;
  if (stored !== undefined) return stored;
  const outcome = parseNow(kind, text, options, timeMs, key);
  if (!outcome.ok && outcome.budget) rememberOverBudget(key, outcome, timeMs);
  // A tree or a syntax error is the same on every run; a budget outcome depends on the moment.
  else store?.set(key, outcome);
  return outcome;
}

/**
 * Starts parsing `text` in the parser thread now and returns at once; the next
 * {@link parseInWorker} with the same kind, text and options takes the answer (waiting for it if
 * needed, under that call's budget counted from the job's start in the thread). Nothing happens
 * for a text already started ahead, known to run out of budget, or held by the parse store.
 * Never throws for the text.
 * @param kind - as {@link parseInWorker}.
 * @param text - the SQL text.
 * @param options - the parser's options (plain data), exactly as the later call will pass them.
 * @throws LadderError `missing_dependency` as {@link parseInWorker}.
 */
export function parseInWorkerAhead(kind: ParserKind, text: string, options: object): void {
  if (kind === 'node-sql-parser') snowflakeParserFile ??= requireSnowflakeParser();
  const key = jobKey(kind, text, options);
  if (overBudget.has(key) || activeParseStore()?.has(key)) return;
  const current = (thread ??= startThread());
  if (current.ahead.has(key)) return;
  if (current.ahead.size >= MAX_AHEAD_PARSES) {
    // The oldest job started ahead was never asked for: forget it (its answer is dropped).
    const [oldestKey, oldestId] = current.ahead.entries().next().value!;
    current.ahead.delete(oldestKey);
    current.replies.delete(oldestId);
  }
  current.ahead.set(key, post(current, kind, text, options, parseTimeBudget, key));
}

/**
 * Resolves once the parser thread has answered the job {@link parseInWorkerAhead} started for
 * `text` (same kind and options), so that the {@link parseInWorker} that follows takes the answer
 * without blocking the calling thread; an async caller awaits this instead of blocking while the
 * thread parses, and its thread runs other work meanwhile. Resolves at once when no such job is
 * under way (none was started, it was taken, or the thread is gone), and gives up, resolving, when
 * the job the thread runs passes its budget or the thread has not started within its start-up
 * budget: the synchronous call that follows decides those cases as before. Never rejects.
 * @param kind - as {@link parseInWorkerAhead}.
 * @param text - the SQL text.
 * @param options - the parser's options, exactly as the ahead call passed them.
 */
export async function whenAnsweredInWorker(kind: ParserKind, text: string, options: object): Promise<void> {
  const current = thread;
  const id = current?.ahead.get(jobKey(kind, text, options));
  if (current === undefined || id === undefined) return;
  const startBy = performance.now() + START_BUDGET_MS;
  for (;;) {
    const seen = Atomics.load(current.state, ANSWERED);
    // Jobs are answered in the order they were posted, and ids only grow.
    if (thread !== current || seen >= id || current.replies.has(id)) return;
    const running = runningJob(current);
    if (running !== undefined && running.leftMs <= 0) return;
    if (running === undefined && Atomics.load(current.state, LISTENING) === 0 && performance.now() >= startBy) return;
    const waitMs = waitSliceMs(running);
    // Atomics.waitAsync is ES2024 (Node 16+), newer than the lib this project compiles against.
    const waited = (Atomics as unknown as AtomicsWaitAsync).waitAsync(current.state, ANSWERED, seen, waitMs);
    if (!waited.async) continue;
    // A pending waitAsync does not keep Node's event loop alive (the thread is unref'd): without
    // this timer a command with nothing else to do would exit with an unsettled await.
    const keepAlive = setTimeout(() => undefined, waitMs + 1_000);
    await waited.value;
    clearTimeout(keepAlive);
  }
}

/** `Atomics.waitAsync` (ES2024). */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** The job the thread is parsing now, and how many ms of its budget are left (≤ 0: over it). */
function runningJob(current: ParserThread): { readonly id: number; readonly job: { timeMs: number; readonly key: string }; readonly leftMs: number } | undefined {
  const id = Atomics.load(current.state, RUNNING);
  const job = id === 0 ? undefined : current.pending.get(id);
  if (job === undefined) return undefined;
  return { id, job, leftMs: current.startedAt[0]! + job.timeMs - Date.now() };
}

/** How long one wait for an answer lasts, in ms: 50, or less when the running job's budget ends sooner (at least 1). */
function waitSliceMs(running: { readonly leftMs: number } | undefined): number {
  return Math.max(1, Math.min(50, running?.leftMs ?? 50));
}

function jobKey(kind: ParserKind, text: string, options: object): string {
  return `${kind}\u0000${JSON.stringify(options)}\u0000${text}`;
}

function rememberOverBudget(key: string, outcome: BoundedParse, timeMs: number): void {
  overBudget.set(key, { outcome, timeMs });
}

/** Texts that ran out of budget, oldest first (no tree is kept: only the reason). */
const overBudget = new BoundedMap<string, { readonly outcome: BoundedParse; readonly timeMs: number }>(256);

/** Posts one job to the thread; returns its id. */
function post(current: ParserThread, kind: ParserKind, text: string, options: object, timeMs: number, key: string): number {
  const id = nextJob;
  nextJob += 1;
  current.pending.set(id, { timeMs, key });
  const job: ParserJob = kind === 'node-sql-parser' ? { id, kind, text, options, parserFile: snowflakeParserFile } : { id, kind, text, options };
  current.port.postMessage(job);
  return id;
}

function parseNow(kind: ParserKind, text: string, options: object, timeMs: number, key: string): BoundedParse {
  const current = (thread ??= startThread());
  if (!waitUntil(current, () => Atomics.load(current.state, LISTENING) === 1, START_BUDGET_MS)) {
    stopThread(current);
    return { ok: false, budget: true, message: `${BUDGET_REASON}: the parser thread did not start within ${START_BUDGET_MS} ms` };
  }
  let id = current.ahead.get(key);
  if (id === undefined) {
    id = post(current, kind, text, options, timeMs, key);
  } else {
    current.ahead.delete(key);
    const posted = current.pending.get(id);
    // The caller's budget applies to the job it takes over.
    if (posted) posted.timeMs = timeMs;
  }
  const reply = awaitReply(current, id);
  // A job ahead of this one went over its budget and took the thread with it: parse afresh.
  if (reply === 'lost') return parseNow(kind, text, options, timeMs, key);
  if (reply === 'over-budget') return { ok: false, budget: true, message: `${BUDGET_REASON}: the parser took more than ${timeMs} ms` };
  if (reply.ok) return { ok: true, value: reply.value };
  if (reply.budget !== undefined) return { ok: false, budget: true, message: reply.budget };
  return { ok: false, budget: false, message: reply.message, ...(reply.location ? { location: reply.location } : {}) };
}

/**
 * Blocks until job `id` is answered. Every job the thread runs meanwhile is held to its own
 * budget from its own start: one past it ends the thread ('over-budget' when it is this job,
 * 'lost' when it was one ahead of it, which is then remembered as over budget).
 */
function awaitReply(current: ParserThread, id: number): ParserReply | 'over-budget' | 'lost' {
  for (;;) {
    const seen = Atomics.load(current.state, ANSWERED);
    for (let received = receiveMessageOnPort(current.port); received; received = receiveMessageOnPort(current.port)) {
      const message = received.message as ParserReply;
      current.pending.delete(message.id);
      if (message.id === id) return message;
      // An answer for a job started ahead waits to be taken; any other is dropped.
      if ([...current.ahead.values()].includes(message.id)) current.replies.set(message.id, message);
    }
    const early = current.replies.get(id);
    if (early !== undefined) {
      current.replies.delete(id);
      return early;
    }
    if (thread !== current) return 'lost';
    const running = runningJob(current);
    if (running !== undefined && running.leftMs <= 0) {
      stopThread(current);
      if (running.id === id) return 'over-budget';
      rememberOverBudget(running.job.key, { ok: false, budget: true, message: `${BUDGET_REASON}: the parser took more than ${running.job.timeMs} ms` }, running.job.timeMs);
      return 'lost';
    }
    Atomics.wait(current.state, ANSWERED, seen, waitSliceMs(running));
  }
}

/** Blocks until `done()` holds or `ms` pass, waking whenever the thread answers a job. */
function waitUntil(current: ParserThread, done: () => boolean, ms: number): boolean {
  const deadline = performance.now() + ms;
  for (;;) {
    const seen = Atomics.load(current.state, ANSWERED);
    if (done()) return true;
    const remaining = deadline - performance.now();
    if (remaining <= 0 || thread !== current) return done();
    Atomics.wait(current.state, ANSWERED, seen, Math.min(remaining, 50));
  }
}

/** What the thread is sent: one parse. `parserFile`: the node-sql-parser build to load (its first job loads it). */
interface ParserJob {
  readonly id: number;
  readonly kind: ParserKind;
  readonly text: string;
  readonly options: object;
  readonly parserFile?: string | undefined;
}

/** What the thread sends back. */
type ParserReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly budget?: string; readonly message: string; readonly location?: { readonly start?: { readonly line?: number; readonly column?: number } } };

/** Everything the thread needs (its code cannot see this module). */
interface ThreadData {
  readonly port: MessagePort;
  readonly state: SharedArrayBuffer;
  readonly layout: { readonly answered: number; readonly listening: number; readonly running: number };
  readonly cstPath: string;
  /** The parser's generated file and the folder of its code cache (code-cache.ts); absent: no cache. */
  readonly codeCache?: { readonly file: string; readonly dir: string };
  readonly maxDepth: number;
  readonly budget: string;
}

/**
 * The thread's body. Self-contained on purpose: it is run from its source text, so it may use
 * only its arguments and globals.
 * @param data - the thread's settings.
 * @param load - the thread's `require`.
 * @param preload - {@link preloadWithCodeCache}, from its source text too.
 */
function parserThread(data: ThreadData, load: NodeJS.Require, preload: typeof preloadWithCodeCache): void {
  const cached = data.codeCache === undefined ? undefined : preload(load, data.codeCache.file, data.codeCache.dir);
  const cst = load(data.cstPath) as { parse: (text: string, options: object) => unknown };
  let nodeParser: { astify: (text: string, options: object) => unknown } | undefined;
  const state = new Int32Array(data.state, 0, 3);
  const startedAt = new Float64Array(data.state, 16, 1);
  const { answered: ANSWERED_SLOT, listening: LISTENING_SLOT, running: RUNNING_SLOT } = data.layout;
  const tooDeep = (root: unknown): boolean => {
    const nodes: unknown[] = [root];
    const depths: number[] = [1];
    while (nodes.length > 0) {
      const node = nodes.pop();
      const depth = depths.pop()!;
      if (node === null || typeof node !== 'object') continue;
      if (depth > data.maxDepth) return true;
      // for…in, not Object.entries: no array per node (trees have thousands of nodes).
      const fields = node as Record<string, unknown>;
      for (const key in fields) {
        const value = fields[key];
        if (key === 'range' || value === null || typeof value !== 'object') continue;
        if (Array.isArray(value)) {
          for (const item of value) {
            nodes.push(item);
            depths.push(depth + 1);
          }
        } else {
          nodes.push(value);
          depths.push(depth + 1);
        }
      }
    }
    return false;
  };
  data.port.on('message', (job: ParserJob) => {
    let reply: ParserReply;
    // The caller holds each job to its budget from here (then the start is written before the id).
    startedAt[0] = Date.now();
    Atomics.store(state, RUNNING_SLOT, job.id);
    try {
      let value: unknown;
      if (job.kind === 'sql-parser-cst') {
        value = cst.parse(job.text, job.options);
      } else {
        if (!nodeParser) {
          const { Parser } = load(job.parserFile!) as { Parser: new () => { astify: (text: string, options: object) => unknown } };
          nodeParser = new Parser();
        }
        value = nodeParser.astify(job.text, job.options);
      }
      reply = tooDeep(value)
        ? { id: job.id, ok: false, budget: `${data.budget}: the parse tree is more than ${data.maxDepth} levels deep`, message: '' }
        : { id: job.id, ok: true, value };
    } catch (error) {
      if (error instanceof RangeError) {
        const why = /call stack/i.test(error.message) ? 'the text nests too deeply to parse' : `the parser ran out of room (${error.message})`;
        reply = { id: job.id, ok: false, budget: `${data.budget}: ${why}`, message: '' };
      } else {
        const location = (error as { location?: { start?: { line?: number; column?: number } } }).location;
        const message = error instanceof Error ? error.message : String(error);
        reply = location?.start ? { id: job.id, ok: false, message, location: { start: { ...(location.start.line !== undefined ? { line: location.start.line } : {}), ...(location.start.column !== undefined ? { column: location.start.column } : {}) } } } : { id: job.id, ok: false, message };
      }
    }
    // Before the first answer (a short command may exit right after it): the cache then also
    // holds the functions a parse compiled. Once per thread, only when no cache was read.
    if (job.kind === 'sql-parser-cst') cached?.save();
    try {
      data.port.postMessage(reply);
    } catch {
      data.port.postMessage({ id: job.id, ok: false, budget: `${data.budget}: the parse tree could not be copied back`, message: '' });
    }
    Atomics.store(state, RUNNING_SLOT, 0);
    Atomics.store(state, ANSWERED_SLOT, job.id);
    Atomics.notify(state, ANSWERED_SLOT);
  });
  Atomics.store(state, LISTENING_SLOT, 1);
  Atomics.notify(state, ANSWERED_SLOT);
}
