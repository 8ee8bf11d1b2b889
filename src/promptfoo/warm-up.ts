/**
 * Starting what the ladder assertion needs before its first row: one SQLite engine child (a Node
 * start, better-sqlite3 and its watchdog thread) and the parser thread (a worker loading
 * sql-parser-cst). The test generator calls it when its tests carry the ladder assertion, so that
 * both start while promptfoo is still loading its providers, prompts and database, instead of on
 * the first row, whose parse would wait for the thread and whose statements for the child.
 *
 * The child stands by until the first engine with the default memory cap (the promptfoo runtime's)
 * adopts it; until then it keeps nothing alive, and a process that never creates such an engine
 * kills it at exit (src/engine/sqlite/sqlite-children.ts). Results never depend on it.
 */
import { startSqliteChildAhead } from '../engine/sqlite/sqlite-engine.js';
import { warmParserThread } from '../sql/bounded-parse.js';

/** Starts one engine child ahead and the parser thread (each a no-op when already running). */
export function warmLadderRuntime(): void {
  startSqliteChildAhead();
  warmParserThread();
}
