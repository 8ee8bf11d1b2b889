/**
 * Checks of gold SQL that need no database: pure functions over the gold text and its item, shared
 * by the execution rung (flags on every L4 verdict) and by gold audits. Each check is one entry of
 * {@link GOLD_CHECKS}; a new check is one more entry.
 *
 * Checks:
 * - `clock_dependent_gold`: the result depends on when it runs — `CURRENT_DATE`, `CURRENT_TIME`,
 *   `CURRENT_TIMESTAMP`, a date/time function with the time value `'now'` (`date('now')`,
 *   `julianday('now')`, `strftime('%Y', 'now')`, `timediff('now', …)`), or called without a time
 *   value, which SQLite reads as now (`date()`, `datetime()`, `unixepoch()`, `strftime('%s')`)
 *   (https://sqlite.org/lang_datefunc.html). Reported only when the item has no `as_of_date`: an
 *   item with one states the date its question is asked on.
 * - `random_dependent_gold`: `random()` or `randomblob(n)` (https://sqlite.org/lang_corefunc.html);
 *   an `as_of_date` cannot pin these, so they are reported for every item.
 * - `timezone_dependent_gold`: the `'localtime'` or `'utc'` modifier of a date/time function
 *   converts with the machine's time zone, so the result depends on where it runs.
 *
 * Tokens come from the SQLite tokenizer, so words inside strings and comments never count, a
 * qualified `t.current_date` or an alias `AS current_date` is a name, not the clock, and a
 * double-quoted `"now"` counts as the string it is in SQLite's legacy mode.
 */
import { positionAt } from '../sql/parse.js';
import { tokenizeSqlite, type SqliteToken } from '../sql/sqlite-lexer.js';

/** The kind of a {@link GoldFinding}; also the verdict flag the execution rung adds. */
export type GoldFindingKind = 'clock_dependent_gold' | 'random_dependent_gold' | 'timezone_dependent_gold';

/** One problem found in one gold query, positioned in its text (1-based line and column). */
export interface GoldFinding {
  readonly kind: GoldFindingKind;
  /** Index of the gold in the item's list. */
  readonly goldIndex: number;
  /** The construct as written, e.g. `date('now')`, `CURRENT_DATE`, `random()`. */
  readonly construct: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** What a gold check reads: the item's golds and the fields that change how they are judged. */
export interface GoldCheckInput {
  /** The gold SQL texts, in the item's order. */
  readonly golds: readonly string[];
  /** The item's `as_of_date` (`YYYY-MM-DD`), when it has one. */
  readonly asOfDate?: string;
}

/** One check: an id and a pure function from the item to its findings. */
export interface GoldCheck {
  readonly id: string;
  readonly check: (input: GoldCheckInput) => readonly GoldFinding[];
}

/** The date and time functions (lang_datefunc.html) and the position of their time value. */
const DATE_FUNCTIONS: Readonly<Record<string, { readonly timeValueAt: number }>> = {
  date: { timeValueAt: 0 },
  time: { timeValueAt: 0 },
  datetime: { timeValueAt: 0 },
  julianday: { timeValueAt: 0 },
  unixepoch: { timeValueAt: 0 },
  strftime: { timeValueAt: 1 },
  timediff: { timeValueAt: 0 },
};
const CLOCK_KEYWORDS = new Set(['current_date', 'current_time', 'current_timestamp']);
const RANDOM_FUNCTIONS = new Set(['random', 'randomblob']);
const TIMEZONE_MODIFIERS = new Set(['localtime', 'utc']);

/** A function call found by tokens: its name token and its top-level arguments (token lists). */
interface Call {
  readonly name: SqliteToken;
  readonly args: readonly (readonly SqliteToken[])[];
  /** Offset one past the closing parenthesis. */
  readonly end: number;
}

/** The value of a token when it is a string literal (`'now'`, or `"now"` read as a string). */
function stringValue(tokens: readonly SqliteToken[]): string | undefined {
  const only = tokens.length === 1 ? tokens[0]! : undefined;
  return only !== undefined && (only.kind === 'string' || only.kind === 'double_quoted') ? only.value : undefined;
}

function calls(tokens: readonly SqliteToken[]): Call[] {
  const found: Call[] = [];
  tokens.forEach((token, index) => {
    const open = tokens[index + 1];
    if (token.kind !== 'word' || open?.kind !== 'punctuation' || open.value !== '(' || isQualified(tokens, index)) return;
    const args: SqliteToken[][] = [];
    let current: SqliteToken[] = [];
    let depth = 0;
    for (let i = index + 2; i < tokens.length; i += 1) {
      const inner = tokens[i]!;
      if (inner.kind === 'punctuation' && inner.value === '(') depth += 1;
      if (inner.kind === 'punctuation' && inner.value === ')') {
        if (depth === 0) {
          if (current.length > 0 || args.length > 0) args.push(current);
          found.push({ name: token, args, end: inner.end });
          return;
        }
        depth -= 1;
      }
      if (depth === 0 && inner.kind === 'punctuation' && inner.value === ',') {
        args.push(current);
        current = [];
      } else {
        current.push(inner);
      }
    }
  });
  return found;
}

/** A word written as `x.word` or `word.x`, or right after `AS` (an alias): a name, not a keyword. */
function isQualified(tokens: readonly SqliteToken[], index: number): boolean {
  const before = tokens[index - 1];
  const after = tokens[index + 1];
  const dot = (token: SqliteToken | undefined) => token?.kind === 'punctuation' && token.value === '.';
  return dot(before) || dot(after) || (before?.kind === 'word' && before.value.toLowerCase() === 'as');
}

function finding(kind: GoldFindingKind, goldIndex: number, sql: string, start: number, end: number, message: string): GoldFinding {
  const construct = sql.slice(start, end);
  return { kind, goldIndex, construct, message: `${construct}: ${message}`, ...positionAt(sql, start) };
}

/** Clock reads of one gold (see the module doc), whatever the item's `as_of_date`. */
export function findClockReads(sql: string, goldIndex = 0): GoldFinding[] {
  const tokens = tokenizeSqlite(sql);
  const found: GoldFinding[] = [];
  tokens.forEach((token, index) => {
    if (token.kind === 'word' && CLOCK_KEYWORDS.has(token.value.toLowerCase()) && !isQualified(tokens, index) && tokens[index + 1]?.value !== '(') {
      found.push(finding('clock_dependent_gold', goldIndex, sql, token.start, token.end, 'reads the clock when the query runs'));
    }
  });
  for (const call of calls(tokens)) {
    const spec = DATE_FUNCTIONS[call.name.value.toLowerCase()];
    if (spec === undefined) continue;
    const now = call.args.some((arg) => stringValue(arg)?.toLowerCase() === 'now');
    const noTimeValue = call.args.length <= spec.timeValueAt;
    if (now || noTimeValue) {
      found.push(finding('clock_dependent_gold', goldIndex, sql, call.name.start, call.end, now ? "the time value 'now' reads the clock when the query runs" : 'without a time value SQLite reads the clock (now)'));
    }
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** `random()` / `randomblob()` calls of one gold. */
export function findRandomness(sql: string, goldIndex = 0): GoldFinding[] {
  return calls(tokenizeSqlite(sql))
    .filter((call) => RANDOM_FUNCTIONS.has(call.name.value.toLowerCase()))
    .map((call) => finding('random_dependent_gold', goldIndex, sql, call.name.start, call.end, 'returns a different value on every run'));
}

/** `'localtime'` / `'utc'` modifiers of date/time functions in one gold. */
export function findTimezoneReads(sql: string, goldIndex = 0): GoldFinding[] {
  return calls(tokenizeSqlite(sql))
    .filter((call) => DATE_FUNCTIONS[call.name.value.toLowerCase()] !== undefined && call.args.some((arg) => TIMEZONE_MODIFIERS.has(stringValue(arg)?.toLowerCase() ?? '')))
    .map((call) => finding('timezone_dependent_gold', goldIndex, sql, call.name.start, call.end, "the 'localtime' / 'utc' modifier converts with the machine's time zone"));
}

/** The gold checks, in report order. */
export const GOLD_CHECKS: readonly GoldCheck[] = Object.freeze([
  {
    id: 'clock_dependent_gold',
    check: (input: GoldCheckInput) => (input.asOfDate !== undefined ? [] : input.golds.flatMap((sql, index) => findClockReads(sql, index))),
  },
  { id: 'random_dependent_gold', check: (input: GoldCheckInput) => input.golds.flatMap((sql, index) => findRandomness(sql, index)) },
  { id: 'timezone_dependent_gold', check: (input: GoldCheckInput) => input.golds.flatMap((sql, index) => findTimezoneReads(sql, index)) },
]);

/**
 * Runs gold checks over one item.
 *
 * @param input - the item's golds and `as_of_date`.
 * @param checks - the checks to run (default {@link GOLD_CHECKS}).
 * @returns every finding, check by check, each gold in order; `[]` when the golds are clean.
 * @example
 * runGoldChecks({ golds: ["SELECT count(*) FROM orders WHERE order_date >= date('now', '-30 days')"] })
 * // [{ kind: 'clock_dependent_gold', goldIndex: 0, construct: "date('now', '-30 days')", line: 1, column: 53, … }]
 * runGoldChecks({ golds: ["SELECT … date('now') …"], asOfDate: '2024-06-30' }) // []
 */
export function runGoldChecks(input: GoldCheckInput, checks: readonly GoldCheck[] = GOLD_CHECKS): GoldFinding[] {
  return checks.flatMap((check) => check.check(input));
}
