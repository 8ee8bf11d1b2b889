/**
 * The AST layer: one entry point that parses SQL in a named dialect.
 *
 * Chosen on evidence (issue 2): sql-parser-cst parses every gold and prediction of the shared
 * Spider slice in its SQLite dialect, while node-sql-parser's SQLite grammar rejects 34 golds
 * (INTERSECT / EXCEPT) and valid syntax such as bracket identifiers, `FILTER (WHERE …)` and
 * `IS NOT DISTINCT FROM`. So:
 * - `sqlite`, `postgres`, `mysql`, `bigquery` → sql-parser-cst (concrete syntax tree, with ranges);
 * - `snowflake` → node-sql-parser (sql-parser-cst has no Snowflake dialect).
 *
 * For SQLite the engine (SQLite's own `prepare`) stays the authority: a statement SQLite accepts
 * must never fail a rung because this layer could not read it (sql-parser-cst rejects a table
 * named `Match`, for instance). Callers treat `ok: false` here as "no tree", not as "invalid SQL",
 * whenever the engine accepted the statement.
 */
import type { Program } from 'sql-parser-cst';
import { sqlSizeOverBudget } from './analysis-budget.js';
import { parseInWorker } from './bounded-parse.js';
import { parserText, restoreIdentifiers } from './parser-text.js';

/** Dialects the ladder understands. */
export type Dialect = 'sqlite' | 'postgres' | 'mysql' | 'bigquery' | 'snowflake';

/** Every supported dialect, for option validation. */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres', 'mysql', 'bigquery', 'snowflake'];

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
 *   takes longer than `PARSE_TIME_BUDGET_MS` (bounded-parse.ts: the parse runs in a worker
 *   thread). Never throws for bad SQL.
 * @throws TypeError when `dialect` is not one of {@link DIALECTS}.
 */
export function parseSql(sql: string, dialect: Dialect): ParseResult {
  if (!DIALECTS.includes(dialect)) {
    throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(dialect)}`);
  }
  // L1, L2, L3 and the diagnostics each parse the same text: keep recent results (trees are
  // never mutated after this function, so sharing them is safe). Long texts are not kept.
  const key = `${dialect}\u0000${sql}`;
  const hit = recentParses.get(key);
  if (hit) {
    recentParses.delete(key);
    recentParses.set(key, hit);
    return hit;
  }
  const result = parseUncached(sql, dialect);
  if (sql.length <= MAX_CACHED_SQL_CHARS) {
    recentParses.set(key, result);
    if (recentParses.size > PARSE_CACHE_SIZE) recentParses.delete(recentParses.keys().next().value!);
  }
  return result;
}

/** Recent parse results, least recently used first. */
const recentParses = new Map<string, ParseResult>();
const PARSE_CACHE_SIZE = 256;
/** Longest text whose tree is kept (bounds the memory the cache can hold). */
const MAX_CACHED_SQL_CHARS = 20_000;

function parseUncached(sql: string, dialect: Dialect): ParseResult {
  const oversized = sqlSizeOverBudget(sql);
  if (oversized !== undefined) return { ok: false, dialect, error: { message: oversized, budget: true } };
  if (dialect === 'snowflake') return parseWithNodeSqlParser(sql, dialect);
  // What SQLite reads (bare CR, BOM, an open trailing comment, non-ASCII identifiers): parser-text.ts.
  const prepared = parserText(sql, dialect === 'sqlite');
  if (prepared.unbalanced) return { ok: false, dialect, error: { message: prepared.unbalanced.message, ...positionAt(sql, prepared.unbalanced.offset) } };
  // In a worker thread with a time limit: the parser backtracks exponentially on some input.
  const parsed = parseInWorker('sql-parser-cst', prepared.text, {
    dialect: CST_DIALECT[dialect],
    includeRange: true,
    paramTypes: ['?', '?nr', ':name', '$name', '@name', '$nr'],
    filename: 'sql',
  });
  if (!parsed.ok) return { ok: false, dialect, error: parsed.budget ? { message: parsed.message, budget: true } : toParseError(parsed.message) };
  const program = parsed.value as Program;
  if (prepared.replacedWordCharacters) restoreIdentifiers(program, sql);
  return { ok: true, kind: 'cst', dialect, program };
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

/**
 * Converts a 0-based character offset in `sql` to a 1-based line and column.
 * @param sql - the text the offset points into.
 * @param offset - 0-based UTF-16 offset (as in sql-parser-cst's `range`).
 */
export function positionAt(sql: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < sql.length; i += 1) {
    if (sql[i] === '\n') {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
