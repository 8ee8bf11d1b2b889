/**
 * The exit codes of every entry point, one rule (docs/your-app.md, "When something is wrong",
 * lists each mistake with what it prints and its code):
 *
 * | code | meaning | `promptfoo eval` / `npm run eval` (the package's test generator and hooks) | CLI commands |
 * |------|---------|-------------------------------------------------------------------------|--------------|
 * | 0    | done: every item graded (the model's failures are results) | the run completed | the command did its job |
 * | 1    | a failure the command was asked to find | promptfoo's own errors (its config, a crash) | `check`: a rung failed; `audit`: an error finding; `compare`: the gate failed |
 * | 2    | misuse: nothing ran | a misspelt or wrong option, an invalid dataset item, an unknown fixture, role or snapshot, a database file that is missing or no SQLite database: one line on stderr before the first row, no stack | a bad flag or value, a file that is not what the flag needs: one `error:` line, no stack |
 * | 3    | incomplete: the run ended, but not every item was graded | ERROR rows (a database that cannot be opened or read, an engine or server that cannot run, misuse only one row reveals) or lost rows; the summary names them and leaves them out of every rate | `spider`: items whose evaluation could not finish, or gold items with no prediction line |
 * | 100  | promptfoo's pass-rate gate | the pass rate is below `PROMPTFOO_PASS_RATE_THRESHOLD` (model failures; `init`'s `.env.ladder` sets 0, which turns it off) | — |
 *
 * When a promptfoo run is both incomplete and below promptfoo's threshold, it exits 3: a setup to
 * fix comes before a model to judge. The vitest matchers have no exit code of their own (vitest
 * exits 1 when a test fails): a model failure fails the assertion with the ladder's message;
 * misuse and infrastructure faults throw a LadderError, so the test fails with the error, never
 * with a verdict on the SQL.
 */

/** The command did its job (per-item model failures included). */
export const EXIT_OK = 0;
/** The command found the failure it was asked to find (a failed rung, an error finding, a gate). */
export const EXIT_FAILURE = 1;
/** Misuse: nothing ran; one line on stderr names the option, flag or file. */
export const EXIT_MISUSE = 2;
/** Incomplete: the run ended with items it could not grade (errored, or without a row). */
export const EXIT_INCOMPLETE = 3;
