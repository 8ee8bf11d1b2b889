/**
 * Starting what the ladder assertion needs before its first row: one SQLite engine child (a Node
 * start, better-sqlite3 and its watchdog thread), the parser thread (a worker loading
 * sql-parser-cst; not when the parse store has the previous runs' answers) and the assertion's own modules (about a hundred, which promptfoo would import on
 * the first row, each resolved and read through its module loader: about 0.6 s on this machine).
 * The test generator calls it when its tests carry the ladder assertion, so that all three start
 * while promptfoo is still loading its providers and prompts and rendering the first prompts,
 * instead of on the first row, whose parse would wait for the thread, whose statements for the
 * child, and whose grading for the modules.
 *
 * The child stands by until the first engine with the default memory cap (the promptfoo runtime's)
 * adopts it; until then it keeps nothing alive, and a process that never creates such an engine
 * kills it at exit (src/engine/sqlite/sqlite-children.ts). Results never depend on it.
 */
import { pathToFileURL } from 'node:url';
import { startSqliteChildAhead } from '../engine/sqlite/sqlite-engine.js';
import { warmParserThread } from '../sql/bounded-parse.js';
import { enableParseStore } from '../sql/parse-store.js';

/**
 * Starts one engine child ahead, turns the parse store on (src/sql/parse-store.ts) and starts the
 * parser thread unless the store holds answers (a run whose texts are all there never needs the
 * thread; a text it lacks starts the thread then), and starts importing `assertionFile` when given.
 * Each step is a no-op when already done.
 * @param assertionFile - absolute path of the module promptfoo will import for the assertion (the
 *   same file, so the same module instance: promptfoo's import then finds it loaded). A failure to
 *   load is left to promptfoo's own import, which reports it on the row.
 */
export function warmLadderRuntime(assertionFile?: string): void {
  startSqliteChildAhead();
  const store = enableParseStore();
  if (store === undefined || store.size === 0) warmParserThread();
  if (assertionFile !== undefined) void import(pathToFileURL(assertionFile).href).catch(() => undefined);
}
