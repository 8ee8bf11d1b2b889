/**
 * A small PostgreSQL tokenizer: enough to see statement boundaries, the first keyword, `COPY …
 * FROM STDIN` blocks and `ORDER BY` keywords, without a server. Tokens have the shape of
 * sqlite-lexer.ts's, so its `splitStatements` serves both.
 *
 * Token rules follow PostgreSQL's scanner (src/backend/parser/scan.l, "Lexical Structure" in the
 * manual): `'…'` strings (`''` escapes; with an `E` prefix, backslash escapes too), `B'…'`, `X'…'`,
 * `N'…'` and `U&'…'` strings, dollar-quoted strings (`$$…$$`, `$tag$…$tag$`), `"…"` identifiers
 * (`""` escapes; `U&"…"` too), `--` comments and `/* … *\/` comments, which nest; positional
 * parameters (`$1`) are words, as are identifiers (letters, digits, `_`, `$`, non-ASCII).
 * Unterminated quotes and comments run to the end of the text (the server then reports them).
 */
import { splitStatements, type SqliteToken } from './sqlite-lexer.js';

export { splitStatements };

/** One PostgreSQL token (kinds as in sqlite-lexer.ts: `word`, `string`, `double_quoted`, `number`, `semicolon`, `punctuation`). */
export type PostgresToken = SqliteToken;

function isWordStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code >= 0x80;
}

function isWordCode(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57) || code === 36;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Index one past a `'…'` string starting at `start` (backslash escapes when `backslashes`). */
function stringEnd(sql: string, start: number, backslashes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (backslashes && ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === "'") {
      if (sql[i + 1] === "'") {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}

/** Index one past a nesting block comment starting at `start`. */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth += 1;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  return sql.length;
}

const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/**
 * Splits PostgreSQL text into tokens, skipping whitespace and comments. Never throws.
 * @param from - offset to start at (default 0).
 * @param untilSemicolon - stop after the first `;` token (one statement at a time, for scripts
 *   whose `COPY … FROM STDIN` data must not be read as SQL).
 * @example tokenizePostgres("SELECT E'it\\'s', $$a;b$$ -- c\n;").map((t) => t.kind) // ['word', 'string', 'string', 'semicolon']
 */
export function tokenizePostgres(sql: string, from = 0, untilSemicolon = false): PostgresToken[] {
  const tokens: PostgresToken[] = [];
  const n = sql.length;
  let i = from;
  while (i < n) {
    const ch = sql[i]!;
    const code = sql.charCodeAt(i);
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\uFEFF') {
      i += 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline < 0 ? n : newline + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      i = blockCommentEnd(sql, i);
    } else if (ch === "'") {
      const end = stringEnd(sql, i, false);
      tokens.push({ kind: 'string', start: i, end, value: sql.slice(i + 1, Math.max(i + 1, end - 1)).replaceAll("''", "'") });
      i = end;
    } else if ((ch === 'E' || ch === 'e' || ch === 'B' || ch === 'b' || ch === 'X' || ch === 'x' || ch === 'N' || ch === 'n') && sql[i + 1] === "'") {
      const end = stringEnd(sql, i + 1, ch === 'E' || ch === 'e');
      tokens.push({ kind: 'string', start: i, end, value: sql.slice(i + 2, Math.max(i + 2, end - 1)) });
      i = end;
    } else if ((ch === 'U' || ch === 'u') && sql[i + 1] === '&' && (sql[i + 2] === "'" || sql[i + 2] === '"')) {
      const quote = sql[i + 2]!;
      const end = quote === "'" ? stringEnd(sql, i + 2, false) : quotedEnd(sql, i + 2);
      tokens.push({ kind: quote === "'" ? 'string' : 'double_quoted', start: i, end, value: sql.slice(i + 3, Math.max(i + 3, end - 1)) });
      i = end;
    } else if (ch === '"') {
      const end = quotedEnd(sql, i);
      tokens.push({ kind: 'double_quoted', start: i, end, value: sql.slice(i + 1, Math.max(i + 1, end - 1)).replaceAll('""', '"') });
      i = end;
    } else if (ch === '$' && !isDigit(sql.charCodeAt(i + 1))) {
      DOLLAR_TAG.lastIndex = i;
      const tag = DOLLAR_TAG.exec(sql)?.[0];
      if (tag === undefined) {
        tokens.push({ kind: 'punctuation', start: i, end: i + 1, value: ch });
        i += 1;
        continue;
      }
      const close = sql.indexOf(tag, i + tag.length);
      const end = close < 0 ? n : close + tag.length;
      tokens.push({ kind: 'string', start: i, end, value: sql.slice(i + tag.length, close < 0 ? n : close) });
      i = end;
    } else if (isDigit(code) || (ch === '.' && isDigit(sql.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < n && (isWordCode(sql.charCodeAt(j)) || sql[j] === '.')) {
        if ((sql[j] === 'e' || sql[j] === 'E') && (sql[j + 1] === '+' || sql[j + 1] === '-')) j += 1;
        // `1..2` is not a number followed by `.2`; a second point ends the number.
        if (sql[j] === '.' && sql[j + 1] === '.') break;
        j += 1;
      }
      tokens.push({ kind: 'number', start: i, end: j, value: sql.slice(i, j) });
      i = j;
    } else if (isWordStart(code) || ch === '$') {
      let j = i + 1;
      while (j < n && isWordCode(sql.charCodeAt(j))) j += 1;
      tokens.push({ kind: 'word', start: i, end: j, value: sql.slice(i, j) });
      i = j;
    } else {
      tokens.push({ kind: ch === ';' ? 'semicolon' : 'punctuation', start: i, end: i + 1, value: ch });
      i += 1;
      if (untilSemicolon && ch === ';') return tokens;
    }
  }
  return tokens;
}

/** Index one past a `"…"` identifier starting at `start`. */
function quotedEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === '"') {
      if (sql[i + 1] === '"') {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}
