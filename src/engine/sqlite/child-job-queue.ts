/**
 * The job queue inside an engine child process: the batches the parent sends
 * ({@link ChildBatch}) are run one job at a time, in the order received, and every job is
 * answered on its own as soon as it ends, so the first job the parent has not seen answered is
 * the one running (the parent blames exactly that job when the child dies).
 *
 * Back-pressure: when the IPC channel holds a backlog (`process.send` returned false: more than
 * Node's 128 KiB of unsent bytes), the next job waits until that answer is written. Answers the
 * parent has not read yet so cost the child at most one result beyond the backlog, and they
 * count against the child's own memory cap (its RSS) no more than before batching.
 */
import type { ChildBatch, ChildMessage, ChildRequest } from './sqlite-protocol.js';

/** What the queue needs from its process. */
export interface ChildJobQueueHooks {
  /**
   * Runs one job synchronously.
   * @returns its answer, or `undefined` when the job was claimed by the watchdog (the process is
   *   being killed: nothing must be sent, and no later job may start).
   */
  readonly run: (request: ChildRequest) => ChildMessage | undefined;
  /**
   * Sends one answer (`process.send`).
   * @param written - called once the answer has left the process (or failed to).
   * @returns false when the channel has a backlog: the queue then waits for `written`.
   */
  readonly send: (message: ChildMessage, written: () => void) => boolean;
}

/** The queue's surface. */
export interface ChildJobQueue {
  /** Appends a batch and runs every job it can now (synchronously, before returning). */
  push(batch: ChildBatch): void;
  /** Jobs received and not started (for tests). */
  readonly waiting: number;
}

/**
 * Creates an empty queue.
 * @param hooks - how to run a job and send its answer.
 */
export function createChildJobQueue(hooks: ChildJobQueueHooks): ChildJobQueue {
  const waiting: ChildRequest[] = [];
  let head = 0;
  let draining = false;
  let blockedOnBacklog = false;
  let dead = false;

  function drain(): void {
    if (draining || blockedOnBacklog || dead) return;
    draining = true;
    try {
      while (head < waiting.length) {
        const request = waiting[head]!;
        head += 1;
        const message = hooks.run(request);
        if (message === undefined) {
          dead = true;
          return;
        }
        if (!hooks.send(message, written)) {
          blockedOnBacklog = true;
          return;
        }
      }
    } finally {
      if (head === waiting.length) {
        waiting.length = 0;
        head = 0;
      }
      draining = false;
    }
  }

  function written(): void {
    if (!blockedOnBacklog) return;
    blockedOnBacklog = false;
    drain();
  }

  return {
    push(batch) {
      for (const request of batch.jobs) waiting.push(request);
      drain();
    },
    get waiting() {
      return waiting.length - head;
    },
  };
}
