/**
 * The ladder summary: per column (provider × prompt), the numbers that do not lie (execution
 * success, correctness among executed, end-to-end correctness, items scored). Computed from one {@link SummaryRecord} per (item, column); front ends (the
 * promptfoo afterAll extension, the CLI) build the records from their own results.
 *
 * Definitions (n = items of that column):
 * - **items**, **scored** / **unscored**, **execution success** (executed / scored `answer` items),
 *   **correct among executed**, **gold errors**, **empty-gold matches**: the words shared with the
 *   Spider summary, defined and counted once in src/report/summary-terms.ts (`SUMMARY_TERMS`,
 *   `countItems`).
 * - **end-to-end correctness**: among scored items (declining items included), the share with
 *   `end_to_end` = 1; failures and skipped rungs count 0.
 * - **errored rows**: rows promptfoo marked ERROR (a database that cannot be used, an engine or a
 *   server that cannot run, misuse only that row reveals): never graded, so they are in no rate and
 *   never count 0: an infrastructure fault is not the model's failure. The front end fails the run
 *   instead (exit 3) and names them ({@link erroredRows}).
 * - **per rung**: pass / (pass + fail) over the items that reached the rung (skipped and unscored
 *   left out), with that count; and the viewer header's figure, pass / every item the rung was
 *   switched on for (skipped counting 0, unscored left out).
 * - **per tag**: end-to-end correctness over the scored items carrying the tag.
 * - **per role** (when items have roles): items, end-to-end correctness over the role's scored
 *   items, and refusals right (end-to-end over its `refuse` items).
 *
 * {@link checkRowCount} says whether the rows cover every item in every column; a front end must
 * fail loudly when they do not (rows are lost when two runs share one promptfoo state).
 */
import type { RungStatus } from '../rungs/rung-result.js';
import { SCORES, scoreNameRank } from '../rungs/scores.js';
import { countItems, type CountedItem } from './summary-terms.js';
import { summarizeJudges, type JudgeSummary } from './judge-summary.js';
import type { JudgeRecord } from './ladder-record.js';

/** One graded (item, column) pair; a column is one provider × prompt. */
export interface SummaryRecord {
  /** The column label: the provider's, with the prompt's label when a provider has several prompts. */
  readonly provider: string;
  /** The prompt label of the column (`''` when unknown). */
  readonly prompt?: string;
  /** promptfoo's column index (`promptIdx`), when known. */
  readonly column?: number;
  /** Item id (for listings). */
  readonly id: string;
  /** Tags as `key:value` or bare words, used for slicing. */
  readonly tags: readonly string[];
  /** The item's role (the RBAC context it ran under), when it has one. */
  readonly role?: string;
  readonly expectedBehavior: 'answer' | 'clarify' | 'refuse';
  /** `error` when the row errored (no grading happened). */
  readonly verdict: 'pass' | 'fail' | 'unscored' | 'error';
  /** 1 / 0; absent when unscored or errored (an errored row is in no rate). */
  readonly endToEnd?: number;
  /** Why the row errored (promptfoo's error, one line), for errored rows. */
  readonly error?: string;
  /** An `answer` item with no gold SQL: nothing can check its result (unscored). */
  readonly noGold?: boolean;
  /** True when the prediction ran without error on every snapshot (L4 reached). */
  readonly executed: boolean;
  /** Status of each ladder rung by its score name (`L1_syntax` …). */
  readonly rungs: Readonly<Record<string, RungStatus>>;
  /** The gold SQL failed on a snapshot. */
  readonly goldError: boolean;
  /** L4 passed on an empty gold result. */
  readonly emptyGoldMatch: boolean;
  /** Probe queries the output reported that L3 checked / refused (absent: none reported). */
  readonly probes?: { readonly checked: number; readonly refused: number };
  /** The equivalence judge's record, when the judge step ran. */
  readonly judge?: JudgeRecord;
}

/** A rate with its denominator; `rate` is `undefined` when `n` is 0. */
export interface Rate {
  readonly passed: number;
  readonly n: number;
  readonly rate: number | undefined;
}

/** The summary of one column (provider × prompt). */
export interface ProviderSummary {
  /** The column label (see {@link SummaryRecord.provider}). */
  readonly provider: string;
  /** The column's prompt label (`''` when unknown). */
  readonly prompt: string;
  /** promptfoo's column index, when known. */
  readonly column?: number;
  readonly items: number;
  readonly scored: number;
  readonly unscored: number;
  /** Errored rows: in no rate (see the module doc). */
  readonly errors: number;
  /** `answer` items without gold SQL, by id in row order: unscored, graded by nothing (their rows fail). */
  readonly withoutGold: readonly string[];
  /** Errored rows by id in row order, each with its cause (one line). */
  readonly errored: ReadonlyArray<{ readonly id: string; readonly error: string }>;
  readonly executionSuccess: Rate;
  readonly correctAmongExecuted: Rate;
  readonly endToEnd: Rate;
  readonly goldErrors: number;
  readonly emptyGoldMatches: number;
  /** Probe queries L3 checked across the items, and how many it refused (an unsafe probe fails L3). */
  readonly probes: { readonly checked: number; readonly refused: number };
  /**
   * Per rung score name, in ladder order: the conditional rate (passed of the items that reached
   * the rung), and `ofAll`, the viewer header's figure (passed of every item the rung was switched
   * on for, an unreached item counting 0).
   */
  readonly rungs: ReadonlyArray<{ readonly name: string; readonly ofAll: Rate } & Rate>;
  /** Per tag, sorted by tag. */
  readonly tags: ReadonlyArray<{ readonly tag: string } & Rate>;
  /**
   * Per role, sorted by role (present when an item has a role): its items, end-to-end correctness
   * over its scored items, and refusals right (end-to-end over its `refuse` items).
   */
  readonly roles?: ReadonlyArray<{ readonly role: string; readonly items: number; readonly endToEnd: Rate; readonly refusals: Rate }>;
  /** The equivalence judges' figures (present when the judge step ran; src/report/judge-summary.ts). */
  readonly judges?: readonly JudgeSummary[];
}

/** Builds a {@link Rate}. */
export function rate(passed: number, n: number): Rate {
  return { passed, n, rate: n === 0 ? undefined : passed / n };
}

/**
 * Summarizes records per provider, in first-seen provider order.
 * @example
 * summarizeLadder(records)[0].endToEnd // { passed: 41, n: 64, rate: 0.640625 }
 */
export function summarizeLadder(records: readonly SummaryRecord[]): ProviderSummary[] {
  const byProvider = new Map<string, SummaryRecord[]>();
  for (const record of records) {
    const list = byProvider.get(record.provider) ?? [];
    list.push(record);
    byProvider.set(record.provider, list);
  }
  return [...byProvider].map(([provider, list]) => summarizeProvider(provider, list));
}

function summarizeProvider(provider: string, list: readonly SummaryRecord[]): ProviderSummary {
  const column = list[0]?.column;
  const counts = countItems(list.map(countedItemOf));
  const scored = list.filter((record) => record.verdict !== 'unscored' && record.verdict !== 'error');
  const graded = list.filter((record) => record.verdict !== 'error');
  const endToEndPassed = scored.filter((record) => record.endToEnd === 1).length;

  const rungNames = new Set<string>();
  for (const record of list) for (const name of Object.keys(record.rungs)) rungNames.add(name);
  const rungs = [...rungNames]
    .sort((a, b) => scoreNameRank(a) - scoreNameRank(b) || a.localeCompare(b))
    .map((name) => {
      const reached = graded.filter((record) => record.rungs[name] === 'pass' || record.rungs[name] === 'fail');
      const passed = reached.filter((record) => record.rungs[name] === 'pass').length;
      const listed = graded.filter((record) => record.rungs[name] !== undefined && record.rungs[name] !== 'unscored').length;
      return { name, ...rate(passed, reached.length), ofAll: rate(passed, listed) };
    });

  const tagNames = new Set<string>();
  for (const record of scored) for (const tag of record.tags) tagNames.add(tag);
  const tags = [...tagNames].sort().map((tag) => {
    const withTag = scored.filter((record) => record.tags.includes(tag));
    return { tag, ...rate(withTag.filter((record) => record.endToEnd === 1).length, withTag.length) };
  });

  const correct = (records: readonly SummaryRecord[]): number => records.filter((record) => record.verdict !== 'error' && record.endToEnd === 1).length;
  const roleNames = [...new Set(list.flatMap((record) => (record.role === undefined ? [] : [record.role])))].sort();
  const roles = roleNames.map((role) => {
    const ofRole = list.filter((record) => record.role === role);
    const scoredOfRole = ofRole.filter((record) => record.verdict !== 'unscored');
    const refuse = scoredOfRole.filter((record) => record.expectedBehavior === 'refuse');
    return { role, items: ofRole.length, endToEnd: rate(correct(scoredOfRole), scoredOfRole.length), refusals: rate(correct(refuse), refuse.length) };
  });

  const judges = summarizeJudges(list.map((record) => record.judge));
  return {
    provider,
    prompt: list[0]?.prompt ?? '',
    ...(column !== undefined ? { column } : {}),
    items: counts.items,
    scored: counts.scored,
    unscored: counts.unscored,
    errors: counts.errored,
    withoutGold: graded.filter((record) => record.noGold === true).map((record) => record.id),
    errored: list.filter((record) => record.verdict === 'error').map((record) => ({ id: record.id, error: record.error ?? 'ERROR row' })),
    executionSuccess: rate(counts.executed, counts.answerItems),
    correctAmongExecuted: rate(counts.correct, counts.executed),
    endToEnd: rate(endToEndPassed, counts.scored),
    goldErrors: counts.goldErrors,
    emptyGoldMatches: counts.emptyGoldMatches,
    probes: {
      checked: list.reduce((sum, record) => sum + (record.probes?.checked ?? 0), 0),
      refused: list.reduce((sum, record) => sum + (record.probes?.refused ?? 0), 0),
    },
    rungs,
    tags,
    ...(roles.length > 0 ? { roles } : {}),
    ...(judges.length > 0 ? { judges } : {}),
  };
}

/** A ladder record as the shared counts read it (an errored row is counted apart: it was never graded). */
export function countedItemOf(record: SummaryRecord): CountedItem {
  const graded = record.verdict !== 'error';
  return {
    scored: graded && record.verdict !== 'unscored',
    errored: !graded,
    expectsAnswer: record.expectedBehavior === 'answer',
    predictionRan: graded && record.executed,
    matched: graded && record.rungs[SCORES.execution.scoreName] === 'pass',
    goldError: record.goldError,
    emptyGoldMatch: graded && record.emptyGoldMatch,
  };
}

/** One row of a run: which item (test index) and which column (provider × prompt index). */
export interface RowKey {
  readonly item: number;
  readonly column: number;
}

/** The outcome of {@link checkRowCount}. */
export interface RowCountCheck {
  /** True when every (item, column) pair has exactly one distinct row. */
  readonly ok: boolean;
  /** items × columns. */
  readonly expected: number;
  /** Distinct (item, column) pairs seen (repeats of one pair count once). */
  readonly seen: number;
  /** Missing pairs, as `column label: item index`, at most {@link MAX_LISTED_MISSING_ROWS}. */
  readonly missing: readonly string[];
  /** One line for a person; empty when `ok`. */
  readonly message: string;
}

/** Most missing rows a {@link RowCountCheck} names. */
export const MAX_LISTED_MISSING_ROWS = 10;

/**
 * Checks that a run holds a row for every dataset item in every column, so that a run that lost
 * rows (two runs sharing one promptfoo state, a crash) cannot print a summary as if complete.
 *
 * @param input.items - dataset items (promptfoo tests) in the run.
 * @param input.columns - column labels (one per provider × prompt), by column index.
 * @param input.rows - the rows seen; a row outside `items` × `columns` counts as unexpected.
 * @returns the check; `message` names the counts and the first missing rows.
 * @example
 * checkRowCount({ items: 71, columns: ['strong', 'weak'], rows }).message
 * // 'incomplete run: 55 of 142 rows (71 items × 2 columns); missing: weak: item 3, …'
 */
export function checkRowCount(input: { readonly items: number; readonly columns: readonly string[]; readonly rows: readonly RowKey[] }): RowCountCheck {
  const expected = input.items * input.columns.length;
  const seen = new Set<number>();
  let unexpected = 0;
  for (const row of input.rows) {
    if (row.item < 0 || row.item >= input.items || row.column < 0 || row.column >= input.columns.length) {
      unexpected += 1;
      continue;
    }
    seen.add(row.column * input.items + row.item);
  }
  const missing: string[] = [];
  let missingCount = 0;
  for (let column = 0; column < input.columns.length; column += 1) {
    for (let item = 0; item < input.items; item += 1) {
      if (seen.has(column * input.items + item)) continue;
      missingCount += 1;
      if (missing.length < MAX_LISTED_MISSING_ROWS) missing.push(`${input.columns[column]}: item ${item}`);
    }
  }
  const ok = missingCount === 0 && unexpected === 0;
  const parts = [`incomplete run: ${seen.size} of ${expected} rows (${input.items} items × ${input.columns.length} columns)`];
  if (missingCount > 0) parts.push(`missing: ${missing.join(', ')}${missingCount > missing.length ? `, … (+${missingCount - missing.length} more)` : ''}`);
  if (unexpected > 0) parts.push(`${unexpected} rows outside the dataset`);
  return { ok, expected, seen: seen.size, missing, message: ok ? '' : `${parts.join('; ')}; the summary does not cover the dataset` };
}
