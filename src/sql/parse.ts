/**
 * The AST layer: one entry point that parses SQL in a named dialect.
 *
 * Chosen on evidence: sql-parser-cst parses every gold and prediction of the shared
 * Spider slice in its SQLite dialect, while node-sql-parser's SQLite grammar rejects 34 golds
 * (INTERSECT / EXCEPT) and valid syntax such as bracket identifiers, `FILTER (WHERE …)` and
 * `IS NOT DISTINCT FROM`. So:
 * - `sqlite`, `postgres`, `mysql`, `bigquery` → sql-parser-cst (concrete syntax tree, with ranges);
 * - `snowflake` → node-sql-parser (sql-parser-cst has no Snowflake dialect).
 * PostgreSQL text is first rewritten, offsets kept, where the grammar misses forms PostgreSQL
 * accepts (`WITHIN GROUP`, `timestamptz '…'`: postgres-parser-text.ts).
 *
 * For SQLite the engine (SQLite's own `prepare`) stays the authority: a statement SQLite accepts
 * must never fail a rung because this layer could not read it. sql-parser-cst rejects SQLite
 * keywords that SQLite accepts as identifiers (`AS full`, `FROM t AS left`, a table named `Match`):
 * for SQLite a failed parse is retried with such words quoted (keyword-identifiers.ts), and the
 * tree keeps offsets into the original text. Callers treat `ok: false` here as "no tree", not as
 * "invalid SQL", whenever the engine accepted the statement.
 */
import { performance } from 'node:perf_hooks';
import type { Program } from 'sql-parser-cst';
import { BUDGET_REASON, sqlSizeOverBudget } from './analysis-budget.js';
import { MAX_AHEAD_PARSES, parseInWorker, parseTimeBudgetMs, parseInWorkerAhead, whenAnsweredInWorker } from './bounded-parse.js';
import { repairKeywordIdentifiers, type ParseAttempt, type QuotedKeyword } from './keyword-identifiers.js';
import { parserText, restoreIdentifiers } from './parser-text.js';
import { postgresParserText } from './postgres-parser-text.js';
import type { SqlNode } from './sql-tree.js';
import { BoundedMap } from '../bounded-map.js';

import { lineLocator, positionAt } from './line-locator.js';

export { lineLocator, positionAt };

/** Dialects the ladder understands. */
export type Dialect = 'sqlite' | 'postgres' | 'mysql' | 'bigquery' | 'snowflake';

/** How double-quoted tokens that name no column are treated (by the engine and by name resolution). */
export type DoubleQuoteMode =
  /** As stock SQLite builds do: a double-quoted token that names no column is a string literal. */
  | 'legacy'
  /** As better-sqlite3 is built: a double-quoted token is always an identifier. */
  | 'strict';

/** Every supported dialect, for option validation. */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres', 'mysql', 'bigquery', 'snowflake'];

/** The database each dialect is named after, for messages (`PostgreSQL requires …`). */
export const DATABASE_NAMES: Readonly<Record<Dialect, string>> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL', bigquery: 'BigQuery', snowflake: 'Snowflake' };

/** A parse failure with a 1-based position when the parser gave one. */
export interface ParseError {
  /** First line of the parser's message, e.g. `Syntax Error: Unexpected "FROM"`. */
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  /**
   * True when the text was not parsed because it is over an analysis budget (too long, or its
   * tree too deep: see analysis-budget.ts); `message` then starts "not analysed within budget".
   */
  readonly budget?: boolean;
}

/** A sql-parser-cst tree (every dialect but Snowflake). Nodes carry `range: [start, end)` offsets. */
export interface CstParse {
  readonly ok: true;
  readonly kind: 'cst';
  readonly dialect: Dialect;
  readonly program: Program;
  /**
   * SQLite only: keywords used as identifiers that had to be quoted for the parser to read the
   * text (offsets into the original text); absent when the text parsed as written.
   */
  readonly quotedKeywords?: readonly QuotedKeyword[];
}

/** A node-sql-parser tree (Snowflake). `ast` is node-sql-parser's AST list, one per statement. */
export interface NodeSqlParse {
  readonly ok: true;
  readonly kind: 'node-sql-parser';
  readonly dialect: Dialect;
  readonly ast: readonly unknown[];
}

/** Result of {@link parseSql}. */
export type ParseResult = CstParse | NodeSqlParse | { readonly ok: false; readonly dialect: Dialect; readonly error: ParseError };

const CST_DIALECT = {
  sqlite: 'sqlite',
  postgres: 'postgresql',
  mysql: 'mysql',
  bigquery: 'bigquery',
} as const;

/**
 * Parses SQL text (one or more statements) in a dialect.
 *
 * @param sql - the SQL text.
 * @param dialect - one of {@link DIALECTS}.
 * @returns the tree (with source ranges for sql-parser-cst), or `ok: false` with the parser's
 *   message and 1-based line/column, or with `budget: true` when the text is longer than
 *   `MAX_SQL_CHARS`, its tree deeper than `MAX_TREE_DEPTH` (analysis-budget.ts) or the parser
 *   takes longer than the parse time budget (`parseTimeBudgetMs`, 2 000 ms unless set;
 *   bounded-parse.ts: the parse runs in a worker thread). Never throws for bad SQL. The result of a recent text is returned again (the same
 *   object: trees are read-only).
 * @throws TypeError when `dialect` is not one of {@link DIALECTS}.
 */
export function parseSql(sql: string, dialect: Dialect): ParseResult {
  if (!DIALECTS.includes(dialect)) {
    throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(dialect)}`);
  }
  const key = `${dialect}\u0000${sql}`;
  const known = recentParses.get(key);
  if (known !== undefined) return known;
  const parsed = parseUncached(sql, dialect);
  // Budget outcomes depend on the moment (bounded-parse.ts remembers those itself).
  if (parsed.ok || !parsed.error.budget) {
    recentParses.set(key, parsed);
  }
  return parsed;
}

/**
 * Starts the SQLite parse of `sql` in the parser thread and returns at once, so that a
 * {@link parseSql} of the same text soon after finds it done or under way (the execution rung
 * starts a gold's parse while the gold runs). Does nothing for a text parsed recently, or one that
 * cannot parse (over the size budget, unbalanced parentheses). The budget is unchanged: see
 * bounded-parse.ts. Never throws for bad SQL.
 */
export function parseSqlAhead(sql: string): void {
  if (recentParses.has(`sqlite\u0000${sql}`) || sqlSizeOverBudget(sql) !== undefined) return;
  const prepared = parserText(sql, true);
  if (prepared.unbalanced) return;
  aheadTexts.set(sql, prepared.text);
  parseInWorkerAhead('sql-parser-cst', prepared.text, cstOptions(CST_DIALECT.sqlite));
}

/**
 * The parser's text of each SQL text {@link parseSqlAhead} started, newest last, so that
 * {@link whenParsedAhead} finds the job without reading the text again. As many as the parser
 * thread keeps jobs started ahead; an older one is dropped there too.
 */
const aheadTexts = new BoundedMap<string, string>(MAX_AHEAD_PARSES);

/**
 * Resolves once the parse {@link parseSqlAhead} started for `sql` has been answered, so that the
 * `parseSql(sql, 'sqlite')` that follows does not block this thread (`whenAnsweredInWorker`); at
 * once when no parse of it is under way. Never rejects.
 * @param sql - the SQL text given to {@link parseSqlAhead}.
 */
export function whenParsedAhead(sql: string): Promise<void> {
  const text = aheadTexts.get(sql);
  if (text === undefined || recentParses.has(`sqlite\u0000${sql}`)) return Promise.resolve();
  return whenAnsweredInWorker('sql-parser-cst', text, cstOptions(CST_DIALECT.sqlite));
}

/** The sql-parser-cst options of every parse (the same object shape, so that ahead jobs are found). */
function cstOptions(dialect: (typeof CST_DIALECT)[keyof typeof CST_DIALECT]): object {
  return { dialect, includeRange: true, paramTypes: ['?', '?nr', ':name', '$name', '@name', '$nr'], filename: 'sql' };
}

/**
 * Parses of recent texts, most recent last. A run grades the same gold once per provider and its
 * rungs read the same texts; a parse costs a round trip to the parser thread (about 1–5 ms). The
 * trees are shared, never modified.
 */
const recentParses = new BoundedMap<string, ParseResult>(256, { refreshOnRead: true });

function parseUncached(sql: string, dialect: Dialect): ParseResult {
  const oversized = sqlSizeOverBudget(sql);
  if (oversized !== undefined) return { ok: false, dialect, error: { message: oversized, budget: true } };
  if (dialect === 'snowflake') return parseWithNodeSqlParser(sql, dialect);
  const cstDialect = CST_DIALECT[dialect];
  const sqliteRules = dialect === 'sqlite';
  // Text whose parentheses can never match cannot parse, and costs the parser exponential time.
  const unbalanced = sqliteRules ? parserText(sql, true).unbalanced : undefined;
  if (unbalanced) return { ok: false, dialect, error: { message: unbalanced.message, ...positionAt(sql, unbalanced.offset) } };
  // One time budget for the parse and every keyword-repair attempt (bounded-parse.ts).
  const budgetMs = parseTimeBudgetMs();
  const deadline = performance.now() + budgetMs;
  const first = parseWithCst(sql, cstDialect, sqliteRules, deadline, budgetMs);
  if (first.ok) return { ok: true, kind: 'cst', dialect, program: first.program };
  const parseError = first.error;
  if (dialect === 'sqlite' && parseError.line !== undefined && !parseError.budget) {
    let outOfTime = false;
    const attempt = (text: string): ParseAttempt<Program> => {
      const retried = parseWithCst(text, cstDialect, true, deadline, budgetMs);
      if (retried.ok) return { ok: true, tree: retried.program };
      if (retried.error.budget) outOfTime = true;
      const position = retried.error;
      return { ok: false, offset: position.line === undefined ? undefined : offsetAt(text, position.line, position.column ?? 1) };
    };
    const repaired = repairKeywordIdentifiers(sql, offsetAt(sql, parseError.line, parseError.column ?? 1), attempt);
    if (repaired) return { ok: true, kind: 'cst', dialect, program: repaired.tree, quotedKeywords: repaired.quoted };
    if (outOfTime) return { ok: false, dialect, error: parseTimeBudget(budgetMs) };
  }
  return { ok: false, dialect, error: parseError };
}

function parseTimeBudget(budgetMs: number): ParseError {
  return { message: `${BUDGET_REASON}: the parser took more than ${budgetMs} ms`, budget: true };
}

/**
 * One sql-parser-cst parse of `text` in the parser thread (bounded-parse.ts), within what is left
 * of the deadline, on the text SQLite reads (parser-text.ts), identifiers restored as written.
 */
function parseWithCst(
  text: string,
  dialect: (typeof CST_DIALECT)[keyof typeof CST_DIALECT],
  sqliteRules: boolean,
  deadline: number,
  budgetMs: number,
): { readonly ok: true; readonly program: Program } | { readonly ok: false; readonly error: ParseError } {
  // Whole milliseconds: the first parse gets the full budget, so a text that ran out of it once is
  // known to bounded-parse.ts for every later rung.
  const remaining = Math.ceil(deadline - performance.now());
  if (remaining <= 0) return { ok: false, error: parseTimeBudget(budgetMs) };
  const prepared = parserText(dialect === 'postgresql' ? postgresParserText(text) : text, sqliteRules);
  const parsed = parseInWorker('sql-parser-cst', prepared.text, cstOptions(dialect), remaining);
  if (!parsed.ok) {
    if (!parsed.budget) return { ok: false, error: toParseError(parsed.message) };
    return { ok: false, error: /the parser took more than/.test(parsed.message) ? parseTimeBudget(budgetMs) : { message: parsed.message, budget: true } };
  }
  const program = parsed.value as Program;
  if (prepared.replacedWordCharacters) restoreIdentifiers(program, text);
  return { ok: true, program };
}

/** The 0-based offset of a 1-based line and column (the inverse of {@link positionAt}). */
function offsetAt(sql: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const newline = sql.indexOf('\n', offset);
    if (newline < 0) return sql.length;
    offset = newline + 1;
  }
  return Math.min(sql.length, offset + column - 1);
}

function parseWithNodeSqlParser(sql: string, dialect: Dialect): ParseResult {
  const parsed = parseInWorker('node-sql-parser', sql, { database: 'snowflake' });
  if (parsed.ok) {
    const ast = parsed.value;
    return { ok: true, kind: 'node-sql-parser', dialect, ast: Array.isArray(ast) ? ast : [ast] };
  }
  if (parsed.budget) return { ok: false, dialect, error: { message: parsed.message, budget: true } };
  const location = parsed.location?.start;
  return {
    ok: false,
    dialect,
    error: {
      message: firstLine(parsed.message),
      ...(location?.line !== undefined ? { line: location.line } : {}),
      ...(location?.column !== undefined ? { column: location.column } : {}),
    },
  };
}

function toParseError(text: string): ParseError {
  const position = /--> sql:(\d+):(\d+)/.exec(text);
  return {
    message: firstLine(text),
    ...(position ? { line: Number(position[1]), column: Number(position[2]) } : {}),
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

const parseCache = new BoundedMap<string, ParseResult>(512, { refreshOnRead: true });

/**
 * {@link parseSql} with a small LRU cache (512 texts): diagnostics read the same gold and predicted
 * SQL several times, and parsing dominates their cost. Trees are never mutated, so sharing is safe.
 */
export function parseSqlCached(sql: string, dialect: Dialect): ParseResult {
  const key = `${dialect}\u0000${sql}`;
  const hit = parseCache.get(key);
  if (hit) return hit;
  const parsed = parseSql(sql, dialect);
  parseCache.set(key, parsed);
  return parsed;
}

/** Parses exactly one statement into a CST node, or says why not. */
export function parseStatement(
  sql: string,
  dialect: Dialect,
): { readonly ok: true; readonly tree: SqlNode } | { readonly ok: false; readonly reason: string } {
  const parsed = parseSqlCached(sql, dialect);
  if (!parsed.ok) return { ok: false, reason: parsed.error.budget ? parsed.error.message : `parse error: ${parsed.error.message}` };
  if (parsed.kind !== 'cst') return { ok: false, reason: `no concrete syntax tree for dialect ${dialect}` };
  const statements = parsed.program.statements.filter((s) => s.type !== 'empty');
  if (statements.length !== 1) return { ok: false, reason: `expected one statement, found ${statements.length}` };
  return { ok: true, tree: statements[0] as unknown as SqlNode };
}
