/**
 * Entry point of one engine child process (forked by sqlite-pool.ts with an IPC channel and
 * `serialization: 'advanced'`). Answers one {@link ChildRequest} at a time with a
 * {@link ChildMessage}; the parent enforces deadlines and the memory cap by killing this process.
 *
 * The child exits by itself when the parent goes away (IPC `disconnect`), so it never outlives the
 * test runner or CLI that started it.
 */
import { createSqliteSession } from './sqlite-session.js';
import type { ChildMessage, ChildRequest } from './sqlite-protocol.js';

const send = process.send?.bind(process);
if (!send) {
  console.error('sqlite-child must be started with child_process.fork (no IPC channel)');
  process.exit(2);
}

const session = createSqliteSession();

process.on('message', (request: ChildRequest) => {
  let message: ChildMessage;
  try {
    message = { type: 'result', id: request.id, outcome: session.handle(request) };
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    message = { type: 'result', id: request.id, outcome: { ok: false, error: { code: 'engine_failure', message: `engine child failed: ${text.replace(/\s*\n\s*/g, ' ')}` } } };
  }
  send(message);
});

process.on('disconnect', () => {
  session.close();
  process.exit(0);
});

send({ type: 'ready' } satisfies ChildMessage);
