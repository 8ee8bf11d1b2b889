/**
 * Budgets of the static and diagnostic analysis, so that every model output costs bounded work:
 * a size limit on the SQL text, a depth limit on its parse tree, and a time budget per analysis.
 * An analysis that would go past one of them ends with a reason that starts
 * {@link BUDGET_REASON} ("not analysed within budget"), never with a throw or a hang.
 *
 * - Size: the parser reads at most {@link MAX_SQL_CHARS} characters (parsing costs up to about
 *   4 µs per character of comment text: a 10 MB comment took 37 s).
 * - Depth: a tree deeper than {@link MAX_TREE_DEPTH} levels is not walked (the parser thread of
 *   bounded-parse.ts refuses it). SQLite itself refuses
 *   expressions deeper than 1 000 (`SQLITE_MAX_EXPR_DEPTH` of this build: "Expression tree is too
 *   large") and compounds of more than 500 SELECTs; the longest chains it accepts (999 ORs, 1 000
 *   `+` terms, 500 UNION ALL branches) are 1 003, 1 004 and 504 levels deep here, so no query
 *   SQLite runs is lost to this limit. The walkers are recursive: a 10 000-term chain overflowed
 *   the stack.
 * - Parse time: bounded-parse.ts stops a parse after `PARSE_TIME_BUDGET_MS` (the parsers
 *   backtrack exponentially on some failing input).
 * - Time: {@link withinAnalysisBudget} runs one analysis with a deadline
 *   ({@link ANALYSIS_TIME_BUDGET_MS}); long loops call {@link checkAnalysisBudget}, which ends the
 *   analysis once the deadline has passed. A stack overflow inside the analysis ends it the same
 *   way. Budgets nest: an inner one never extends an outer deadline.
 */

/** Every budget reason starts with this. */
export const BUDGET_REASON = 'not analysed within budget';

/** Most characters of SQL text the static analysis reads (about 100 KB). */
export const MAX_SQL_CHARS = 100_000;

/** Deepest parse tree (node levels) the static analysis walks. */
export const MAX_TREE_DEPTH = 1_100;

/** Wall-clock budget of one analysis (one rung or one diagnostic on one item), in milliseconds. */
export const ANALYSIS_TIME_BUDGET_MS = 5_000;

/** How many {@link checkAnalysisBudget} calls pass between two clock reads. */
const CHECKS_PER_CLOCK_READ = 256;

/** The signal that ends an analysis; caught by {@link withinAnalysisBudget}, never seen by callers. */
class AnalysisBudgetExceeded extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AnalysisBudgetExceeded';
  }
}

/** The deadline in force (monotonic ms), and a call counter to read the clock rarely. */
let activeDeadline: number | undefined;
let activeBudgetMs = 0;
let checksSinceClock = 0;

/** The outcome of {@link withinAnalysisBudget}. */
export type BudgetOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/**
 * Runs `analysis` under a time budget.
 *
 * @param analysis - synchronous work that calls {@link checkAnalysisBudget} in its long loops.
 * @param timeMs - the budget in milliseconds (default {@link ANALYSIS_TIME_BUDGET_MS}); inside
 *   another budget the earlier deadline wins.
 * @returns `ok: true` with the value, or `ok: false` with a reason starting {@link BUDGET_REASON}
 *   when the deadline passed or the analysis ran out of stack. Other errors propagate.
 * @example
 * withinAnalysisBudget(() => analyse(tree)) // { ok: false, reason: 'not analysed within budget: the analysis took more than 5000 ms' }
 */
export function withinAnalysisBudget<T>(analysis: () => T, timeMs: number = ANALYSIS_TIME_BUDGET_MS): BudgetOutcome<T> {
  const outerDeadline = activeDeadline;
  const outerBudgetMs = activeBudgetMs;
  const deadline = performance.now() + timeMs;
  if (outerDeadline === undefined || deadline < outerDeadline) {
    activeDeadline = deadline;
    activeBudgetMs = timeMs;
  }
  try {
    return { ok: true, value: analysis() };
  } catch (error) {
    if (error instanceof AnalysisBudgetExceeded) return { ok: false, reason: error.reason };
    if (isStackOverflow(error)) return { ok: false, reason: `${BUDGET_REASON}: the analysis ran out of stack (the query nests too deeply)` };
    throw error;
  } finally {
    activeDeadline = outerDeadline;
    activeBudgetMs = outerBudgetMs;
  }
}

/**
 * Ends the running analysis when its deadline has passed (reads the clock every 256 calls).
 * Outside {@link withinAnalysisBudget} it does nothing.
 */
export function checkAnalysisBudget(): void {
  if (activeDeadline === undefined) return;
  checksSinceClock += 1;
  if (checksSinceClock < CHECKS_PER_CLOCK_READ) return;
  checksSinceClock = 0;
  if (performance.now() > activeDeadline) throw new AnalysisBudgetExceeded(`${BUDGET_REASON}: the analysis took more than ${activeBudgetMs} ms`);
}

/**
 * The size budget of a SQL text.
 * @returns a reason starting {@link BUDGET_REASON} when `sql` is longer than {@link MAX_SQL_CHARS}, else `undefined`.
 */
export function sqlSizeOverBudget(sql: string): string | undefined {
  if (sql.length <= MAX_SQL_CHARS) return undefined;
  return `${BUDGET_REASON}: the SQL text is ${sql.length} characters; the analysis reads at most ${MAX_SQL_CHARS}`;
}

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}
