/**
 * The counts both summaries print — the ladder summary (src/report/ladder-summary.ts: the promptfoo
 * extension's table and its JSON) and the Spider summary (src/harness/evaluate-spider.ts: the last
 * lines of `text2sql-ladder spider`) — with their words defined once, and the one function that
 * counts them. Both summaries map their own item shape to a {@link CountedItem} and call
 * {@link countItems}, so "executed" or "gold errors" cannot mean two things. docs/reading-results.md
 * shows {@link SUMMARY_TERMS} (a test keeps it equal).
 */

/** What one graded item contributes to the shared counts. */
export interface CountedItem {
  /** The item has a verdict (pass or fail); false = unscored or errored. */
  readonly scored: boolean;
  /**
   * The item could not be graded (an infrastructure fault, or misuse only that row revealed): it
   * is neither scored nor unscored and is never counted as 0. Default false.
   */
  readonly errored?: boolean;
  /** The item expects SQL (`answer`); `clarify` / `refuse` items never execute anything. */
  readonly expectsAnswer: boolean;
  /** The predicted SQL reached L4 and ran without error or timeout on every snapshot it was compared on. */
  readonly predictionRan: boolean;
  /** L4 passed: the prediction matched a gold on every snapshot. */
  readonly matched: boolean;
  /** A gold query of the item could not run (an error or a timeout on a snapshot, or no such database). */
  readonly goldError: boolean;
  /** L4 passed and the gold result was empty on a snapshot (flag `empty_gold`). */
  readonly emptyGoldMatch: boolean;
}

/** The shared counts of a set of items (see {@link SUMMARY_TERMS} for each one's meaning). */
export interface SharedCounts {
  readonly items: number;
  readonly scored: number;
  readonly unscored: number;
  readonly errored: number;
  /** Scored items that expect SQL: the denominator of execution success. */
  readonly answerItems: number;
  readonly executed: number;
  readonly predictionErrors: number;
  readonly correct: number;
  readonly goldErrors: number;
  readonly emptyGoldMatches: number;
}

/** One summary word: the label both summaries print and its definition. */
export interface SummaryTerm {
  readonly label: string;
  readonly definition: string;
}

/**
 * The shared words, keyed by the count (or rate) they name. `executionSuccess` and
 * `correctAmongExecuted` are the ladder summary's rates over these counts; the Spider summary prints
 * the counts themselves.
 */
export const SUMMARY_TERMS = {
  items: { label: 'items', definition: 'dataset items (the ladder summary: the rows of one column; Spider: the gold lines)' },
  scored: { label: 'scored', definition: 'items with a verdict: pass or fail' },
  unscored: { label: 'unscored', definition: 'items that cannot be scored (no gold, no gold runs on every snapshot, or an undecided comparison); never counted as 0' },
  errored: {
    label: 'errored',
    definition: 'items the run could not grade: a database that cannot be opened or read, an engine or server that cannot run, or (promptfoo) misuse only that row reveals; neither scored nor unscored, never counted as 0, and the run exits 3',
  },
  executed: {
    label: 'executed',
    definition: 'scored `answer` items whose predicted SQL reached L4 and ran without error or timeout on every snapshot; no SQL, a decline or a failed gate is not executed',
  },
  predictionErrors: { label: 'prediction errors', definition: 'scored `answer` items that did not execute (answer items − executed)' },
  correct: { label: 'correct', definition: 'scored items whose prediction matched a gold on every snapshot (L4 pass; execution accuracy counts these)' },
  executionSuccess: { label: 'execution success', definition: 'executed / scored `answer` items' },
  correctAmongExecuted: { label: 'correct among executed', definition: 'correct / executed' },
  goldErrors: {
    label: 'gold errors',
    definition: 'items with a gold query that could not run: an error or timeout on a snapshot, or (Spider) a db_id with no database; counted whether or not another gold ran, and the item is unscored when no gold runs on every snapshot',
  },
  emptyGoldMatches: { label: 'empty-gold matches', definition: 'correct items where the gold result was empty on a snapshot (flag `empty_gold`: weak evidence)' },
} as const satisfies Record<string, SummaryTerm>;

/** The key of a shared word. */
export type SummaryTermKey = keyof typeof SUMMARY_TERMS;

/**
 * Counts items under {@link SUMMARY_TERMS}.
 * @example
 * countItems([{ scored: true, expectsAnswer: true, predictionRan: true, matched: false, goldError: false, emptyGoldMatch: false }])
 * // { items: 1, scored: 1, unscored: 0, errored: 0, answerItems: 1, executed: 1, predictionErrors: 0, correct: 0, goldErrors: 0, emptyGoldMatches: 0 }
 */
export function countItems(items: Iterable<CountedItem>): SharedCounts {
  let total = 0;
  let scored = 0;
  let errored = 0;
  let answerItems = 0;
  let executed = 0;
  let correct = 0;
  let goldErrors = 0;
  let emptyGoldMatches = 0;
  for (const item of items) {
    total += 1;
    if (item.errored === true) {
      errored += 1;
      continue;
    }
    if (item.goldError) goldErrors += 1;
    if (!item.scored) continue;
    scored += 1;
    if (!item.expectsAnswer) continue;
    answerItems += 1;
    // A match implies the prediction ran; a prediction that did not run cannot be correct.
    if (!item.predictionRan) continue;
    executed += 1;
    if (!item.matched) continue;
    correct += 1;
    if (item.emptyGoldMatch) emptyGoldMatches += 1;
  }
  return { items: total, scored, unscored: total - scored - errored, errored, answerItems, executed, predictionErrors: answerItems - executed, correct, goldErrors, emptyGoldMatches };
}
