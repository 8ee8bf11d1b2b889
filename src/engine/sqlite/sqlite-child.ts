/**
 * Entry point of one engine child process (forked by sqlite-pool.ts with a JSON IPC channel;
 * argv: the parent's pid and the memory cap in bytes). Receives
 * {@link ChildBatch}es of jobs and answers each job with a {@link ChildMessage}, one at a time in
 * the order received (child-job-queue.ts).
 *
 * Deadline and memory cap are enforced here, by the watchdog thread of child-watchdog.ts, from
 * each job's own start: a parent that is busy or dead cannot let a statement run on, and a
 * statement that finished is never reported as a timeout. The child ends itself when its parent
 * goes away: at once on IPC `disconnect` while idle, and through the watchdog (the parent pid
 * changed) while a statement blocks the main thread, whatever signal killed the parent.
 */
import { startChildWatchdog } from './child-watchdog.js';
import { createChildJobQueue } from './child-job-queue.js';
import type { ChildBatch, ChildMessage } from './sqlite-protocol.js';
import { tagRows } from './wire-cells.js';
import type { Cell } from '../engine.js';

const send = process.send?.bind(process);
if (!send) {
  console.error('sqlite-child must be started with child_process.fork (no IPC channel)');
  process.exit(2);
}

const parentPid = Number(process.argv[2]);
const maxMemoryBytes = Number(process.argv[3]);
if (!Number.isSafeInteger(parentPid) || !Number.isSafeInteger(maxMemoryBytes)) {
  console.error('sqlite-child needs argv: <parent pid> <max memory bytes>');
  process.exit(2);
}

// The watchdog thread boots while this thread loads better-sqlite3 and runs the first jobs: it
// judges a job begun before it runs at its first sample (child-watchdog.ts).
const watchdog = startChildWatchdog({ maxMemoryBytes, parentPid, reportFd: 1 }, (error) => {
  console.error(`sqlite-child: watchdog thread failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(70);
});
const { createSqliteSession } = await import('./sqlite-session.js');
const session = createSqliteSession({ maxMemoryBytes });

const jobs = createChildJobQueue({
  run(request) {
    let message: ChildMessage;
    watchdog.begin(request.id, request.timeoutMs);
    try {
      const outcome = session.handle(request);
      const tagged = outcome.ok && 'result' in outcome && 'rows' in outcome.result && tagRows(outcome.result.rows as Cell[][]);
      message = { type: 'result', id: request.id, outcome, ...(tagged ? { tagged } : {}) };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      message = { type: 'result', id: request.id, outcome: { ok: false, error: { code: 'engine_failure', message: `engine child failed: ${text.replace(/\s*\n\s*/g, ' ')}` } } };
    }
    // The watchdog claimed the job (deadline or memory cap): the process is being killed.
    return watchdog.end(request.id) ? message : undefined;
  },
  send: (message, written) => {
    try {
      return send(message, undefined, undefined, written);
    } catch (error) {
      // A result within maxResultBytes whose JSON is still past V8's longest string (text of
      // escaped control characters under a raised cap): the job's answer says so, the child goes on.
      if (message.type !== 'result') throw error;
      const text = error instanceof Error ? error.message : String(error);
      const tooLarge: ChildMessage = { type: 'result', id: message.id, outcome: { ok: false, error: { code: 'result_too_large', message: `result too large to send to the parent (${text})` } } };
      return send(tooLarge, undefined, undefined, written);
    }
  },
});

process.on('message', (batch: ChildBatch) => jobs.push(batch));

process.on('disconnect', () => {
  session.close();
  process.exit(0);
});

send({ type: 'ready' } satisfies ChildMessage);
