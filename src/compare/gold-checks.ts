/**
 * Checks of gold SQL: the one place where a gold is judged, shared by the execution rung (the
 * flags on every L4 verdict, {@link goldVerdictFlags}) and by `text2sql-ladder audit` (findings
 * with rows), so that a gold is judged the same way everywhere. Each finding kind has one entry in
 * {@link GOLD_CHECK_KINDS} (its severity and the verdict flag it raises, if any).
 *
 * Checks of the text (no database; {@link runGoldChecks}, one entry of {@link GOLD_CHECKS} each):
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
 * - `limit_without_order_by`: a SELECT (outermost or nested) with LIMIT and no ORDER BY keeps
 *   whichever rows the query plan reaches first ("If there is no ORDER BY clause, the rows
 *   returned by LIMIT are … undefined", https://sqlite.org/lang_select.html#limitoffset).
 *
 * Checks of one gold result on one snapshot (`checkGoldResult` in gold-result-checks.ts, with the
 * checks below; the ordering comes from the
 * tie query of `resolveGoldOrdering` under a tie-aware policy):
 * - `tie_at_limit`: the LIMIT / OFFSET cuts through rows that share the sort key, so another
 *   engine, index or SQLite version may keep other rows (Pourreza & Rafiei, "Evaluating Cross-Domain
 *   Text-to-SQL Models and Benchmarks": 20–23% of Spider and BIRD golds can return tied rows at a
 *   LIMIT);
 * - `ties_in_result`: order matters and the ORDER BY leaves rows with equal keys but different
 *   values, whose order is then undefined;
 * - `null_sort_key`: a sort key is NULL in rows whose place depends on the engine (SQLite and
 *   MySQL put NULLs first in ascending order, PostgreSQL and Oracle last), without `NULLS FIRST` /
 *   `NULLS LAST`;
 * - `all_null_row`: the gold returns one row of NULLs (an aggregate over no rows), as weak an
 *   answer as an empty result;
 * - `ties_unchecked`: order matters but the tie groups could not be found (the reason is given).
 * And with the rows of the gold without its LIMIT (`checkLimitCut`): `limit_without_order_by`
 * on the snapshots where that LIMIT drops rows that differ from those it keeps.
 *
 * Checks of a run and across golds and snapshots: `gold_error` / `gold_timeout`
 * (`checkGoldRun`), `golds_disagree` (`checkGoldsAgree`: a later gold judged against the first
 * exactly as L4 judges a prediction), `same_on_every_snapshot` (`checkSameOnEverySnapshot`).
 *
 * Tokens come from the SQLite tokenizer, so words inside strings and comments never count, a
 * qualified `t.current_date` or an alias `AS current_date` is a name, not the clock, and a
 * double-quoted `"now"` counts as the string it is in SQLite's legacy mode.
 *
 * PostgreSQL golds (`dialect: 'postgres'`) are read with PostgreSQL's tokenizer and parser: the
 * clock is `CURRENT_DATE`, `CURRENT_TIME`, `CURRENT_TIMESTAMP`, `LOCALTIME`, `LOCALTIMESTAMP`,
 * `now()`, `clock_timestamp()`, `statement_timestamp()`, `transaction_timestamp()`, `timeofday()`
 * and the special inputs `'now'`, `'today'`, `'tomorrow'`, `'yesterday'` (PostgreSQL manual, 8.5.1.4);
 * `random()` is random; nothing depends on the machine's time zone, since the engine pins the
 * session's TimeZone to UTC for every statement.
 */
import { everyLimitHasOrderBy, findClause, outerSelect, parseSingleStatement, type CstNode, type SqliteParse } from './gold-ordering.js';
import { parseSql, positionAt } from '../sql/parse.js';
import { tokenizeSqlite, type SqliteToken } from '../sql/sqlite-lexer.js';
import { tokenizePostgres } from '../sql/postgres-lexer.js';
import { BoundedMap } from '../bounded-map.js';

/** Errors make a gold untrustworthy (`audit` exits 1); warnings and notes do not. */
export type GoldCheckSeverity = 'error' | 'warning' | 'info';

/** The kind of a {@link GoldFinding} (a check of the text). */
export type GoldFindingKind = 'clock_dependent_gold' | 'random_dependent_gold' | 'timezone_dependent_gold' | 'limit_without_order_by';

/** The kind of a {@link GoldResultFinding} (a check of a result on a snapshot). */
export type GoldResultFindingKind =
  | 'gold_error'
  | 'gold_timeout'
  | 'tie_at_limit'
  | 'ties_in_result'
  | 'null_sort_key'
  | 'all_null_row'
  | 'ties_unchecked'
  | 'limit_without_order_by'
  | 'golds_disagree'
  | 'same_on_every_snapshot';

/** Every kind a gold check reports. */
export type GoldCheckKind = GoldFindingKind | GoldResultFindingKind;

/** What a kind means: its severity and the flag it puts on L4 verdicts (if it has one). */
export interface GoldCheckKindInfo {
  readonly severity: GoldCheckSeverity;
  /** The verdict flag the execution rung adds for it; absent when the rung does not flag it. */
  readonly flag?: string;
  /** One line for reports and docs. */
  readonly summary: string;
}

/** Every gold check kind with its severity and verdict flag. */
export const GOLD_CHECK_KINDS: Readonly<Record<GoldCheckKind, GoldCheckKindInfo>> = Object.freeze({
  clock_dependent_gold: { severity: 'error', flag: 'clock_dependent_gold', summary: 'reads the clock and the item has no as_of_date' },
  random_dependent_gold: { severity: 'error', flag: 'random_dependent_gold', summary: 'calls random() or randomblob()' },
  timezone_dependent_gold: { severity: 'error', flag: 'timezone_dependent_gold', summary: "converts with the machine's time zone ('localtime' / 'utc')" },
  limit_without_order_by: { severity: 'warning', flag: 'limit_without_order_by', summary: 'LIMIT without ORDER BY keeps whichever rows the plan reaches first' },
  gold_error: { severity: 'error', flag: 'gold_error', summary: 'the gold fails on the snapshot' },
  gold_timeout: { severity: 'error', flag: 'gold_error', summary: 'the gold runs past its deadline on the snapshot' },
  tie_at_limit: { severity: 'warning', flag: 'nondeterministic_gold', summary: 'the LIMIT cuts through rows that share the sort key' },
  ties_in_result: { severity: 'warning', summary: 'order matters and rows with equal sort keys may come in any order' },
  null_sort_key: { severity: 'warning', flag: 'null_sort_key', summary: 'a sort key is NULL: where NULLs sort depends on the engine' },
  all_null_row: { severity: 'warning', flag: 'all_null_gold_row', summary: 'the gold returns one row of NULLs' },
  ties_unchecked: { severity: 'info', summary: 'order matters but the tie groups could not be found' },
  golds_disagree: { severity: 'error', summary: 'golds of one item return different results on the snapshot' },
  same_on_every_snapshot: { severity: 'info', summary: 'the result is the same on every snapshot: the extra snapshots add nothing for it' },
});

/** One problem found in the text of one gold query, positioned in its text (1-based line and column). */
export interface GoldFinding {
  readonly kind: GoldFindingKind;
  /** Index of the gold in the item's list. */
  readonly goldIndex: number;
  /** The construct as written, e.g. `date('now')`, `CURRENT_DATE`, `random()`, `LIMIT 1`. */
  readonly construct: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** What a text check reads: the item's golds and the fields that change how they are judged. */
export interface GoldCheckInput {
  /** The gold SQL texts, in the item's order. */
  readonly golds: readonly string[];
  /** The item's `as_of_date` (`YYYY-MM-DD`), when it has one. */
  readonly asOfDate?: string;
  /** The parser to read the golds with (default `parseSql(sql, dialect)`; the ladder passes its item's memo). */
  readonly parse?: SqliteParse;
  /** The golds' dialect: `sqlite` (default) or `postgres` (its tokens, clock and parser; see the module doc). */
  readonly dialect?: 'sqlite' | 'postgres';
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
/** PostgreSQL's clock: keywords, functions, and the special date/time inputs that read it. */
const POSTGRES_CLOCK_KEYWORDS = new Set([...CLOCK_KEYWORDS, 'localtime', 'localtimestamp']);
const POSTGRES_CLOCK_FUNCTIONS = new Set(['now', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp', 'timeofday']);
const POSTGRES_CLOCK_INPUTS = new Set(['now', 'today', 'tomorrow', 'yesterday']);
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

/**
 * The tokens and calls of the text read last: the checks of one gold read the same text in turn
 * (clock, randomness, time zone), so it is tokenized once. Neither is ever changed by a reader.
 */
let lastRead: { readonly sql: string; readonly dialect: 'sqlite' | 'postgres'; readonly tokens: readonly SqliteToken[]; calls?: readonly Call[] } | undefined;

function tokensOf(sql: string, dialect: 'sqlite' | 'postgres' = 'sqlite'): readonly SqliteToken[] {
  if (lastRead?.sql !== sql || lastRead.dialect !== dialect) lastRead = { sql, dialect, tokens: dialect === 'postgres' ? tokenizePostgres(sql) : tokenizeSqlite(sql) };
  return lastRead.tokens;
}

function callsOf(sql: string, dialect: 'sqlite' | 'postgres' = 'sqlite'): readonly Call[] {
  const tokens = tokensOf(sql, dialect);
  lastRead!.calls ??= calls(tokens);
  return lastRead!.calls;
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
export function findClockReads(sql: string, goldIndex = 0, dialect: 'sqlite' | 'postgres' = 'sqlite'): GoldFinding[] {
  if (dialect === 'postgres') return findPostgresClockReads(sql, goldIndex);
  const tokens = tokensOf(sql);
  const found: GoldFinding[] = [];
  tokens.forEach((token, index) => {
    if (token.kind === 'word' && CLOCK_KEYWORDS.has(token.value.toLowerCase()) && !isQualified(tokens, index) && tokens[index + 1]?.value !== '(') {
      found.push(finding('clock_dependent_gold', goldIndex, sql, token.start, token.end, 'reads the clock when the query runs'));
    }
  });
  for (const call of callsOf(sql)) {
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

/** PostgreSQL's clock reads of one gold: its keywords, functions and special inputs (module doc). */
function findPostgresClockReads(sql: string, goldIndex: number): GoldFinding[] {
  const tokens = tokensOf(sql, 'postgres');
  const found: GoldFinding[] = [];
  tokens.forEach((token, index) => {
    const word = token.kind === 'word' ? token.value.toLowerCase() : undefined;
    const called = tokens[index + 1]?.value === '(';
    if (word !== undefined && !isQualified(tokens, index) && ((POSTGRES_CLOCK_KEYWORDS.has(word) && !called) || (POSTGRES_CLOCK_FUNCTIONS.has(word) && called))) {
      const end = called ? (callsOf(sql, 'postgres').find((call) => call.name === token)?.end ?? token.end) : token.end;
      found.push(finding('clock_dependent_gold', goldIndex, sql, token.start, end, 'reads the clock when the query runs'));
    } else if (token.kind === 'string' && POSTGRES_CLOCK_INPUTS.has(token.value.trim().toLowerCase())) {
      found.push(finding('clock_dependent_gold', goldIndex, sql, token.start, token.end, 'a special date/time input that reads the clock when the query runs'));
    }
  });
  return found;
}

/** `random()` / `randomblob()` calls of one gold. */
export function findRandomness(sql: string, goldIndex = 0, dialect: 'sqlite' | 'postgres' = 'sqlite'): GoldFinding[] {
  return callsOf(sql, dialect)
    .filter((call) => RANDOM_FUNCTIONS.has(call.name.value.toLowerCase()))
    .map((call) => finding('random_dependent_gold', goldIndex, sql, call.name.start, call.end, 'returns a different value on every run'));
}

/** `'localtime'` / `'utc'` modifiers of date/time functions in one gold (SQLite; none on PostgreSQL, whose TimeZone the engine pins). */
export function findTimezoneReads(sql: string, goldIndex = 0, dialect: 'sqlite' | 'postgres' = 'sqlite'): GoldFinding[] {
  if (dialect === 'postgres') return [];
  return callsOf(sql)
    .filter((call) => DATE_FUNCTIONS[call.name.value.toLowerCase()] !== undefined && call.args.some((arg) => TIMEZONE_MODIFIERS.has(stringValue(arg)?.toLowerCase() ?? '')))
    .map((call) => finding('timezone_dependent_gold', goldIndex, sql, call.name.start, call.end, "the 'localtime' / 'utc' modifier converts with the machine's time zone"));
}

/** Every node of a tree, parents first. */
function* nodesOf(node: unknown): Generator<CstNode> {
  if (Array.isArray(node)) {
    for (const entry of node) yield* nodesOf(entry);
    return;
  }
  if (node === null || typeof node !== 'object' || typeof (node as { type?: unknown }).type !== 'string') return;
  yield node as CstNode;
  for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) yield* nodesOf(value);
}

/**
 * SELECTs with LIMIT and no ORDER BY in one gold, outermost or nested (a compound select's
 * trailing ORDER BY and LIMIT belong to its right-most member, so the pair is found there). A
 * gold the AST layer cannot read is not reported.
 */
export function findLimitWithoutOrderBy(sql: string, goldIndex = 0, parse: SqliteParse = (text) => parseSql(text, 'sqlite')): GoldFinding[] {
  // Most golds settle on their tokens: a parse is paid only when some LIMIT may lack its ORDER BY.
  if (everyLimitHasOrderBy(sql)) return [];
  const parsed = parse(sql);
  if (!parsed.ok || parsed.kind !== 'cst') return [];
  const found: GoldFinding[] = [];
  for (const node of nodesOf(parsed.program.statements)) {
    if (node.type !== 'select_stmt') continue;
    const limit = findClause(node, 'limit_clause');
    if (limit?.range === undefined || findClause(node, 'order_by_clause') !== undefined) continue;
    const count = limit['count'] as CstNode | undefined;
    // `LIMIT -1` (and any negative count) means no limit (lang_select.html#limitoffset).
    const countText = count?.range === undefined ? '' : sql.slice(count.range[0], count.range[1]).replace(/\s+/g, '');
    if (/^-\d+$/.test(countText) && limit['offset'] === undefined) continue;
    found.push(finding('limit_without_order_by', goldIndex, sql, limit.range[0], limit.range[1], 'without ORDER BY the rows kept are whichever the query plan reaches first'));
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** A nested SELECT with ORDER BY and LIMIT: its text, to run on its own for the tie checks. */
export interface OrderedLimitSubquery {
  /** The SELECT as written (without the parentheses around it). */
  readonly sql: string;
  /** Its offset in the gold's text. */
  readonly start: number;
}

/**
 * The nested SELECTs (subqueries, CTE bodies) with both ORDER BY and LIMIT: a tie at their cut
 * changes which row the outer query compares with (`WHERE id = (SELECT id … ORDER BY x LIMIT 1)`),
 * so the audit runs each on its own and checks its cut. One that reads the outer query's columns
 * or a CTE cannot run alone; the audit says so.
 */
export function findOrderedLimitSubqueries(sql: string, parse?: SqliteParse): OrderedLimitSubquery[] {
  const statement = parseSingleStatement(sql, parse);
  if (statement === undefined) return [];
  // A compound's trailing ORDER BY and LIMIT hang on its right-most member but cut the whole compound.
  const members = new Set<CstNode>();
  for (const node of nodesOf(statement)) if (node.type === 'compound_select_stmt') members.add(node['right'] as CstNode);
  const found: OrderedLimitSubquery[] = [];
  for (const node of nodesOf(statement)) {
    if (node === statement || members.has(node) || node.range === undefined) continue;
    const holder = node.type === 'select_stmt' ? node : node.type === 'compound_select_stmt' ? outerSelect(node) : undefined;
    if (holder === undefined || findClause(holder, 'limit_clause') === undefined || findClause(holder, 'order_by_clause') === undefined) continue;
    found.push({ sql: sql.slice(node.range[0], node.range[1]), start: node.range[0] });
  }
  return found;
}

/** The text checks, in report order. */
export const GOLD_CHECKS: readonly GoldCheck[] = Object.freeze([
  {
    id: 'clock_dependent_gold',
    check: (input: GoldCheckInput) => (input.asOfDate !== undefined ? [] : input.golds.flatMap((sql, index) => findClockReads(sql, index, input.dialect))),
  },
  { id: 'random_dependent_gold', check: (input: GoldCheckInput) => input.golds.flatMap((sql, index) => findRandomness(sql, index, input.dialect)) },
  { id: 'timezone_dependent_gold', check: (input: GoldCheckInput) => input.golds.flatMap((sql, index) => findTimezoneReads(sql, index, input.dialect)) },
  {
    id: 'limit_without_order_by',
    check: (input: GoldCheckInput) => input.golds.flatMap((sql, index) => findLimitWithoutOrderBy(sql, index, input.parse ?? (input.dialect === 'postgres' ? (text) => parseSql(text, 'postgres') : undefined))),
  },
]);

/**
 * Runs the text checks over one item.
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
  // The default checks with the default parser are a pure function of the texts and of whether
  // there is an as_of_date: a run that meets the same gold again (Spider's paraphrased questions
  // share golds) reuses the findings instead of tokenizing the gold four times more.
  if (checks !== GOLD_CHECKS || input.parse !== undefined) return checks.flatMap((check) => check.check(input));
  const key = `${input.dialect ?? 'sqlite'}${input.asOfDate === undefined ? '-' : '+'}${input.golds.join('\u0000')}`;
  let found = defaultFindings.get(key);
  if (found === undefined) {
    found = Object.freeze(GOLD_CHECKS.flatMap((check) => check.check(input)).map((finding) => Object.freeze(finding)));
    defaultFindings.set(key, found);
  }
  return [...found];
}

/** Findings of the default checks by item (see {@link runGoldChecks}), oldest evicted first. */
const defaultFindings = new BoundedMap<string, readonly GoldFinding[]>(4096);
