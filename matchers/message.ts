/**
 * The one message helper of the vitest matchers: every failure message is built here, over the
 * runner's own `this.utils` (matcherHint, printReceived, printExpected), so that all matchers
 * print the same shape and follow `.not` the same way.
 *
 * A message has four parts, each on its own block:
 * ```
 * expect(sql).toBeValidSql(options)          ← the hint (with `.not` when negated)
 *
 * Expected sql to be valid sqlite SQL (exactly one query)   ← what it checks, phrased for `.not`
 * Received: "SELEC name FROM users"
 *
 * L1 syntax failed: near "SELEC": syntax error   ← the rung's verdict and reason
 *   1:1  syntax_error  near "SELEC": syntax error   ← positioned issues and details
 * ```
 * Messages are built only when vitest asks for them (the matcher returns `message: () => …`).
 * Every part is bounded, so a failing matcher costs the same on 10 MB of SQL as on 100 bytes:
 * the received text is cut to {@link MAX_RECEIVED_CHARS} characters before the runner's printer
 * sees it (its whitespace highlighting is quadratic: 100 KB of whitespace-heavy SQL took 16 s,
 * 10 MB hung a worker), a source line under a caret to a window of {@link MAX_SOURCE_LINE_CHARS}
 * characters around the column, and each reason or issue message to
 * {@link MAX_MESSAGE_LINE_CHARS}.
 */
import type { MatcherState } from 'vitest';
import type { RungIssue, RungResult } from '../src/rungs/rung-result.js';
import { formatPipeTable, truncateCounted } from '../src/format.js';
import { scoreLabelOf } from '../src/rungs/scores.js';

/** What a matcher knows when it builds its message. */
export interface MatcherMessageParts {
  /** The matcher's name, e.g. `toBeValidSql`. */
  readonly matcherName: string;
  /** The label of the received value in the hint, e.g. `sql` or `answer`. */
  readonly receivedLabel: string;
  /** The label of the matcher's arguments in the hint, e.g. `options`; empty for none. */
  readonly expectedLabel: string;
  /**
   * What the positive matcher checks, as a verb phrase after "to", e.g. `be valid sqlite SQL
   * (exactly one query)`; the message prints `Expected sql to …` or `Expected sql not to …`.
   */
  readonly expectation: string;
  /** The received value, printed with `printReceived`. */
  readonly received: unknown;
  /** The rung result the verdict came from. */
  readonly result: RungResult;
  /** The text issue positions point into (SQL or prose); adds a caret line under each issue. */
  readonly source?: string;
  /** Extra blocks after the verdict (table diffs, catalog summaries); each already formatted. */
  readonly sections?: readonly string[];
}

/**
 * What a matcher returns to vitest (structurally vitest's `SyncExpectationResult`, which vitest
 * does not export): the verdict, and the message shown when the assertion fails.
 */
export interface MatcherOutcome {
  /** True when the positive assertion holds; vitest inverts it under `.not`. */
  readonly pass: boolean;
  /** Builds the failure message; called only when the assertion fails. */
  readonly message: () => string;
}

/**
 * Turns a rung result into vitest's matcher result, deciding the verdict once:
 * - `pass` / `fail` map to `pass: true` / `pass: false`, and vitest applies `.not`;
 * - `skipped` / `unscored` mean the rung did not decide (e.g. no gold runs, a dialect the rung
 *   cannot analyse): neither the assertion nor its negation holds, so the result fails both ways
 *   (`pass` equals `isNot`) and the message says why.
 *
 * @param state - the matcher's `this`.
 * @param parts - the message parts; the message is built only when vitest reads it.
 */
export function toMatcherResult(state: MatcherState, parts: MatcherMessageParts): MatcherOutcome {
  const status = parts.result.status;
  const pass = status === 'pass' ? true : status === 'fail' ? false : state.isNot;
  return { pass, message: () => formatMatcherMessage(state, parts) };
}

/**
 * Builds a matcher's failure message from its state and a rung result. Call it inside the
 * `message` closure so that nothing is formatted unless the assertion fails.
 *
 * @param state - the matcher's `this` (reads `isNot`, `promise` and `utils`).
 * @param parts - see {@link MatcherMessageParts}.
 * @returns the message text (with the runner's colours; strip them to compare text).
 * @example
 * return { pass, message: () => formatMatcherMessage(this, { matcherName: 'toBeSafeSql', … }) };
 */
export function formatMatcherMessage(state: MatcherState, parts: MatcherMessageParts): string {
  const { isNot, promise, utils } = state;
  const hint = utils.matcherHint(parts.matcherName, parts.receivedLabel, parts.expectedLabel, {
    isNot,
    promise,
  });
  const blocks = [
    hint,
    `Expected ${parts.receivedLabel} ${isNot ? 'not to' : 'to'} ${parts.expectation}\nReceived: ${utils.printReceived(clipReceived(parts.received))}`,
    formatVerdict(parts.result),
  ];
  if (parts.result.status === 'skipped' || parts.result.status === 'unscored') {
    blocks.push(`The rung did not decide (${parts.result.status}), so neither ${parts.matcherName} nor its negation holds.`);
  }
  const issues = formatIssues(parts.result.issues, parts.source);
  if (issues !== '') blocks.push(issues);
  for (const section of parts.sections ?? []) {
    if (section !== '') blocks.push(section);
  }
  return blocks.join('\n\n');
}

/**
 * The verdict line: `L2 schema failed: 1 unknown identifier` (or `passed`, `skipped`,
 * `unscored`), ending with the rung's reason.
 */
export function formatVerdict(result: RungResult): string {
  const label = scoreLabelOf(result.rung);
  const word = result.status === 'pass' ? 'passed' : result.status === 'fail' ? 'failed' : result.status;
  return `${label} ${word}: ${truncateCounted(result.reason, MAX_MESSAGE_LINE_CHARS)}`;
}

/** Longest received string printed, in characters; the rest is counted, not printed. */
export const MAX_RECEIVED_CHARS = 2_000;
/** Widest source line printed above a caret, in characters. */
export const MAX_SOURCE_LINE_CHARS = 160;
/** Longest reason or issue message printed, in characters. */
export const MAX_MESSAGE_LINE_CHARS = 1_000;

/** The received value as the message prints it: a string cut to {@link MAX_RECEIVED_CHARS}. */
function clipReceived(received: unknown): unknown {
  return typeof received === 'string' ? truncateCounted(received, MAX_RECEIVED_CHARS) : received;
}

/**
 * A window of a source line around a 1-based column, at most {@link MAX_SOURCE_LINE_CHARS}
 * wide, with `…` where it was cut, and the caret's column in the window.
 */
function sourceWindow(text: string, column: number): { text: string; caret: number } {
  if (text.length <= MAX_SOURCE_LINE_CHARS) return { text, caret: column };
  const half = Math.floor(MAX_SOURCE_LINE_CHARS / 2);
  const start = Math.max(0, Math.min(column - 1 - half, text.length - MAX_SOURCE_LINE_CHARS));
  const end = start + MAX_SOURCE_LINE_CHARS;
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  return { text: `${prefix}${text.slice(start, end)}${suffix}`, caret: column - start + prefix.length };
}

/**
 * One line per issue: `  line 1, column 8  unknown_column  no such column: nme (did you mean "name"?)`,
 * followed, when `source` is given and the issue has a position, by the source line and a caret
 * under the column. Returns an empty string for no issues.
 *
 * @param issues - the rung's issues.
 * @param source - the text the 1-based positions point into (optional).
 */
export function formatIssues(issues: readonly RungIssue[], source?: string): string {
  if (issues.length === 0) return '';
  // Only the lines an issue points at are needed: never split a huge source whole.
  const wanted = new Set(issues.map((issue) => issue.line).filter((line): line is number => line !== undefined));
  const sourceLines = source === undefined ? undefined : linesAt(source, wanted);
  const lines = issues.map((issue) => {
    const where =
      issue.line !== undefined && issue.column !== undefined
        ? `line ${issue.line}, column ${issue.column}  `
        : issue.line !== undefined
          ? `line ${issue.line}  `
          : '';
    const suggestion =
      issue.suggestion !== undefined && !/did you mean/i.test(issue.message) ? ` (did you mean ${JSON.stringify(issue.suggestion)}?)` : '';
    const head = `  ${where}${issue.kind}  ${truncateCounted(issue.message, MAX_MESSAGE_LINE_CHARS)}${suggestion}`;
    const text = issue.line !== undefined ? sourceLines?.[issue.line - 1] : undefined;
    if (text === undefined || issue.column === undefined) return head;
    const window = sourceWindow(text, issue.column);
    return `${head}\n    ${window.text}\n    ${' '.repeat(Math.max(0, window.caret - 1))}^`;
  });
  return `Issues:\n${lines.join('\n')}`;
}

/** The lines of `source` with the given 1-based numbers (others left undefined), read in one pass. */
function linesAt(source: string, wanted: ReadonlySet<number>): (string | undefined)[] {
  const lines: (string | undefined)[] = [];
  const last = Math.max(0, ...wanted);
  let start = 0;
  for (let number = 1; number <= last && start <= source.length; number += 1) {
    const newline = source.indexOf('\n', start);
    const end = newline < 0 ? source.length : newline;
    if (wanted.has(number)) lines[number - 1] = source.slice(start, end).replace(/\r$/, '');
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}

/** Widest cell a table prints, in characters; longer ones end in `…`. */
export const MAX_TABLE_CELL_CHARS = 60;

/**
 * Formats rows as an aligned pipe table, cells printed as SQL literals (src/format.ts
 * `formatCell`: `NULL`, `'text'`, `42`, exact digits beyond 2^53, `x'0a1b'` for blobs), each cut to
 * {@link MAX_TABLE_CELL_CHARS} characters.
 *
 * @param columns - header names by position (duplicates allowed).
 * @param rows - rows by position.
 * @param indent - spaces before each line (default 2).
 */
export function formatTable(columns: readonly string[], rows: readonly (readonly unknown[])[], indent = 2): string {
  return formatPipeTable(columns, rows, { indent, maxCellChars: MAX_TABLE_CELL_CHARS });
}

export { formatCell } from '../src/format.js';
