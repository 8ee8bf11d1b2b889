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
 * must never fail a rung because this layer could not read it. sql-parser-cst rejects SQLite
 * keywords that SQLite accepts as identifiers (`AS full`, `FROM t AS left`, a table named `Match`):
 * for SQLite a failed parse is retried with such words quoted (keyword-identifiers.ts), and the
 * tree keeps offsets into the original text. Callers treat `ok: false` here as "no tree", not as
 * "invalid SQL", whenever the engine accepted the statement.
 */
import { parse as parseCst, type Program } from 'sql-parser-cst';
import nodeSqlParser from 'node-sql-parser';
import { repairKeywordIdentifiers, type ParseAttempt, type QuotedKeyword } from './keyword-identifiers.js';

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
 *   message and 1-based line/column. Never throws for bad SQL.
 * @throws TypeError when `dialect` is not one of {@link DIALECTS}.
 */
export function parseSql(sql: string, dialect: Dialect): ParseResult {
  if (!DIALECTS.includes(dialect)) {
    throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(dialect)}`);
  }
  if (dialect === 'snowflake') return parseWithNodeSqlParser(sql, dialect);
  const cstDialect = CST_DIALECT[dialect];
  try {
    return { ok: true, kind: 'cst', dialect, program: parseWithCst(sql, cstDialect) };
  } catch (error) {
    const parseError = toParseError(error);
    if (dialect === 'sqlite' && parseError.line !== undefined) {
      const attempt = (text: string): ParseAttempt<Program> => {
        try {
          return { ok: true, tree: parseWithCst(text, cstDialect) };
        } catch (retryError) {
          const position = toParseError(retryError);
          return { ok: false, offset: position.line === undefined ? undefined : offsetAt(text, position.line, position.column ?? 1) };
        }
      };
      const repaired = repairKeywordIdentifiers(sql, offsetAt(sql, parseError.line, parseError.column ?? 1), attempt);
      if (repaired) return { ok: true, kind: 'cst', dialect, program: repaired.tree, quotedKeywords: repaired.quoted };
    }
    return { ok: false, dialect, error: parseError };
  }
}

function parseWithCst(sql: string, dialect: (typeof CST_DIALECT)[keyof typeof CST_DIALECT]): Program {
  return parseCst(sql, {
    dialect,
    includeRange: true,
    paramTypes: ['?', '?nr', ':name', '$name', '@name', '$nr'],
    filename: 'sql',
  });
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
  const parser = new nodeSqlParser.Parser();
  try {
    const ast = parser.astify(sql, { database: 'snowflake' });
    return { ok: true, kind: 'node-sql-parser', dialect, ast: Array.isArray(ast) ? ast : [ast] };
  } catch (error) {
    const location = (error as { location?: { start?: { line?: number; column?: number } } }).location?.start;
    const message = firstLine(error instanceof Error ? error.message : String(error));
    return {
      ok: false,
      dialect,
      error: {
        message,
        ...(location?.line !== undefined ? { line: location.line } : {}),
        ...(location?.column !== undefined ? { column: location.column } : {}),
      },
    };
  }
}

function toParseError(error: unknown): ParseError {
  const text = error instanceof Error ? error.message : String(error);
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
