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
import { ROW_CHUNK_BYTES, type ChildBatch, type ChildMessage } from './sqlite-protocol.js';
import { rowBytes } from './result-bytes.js';
import { tagRows } from './wire-cells.js';
import type { Cell, QueryResult } from '../engine.js';

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
      return send(withRowsSentAhead(message), undefined, undefined, written);
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

/**
 * A result larger than {@link ROW_CHUNK_BYTES}: its leading rows go out now in `rows` messages of
 * about that size each; the returned `result` message carries the last rows. The parent thus
 * parses a large result piece by piece and never holds its whole JSON text (which for text cells
 * costs as much again as the rows themselves).
 */
function withRowsSentAhead(message: ChildMessage): ChildMessage {
  if (message.type !== 'result' || !message.outcome.ok || !('result' in message.outcome) || !('rows' in message.outcome.result)) return message;
  const rows = message.outcome.result.rows as unknown as unknown[][];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < rows.length; i += 1) {
    // Tagged cells (a bigint, a blob) are counted as the objects they are on the wire.
    bytes += rowBytes(rows[i]!);
    if (bytes < ROW_CHUNK_BYTES || i === rows.length - 1) continue;
    send!({ type: 'rows', id: message.id, rows: rows.slice(start, i + 1), ...(message.tagged ? { tagged: true } : {}) } satisfies ChildMessage);
    start = i + 1;
    bytes = 0;
  }
  if (start === 0) return message;
  const outcome = message.outcome as { ok: true; result: QueryResult };
  return { ...message, outcome: { ...outcome, result: { ...outcome.result, rows: rows.slice(start) as unknown as QueryResult['rows'] } } };
}

process.on('message', (batch: ChildBatch) => jobs.push(batch));

process.on('disconnect', () => {
  session.close();
  process.exit(0);
});

send({ type: 'ready' } satisfies ChildMessage);
