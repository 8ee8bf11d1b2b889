/**
 * A database that cannot be used is the machine's fault, not the statement's: an engine reports it
 * as the outcome `db_unavailable` (a file that is not a SQLite database or is corrupt, a server
 * that refuses the connection), and {@link throwingOnUnavailable} turns that outcome into a thrown
 * LadderError('db_unavailable'), so that no rung grades the model on it. The ladder runs every
 * engine through this view (src/rungs/ladder.ts); each front end then reports the throw as an
 * infrastructure fault (src/errors.ts `INFRASTRUCTURE_CODES`): an ERROR row, exit code 3, a thrown
 * matcher error.
 */
import { LadderError } from '../errors.js';
import type { Engine, ExecutionOutcome, ExplainOutcome } from './engine.js';

const WRAPPED = Symbol.for('text2sql-ladder.engine.throwing-on-unavailable');

/**
 * Throws for a `db_unavailable` outcome, and for `db_changed` (a fixture snapshot that changed on
 * disk during the run); returns any other outcome as it is.
 */
function checked<T extends ExecutionOutcome | ExplainOutcome>(outcome: T): T {
  if (!outcome.ok && (outcome.error.code === 'db_unavailable' || outcome.error.code === 'db_changed')) throw new LadderError('db_unavailable', outcome.error.message);
  return outcome;
}

/**
 * A view of `engine` whose `execute`, `prepare` and `explain` throw LadderError('db_unavailable')
 * instead of returning that outcome; every other member (`options`, `catalog`, a PostgreSQL
 * engine's `server`) is the engine's own. Wrapping a view again returns it unchanged.
 * @example
 * await throwingOnUnavailable(engine).execute({ db: 'corrupt.sqlite', sql: 'SELECT 1' })
 * // throws LadderError db_unavailable: cannot open corrupt.sqlite: file is not a database
 */
export function throwingOnUnavailable<E extends Engine>(engine: E): E {
  if ((engine as unknown as Record<symbol, unknown>)[WRAPPED] === true) return engine;
  return new Proxy(engine, {
    get(target, property) {
      if (property === WRAPPED) return true;
      if (property === 'execute' || property === 'prepare') return async (request: Parameters<Engine['execute']>[0]) => checked(await target[property](request));
      if (property === 'explain') return async (request: Parameters<Engine['explain']>[0]) => checked(await target.explain(request));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
