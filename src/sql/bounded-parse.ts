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
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { BUDGET_REASON, MAX_TREE_DEPTH } from './analysis-budget.js';

/** Longest one parse may take, in milliseconds (a 100 KB chain parses in about 0.7 s). */
export const PARSE_TIME_BUDGET_MS = 2_000;

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
  /** [0]: id of the last job answered; [1]: 1 once the thread listens. */
  readonly state: Int32Array;
}

let thread: ParserThread | undefined;
let nextJob = 1;

function startThread(): ParserThread {
  const require = createRequire(import.meta.url);
  const state = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const data = {
    port: port2,
    state: state.buffer,
    cstPath: require.resolve('sql-parser-cst'),
    nodeSqlParserPath: require.resolve('node-sql-parser'),
    maxDepth: MAX_TREE_DEPTH,
    budget: BUDGET_REASON,
  };
  // Run from source: worker threads do not get the TypeScript loader of the main thread.
  // `__name` is the helper a TypeScript runner may insert into compiled functions.
  const source = `const __name = (fn) => fn;\n(${parserThread.toString()})(require('node:worker_threads').workerData);`;
  const worker = new Worker(source, { eval: true, workerData: data, transferList: [port2], resourceLimits: { stackSizeMb: 32, maxOldGenerationSizeMb: 512 } });
  worker.unref();
  worker.on('error', () => {
    // A thread that died (out of memory on a pathological input) is replaced on the next call.
    if (thread?.worker === worker) thread = undefined;
  });
  return { worker, port: port1, state };
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
 *   (`new Parser().astify(text, options)`).
 * @param text - the SQL text.
 * @param options - the parser's options (plain data).
 * @param timeMs - the time budget (default {@link PARSE_TIME_BUDGET_MS}).
 * @returns the parser's result, its error, or a budget reason (remembered for the same text and
 *   options, so that the rungs that each parse it pay once). Never throws for the text.
 */
export function parseInWorker(kind: ParserKind, text: string, options: object, timeMs: number = PARSE_TIME_BUDGET_MS): BoundedParse {
  // A text that ran out of budget once is not parsed again: L1, L2 and L3 each parse the same text.
  const key = `${kind}\u0000${JSON.stringify(options)}\u0000${text}`;
  const known = overBudget.get(key);
  // Reused only for a budget no larger than the one it ran out of.
  if (known && timeMs <= known.timeMs) return known.outcome;
  const outcome = parseNow(kind, text, options, timeMs);
  if (!outcome.ok && outcome.budget) {
    overBudget.set(key, { outcome, timeMs });
    if (overBudget.size > OVER_BUDGET_CACHE_SIZE) overBudget.delete(overBudget.keys().next().value!);
  }
  return outcome;
}

/** Texts that ran out of budget, oldest first (no tree is kept: only the reason). */
const overBudget = new Map<string, { readonly outcome: BoundedParse; readonly timeMs: number }>();
const OVER_BUDGET_CACHE_SIZE = 256;

function parseNow(kind: ParserKind, text: string, options: object, timeMs: number): BoundedParse {
  const current = (thread ??= startThread());
  if (!waitUntil(current, () => Atomics.load(current.state, 1) === 1, START_BUDGET_MS)) {
    stopThread(current);
    return { ok: false, budget: true, message: `${BUDGET_REASON}: the parser thread did not start within ${START_BUDGET_MS} ms` };
  }
  const id = nextJob;
  nextJob += 1;
  current.port.postMessage({ id, kind, text, options });
  let reply: ParserReply | undefined;
  const answered = waitUntil(
    current,
    () => {
      for (let received = receiveMessageOnPort(current.port); received; received = receiveMessageOnPort(current.port)) {
        const message = received.message as ParserReply;
        if (message.id === id) {
          reply = message;
          return true;
        }
      }
      return false;
    },
    timeMs,
  );
  if (!answered || reply === undefined) {
    stopThread(current);
    return { ok: false, budget: true, message: `${BUDGET_REASON}: the parser took more than ${timeMs} ms` };
  }
  if (reply.ok) return { ok: true, value: reply.value };
  if (reply.budget !== undefined) return { ok: false, budget: true, message: reply.budget };
  return { ok: false, budget: false, message: reply.message, ...(reply.location ? { location: reply.location } : {}) };
}

/** Blocks until `done()` holds or `ms` pass, waking whenever the thread answers a job. */
function waitUntil(current: ParserThread, done: () => boolean, ms: number): boolean {
  const deadline = performance.now() + ms;
  for (;;) {
    const seen = Atomics.load(current.state, 0);
    if (done()) return true;
    const remaining = deadline - performance.now();
    if (remaining <= 0 || thread !== current) return done();
    Atomics.wait(current.state, 0, seen, Math.min(remaining, 50));
  }
}

/** What the thread sends back. */
type ParserReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly budget?: string; readonly message: string; readonly location?: { readonly start?: { readonly line?: number; readonly column?: number } } };

/** Everything the thread needs (its code cannot see this module). */
interface ThreadData {
  readonly port: MessagePort;
  readonly state: SharedArrayBuffer;
  readonly cstPath: string;
  readonly nodeSqlParserPath: string;
  readonly maxDepth: number;
  readonly budget: string;
}

/**
 * The thread's body. Self-contained on purpose: it is run from its source text, so it may use
 * only its argument, globals and `require`.
 */
function parserThread(data: ThreadData): void {
  const cst = require(data.cstPath) as { parse: (text: string, options: object) => unknown };
  let nodeParser: { astify: (text: string, options: object) => unknown } | undefined;
  const state = new Int32Array(data.state);
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
  data.port.on('message', (job: { id: number; kind: string; text: string; options: object }) => {
    let reply: ParserReply;
    try {
      let value: unknown;
      if (job.kind === 'sql-parser-cst') {
        value = cst.parse(job.text, job.options);
      } else {
        if (!nodeParser) {
          const { Parser } = require(data.nodeSqlParserPath) as { Parser: new () => { astify: (text: string, options: object) => unknown } };
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
    try {
      data.port.postMessage(reply);
    } catch {
      data.port.postMessage({ id: job.id, ok: false, budget: `${data.budget}: the parse tree could not be copied back`, message: '' });
    }
    Atomics.store(state, 0, job.id);
    Atomics.notify(state, 0);
  });
  Atomics.store(state, 1, 1);
  Atomics.notify(state, 0);
}
