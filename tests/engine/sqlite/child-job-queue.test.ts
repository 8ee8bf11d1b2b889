/**
 * The job queue inside an engine child: batches run one job at a time in the order received,
 * each answered on its own; a channel backlog holds the next job until the answer is written; a
 * job the watchdog claimed ends the queue.
 */
import { describe, expect, it } from 'vitest';
import { createChildJobQueue } from '../../../src/engine/sqlite/child-job-queue.js';
import type { ChildMessage, ChildRequest } from '../../../src/engine/sqlite/sqlite-protocol.js';

function job(id: number): ChildRequest {
  return { id, op: 'execute', db: '/x.sqlite', sql: `SELECT ${id}`, maxRows: 10, maxResultBytes: 1000, timeoutMs: 1000, doubleQuotes: 'legacy' };
}

function answer(id: number): ChildMessage {
  return { type: 'result', id, outcome: { ok: true, result: { columns: ['x'], rows: [[id]], doubleQuoteFallback: false, executedSql: `SELECT ${id}`, elapsedMs: 0 } } };
}

describe('createChildJobQueue', () => {
  it('runs the jobs of several batches in order and answers each one as it ends', () => {
    const events: string[] = [];
    const queue = createChildJobQueue({
      run: (request) => {
        events.push(`run ${request.id}`);
        return answer(request.id);
      },
      send: (message) => {
        events.push(`send ${message.type === 'result' ? message.id : 'ready'}`);
        return true;
      },
    });
    queue.push({ jobs: [job(1), job(2)] });
    queue.push({ jobs: [job(3)] });
    expect(events).toEqual(['run 1', 'send 1', 'run 2', 'send 2', 'run 3', 'send 3']);
    expect(queue.waiting).toBe(0);
  });

  it('holds the next job while the channel has a backlog, until the answer is written', () => {
    const ran: number[] = [];
    const pendingWrites: (() => void)[] = [];
    const queue = createChildJobQueue({
      run: (request) => {
        ran.push(request.id);
        return answer(request.id);
      },
      send: (message, written) => {
        pendingWrites.push(written);
        // Job 1's answer leaves a backlog; later ones do not.
        return message.type === 'result' && message.id !== 1;
      },
    });
    queue.push({ jobs: [job(1), job(2), job(3)] });
    expect(ran).toEqual([1]);
    expect(queue.waiting).toBe(2);
    queue.push({ jobs: [job(4)] });
    expect(ran).toEqual([1]);
    pendingWrites[0]!();
    expect(ran).toEqual([1, 2, 3, 4]);
    expect(queue.waiting).toBe(0);
    // A written callback that comes when nothing waits on it changes nothing.
    pendingWrites[1]!();
    expect(ran).toEqual([1, 2, 3, 4]);
  });

  it('sends nothing more once the watchdog has claimed a job (the process is being killed)', () => {
    const ran: number[] = [];
    const sent: number[] = [];
    const queue = createChildJobQueue({
      run: (request) => {
        ran.push(request.id);
        return request.id === 2 ? undefined : answer(request.id);
      },
      send: (message) => {
        if (message.type === 'result') sent.push(message.id);
        return true;
      },
    });
    queue.push({ jobs: [job(1), job(2), job(3)] });
    queue.push({ jobs: [job(4)] });
    expect({ ran, sent }).toEqual({ ran: [1, 2], sent: [1] });
  });
});
