/**
 * The query-only gate: the SQLite engine runs only a single,
 * read-only, row-returning statement whose top level is SELECT, WITH … SELECT or VALUES.
 *
 * Two checks, in this order:
 * 1. {@link checkQueryText}, on tokens, BEFORE SQLite compiles anything. Compiling is not inert:
 *    `prepare('PRAGMA query_only=0')` alone switches the guard off, `PRAGMA mmap_size=…` changes
 *    the connection (measured with better-sqlite3 12, SQLite 3.53.2). So the text must hold
 *    exactly one statement whose first word is SELECT, WITH or VALUES.
 * 2. {@link checkPreparedStatement}, after prepare and before the first step: SQLite's own
 *    verdict (`sqlite3_stmt_readonly`, and whether the statement returns columns) rejects
 *    `WITH … INSERT/UPDATE/DELETE` and anything else that writes.
 *
 * A text with no `;` character, or with `;` only in a run of semicolons and whitespace that ends
 * it, holds at most one statement (those semicolons are separators, or inside a quote or comment
 * left open), so for it the gate reads only its first word (after whitespace and comments)
 * instead of tokenizing all of it. The verdict is the tokenizer's in every case: any other text,
 * or a first token that is not SELECT, WITH or VALUES, takes the full path.
 */
import type { ExecutionError } from '../engine.js';
import { splitStatements, tokenizeSqlite } from '../../sql/sqlite-lexer.js';

/** First words a query may start with (https://sqlite.org/lang_select.html). */
const QUERY_KEYWORDS: ReadonlySet<string> = new Set(['select', 'with', 'values']);

/**
 * Checks SQL text before it reaches SQLite.
 *
 * @param sql - the statement text; comments, whitespace and one or more trailing `;` are allowed.
 * @returns `undefined` when the text holds one statement starting with SELECT / WITH / VALUES;
 *   otherwise an error with code `empty_statement`, `multiple_statements` or `not_a_query`, or
 *   `syntax_error` (`unrecognized token: a NUL character …`) for text holding a NUL.
 * @example
 * checkQueryText('PRAGMA query_only = 0')
 * // { code: 'not_a_query', message: 'not a query: the statement starts with PRAGMA; only SELECT, WITH … SELECT and VALUES run' }
 */
export function checkQueryText(sql: string): ExecutionError | undefined {
  const nul = sql.indexOf('\0');
  if (nul >= 0) {
    // SQLite reads SQL as a C string: it would run the text before the NUL and never see the
    // rest, while every static check reads all of it. Refused, so that both judge the same text.
    const { line, column } = lineAndColumn(sql, nul);
    return {
      code: 'syntax_error',
      message: `unrecognized token: a NUL character at line ${line}, column ${column}; SQLite stops reading SQL text at a NUL, so the text is refused`,
    };
  }
  if (atMostOneStatement(sql) && QUERY_KEYWORDS.has(firstWord(sql))) return undefined;
  const statements = splitStatements(tokenizeSqlite(sql));
  if (statements.length === 0) {
    return { code: 'empty_statement', message: 'empty statement: the text holds no SQL (only whitespace, comments or semicolons)' };
  }
  if (statements.length > 1) {
    return {
      code: 'multiple_statements',
      message: `multiple statements: the text holds ${statements.length} statements; exactly one query runs`,
    };
  }
  const first = statements[0]![0]!;
  if (first.kind !== 'word' || !QUERY_KEYWORDS.has(first.value.toLowerCase())) {
    const shown = first.kind === 'word' ? first.value.toUpperCase() : JSON.stringify(first.value);
    return {
      code: 'not_a_query',
      message: `not a query: the statement starts with ${shown}; only SELECT, WITH … SELECT and VALUES run`,
    };
  }
  return undefined;
}

/**
 * Offset of the first token of `sql`: whitespace (with U+FEFF), `--` and `/* … *\/` comments
 * skipped as sqlite-lexer.ts skips them; `sql.length` when there is no token.
 */
export function firstTokenStart(sql: string): number {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const code = sql.charCodeAt(i);
    if (isSpaceCode(code)) {
      i += 1;
    } else if (code === 45 && sql.charCodeAt(i + 1) === 45) {
      const newline = sql.indexOf('\n', i);
      i = newline < 0 ? n : newline + 1;
    } else if (code === 47 && sql.charCodeAt(i + 1) === 42) {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else {
      return i;
    }
  }
  return n;
}

/** True when `sql` has no `;`, or only in the run of `;` and whitespace that ends it (see the module doc). */
function atMostOneStatement(sql: string): boolean {
  const first = sql.indexOf(';');
  if (first < 0) return true;
  for (let i = first + 1; i < sql.length; i += 1) {
    const code = sql.charCodeAt(i);
    if (code !== 59 && !isSpaceCode(code)) return false;
  }
  return true;
}

/** Whitespace as sqlite-lexer.ts skips it: space, `\t`, `\n`, `\r`, `\f`, `\v` and U+FEFF. */
function isSpaceCode(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11 || code === 0xfeff;
}

/**
 * The first token of `sql` lower-cased when it is a bare word (sqlite-lexer.ts: it starts with a
 * letter, `_`, `$` or a code unit from U+0080, not a digit); `''` otherwise.
 */
function firstWord(sql: string): string {
  const start = firstTokenStart(sql);
  if (start === sql.length || !isWordCode(sql.charCodeAt(start)) || isDigitCode(sql.charCodeAt(start))) return '';
  let end = start + 1;
  while (end < sql.length && isWordCode(sql.charCodeAt(end))) end += 1;
  return sql.slice(start, end).toLowerCase();
}

/** `[A-Za-z0-9_$]` or a code unit from U+0080: SQLite's identifier characters, as in sqlite-lexer.ts. */
function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code >= 0x80;
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** 1-based line and column of a 0-based offset (lines end at `\n`). */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** The slice of a prepared better-sqlite3 statement the gate reads. */
export interface GateStatement {
  /** `sqlite3_stmt_readonly()`: true when the statement makes no direct change to the database file. */
  readonly readonly: boolean;
  /** True when the statement returns data (has result columns). */
  readonly reader: boolean;
}

/**
 * Checks a prepared statement before it steps.
 *
 * @param statement - the prepared statement (better-sqlite3 `Statement`).
 * @returns `undefined` for a read-only, row-returning statement; otherwise `not_a_query`.
 */
export function checkPreparedStatement(statement: GateStatement): ExecutionError | undefined {
  if (!statement.readonly) {
    return { code: 'not_a_query', message: 'not a query: SQLite reports that the statement writes (e.g. WITH … INSERT/UPDATE/DELETE)' };
  }
  if (!statement.reader) {
    return { code: 'not_a_query', message: 'not a query: the statement returns no rows' };
  }
  return undefined;
}
