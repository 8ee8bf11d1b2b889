/**
 * The vitest front end's runtime: the one SQLite engine (and gold cache) the matchers share in a
 * process (a test file's worker, under
 * vitest's default isolation). It is created on first use — tests that only use the static
 * matchers never start a child process — and closed by the `afterAll` hook that
 * `text2sql-ladder/vitest` registers. An engine left open does not keep Node alive either (the
 * pool holds its children only while jobs wait), so vitest exits cleanly even when the hook did
 * not run (e.g. `isolate: false`, where a later file re-creates the engine after the first close).
 */
import type { SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { throwingOnUnavailable } from '../src/engine/unavailable-database.js';
import type { LadderRuntime } from '../src/runtime/ladder-runtime.js';

/**
 * Options of the shared engine: two children (a gold and a prediction run side by side), the
 * engine's defaults for everything else (10 000 ms deadline, 100 000 rows, 512 MiB per child,
 * `legacy` double quotes).
 */
export const MATCHER_ENGINE_OPTIONS = Object.freeze({ poolSize: 2 });

/** The vitest front end's runtime: the matchers' engine and gold cache (src/runtime/ladder-runtime.ts). */
const runtime: LadderRuntime = createLadderRuntime({ engine: MATCHER_ENGINE_OPTIONS });

/** The matchers' runtime (engine created on first use, gold cache shared by every matcher call). */
export function matcherRuntime(): LadderRuntime {
  return runtime;
}

/**
 * The process's matcher engine, created on first call with {@link MATCHER_ENGINE_OPTIONS}. A
 * database that cannot be used (not a SQLite database, corrupt, unreadable) makes the matcher
 * throw LadderError('db_unavailable') instead of failing the assertion: the test fails with the
 * machine's fault, never with a verdict on the SQL (src/engine/unavailable-database.ts).
 */
export function getMatcherEngine(): SqliteEngine {
  const engine = runtime.engine();
  // One view per engine, so that every call returns the same object until the engine is closed.
  if (view?.engine !== engine) view = { engine, checked: throwingOnUnavailable(engine) };
  return view.checked;
}

let view: { readonly engine: SqliteEngine; readonly checked: SqliteEngine } | undefined;

/** True when the matcher engine exists (created and not yet closed). */
export function hasMatcherEngine(): boolean {
  return runtime.hasEngine();
}

/**
 * Closes the matcher engine and ends its children; the next matcher call creates a new one.
 * Idempotent; resolves when the children are gone.
 */
export async function closeMatcherEngine(): Promise<void> {
  await runtime.close();
}
