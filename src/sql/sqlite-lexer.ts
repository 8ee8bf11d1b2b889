/**
 * A small SQLite tokenizer: enough to see statement boundaries, the first keyword, and
 * double-quoted tokens, without ever asking SQLite to compile the text.
 *
 * Why not ask SQLite? Compiling is not free of side effects: `prepare('PRAGMA query_only=0')`
 * already switches the guard off (measured with better-sqlite3 12 / SQLite 3.53.2: flag pragmas
 * act during code generation, see pragma.c `PragTyp_FLAG`). So the query gate looks at tokens first.
 *
 * Token rules follow https://sqlite.org/lang_keywords.html and tokenize.c: `'…'` strings (`''`
 * escapes), `"…"`, `` `…` `` and `[…]` identifiers, `--` and `/* … *\/` comments (an unterminated
 * block comment runs to the end), words (letters, digits, `_`, `$`, non-ASCII), numbers, and
 * single-character punctuation. A UTF-8 byte-order mark (U+FEFF) where a token may start is
 * whitespace, as in tokenize.c (`CC_BOM`); inside a word it is a word character.
 */

/** The kind of a {@link SqliteToken}. */
export type SqliteTokenKind =
  /** A bare word: keyword or identifier (`SELECT`, `t1`). */
  | 'word'
  /** A `'…'` string literal. */
  | 'string'
  /** A `"…"` token: an identifier, or (legacy SQLite) a string when it names no column. */
  | 'double_quoted'
  /** A `` `…` `` or `[…]` identifier. */
  | 'quoted_identifier'
  /** A numeric literal. */
  | 'number'
  /** `;` */
  | 'semicolon'
  /** Any other character (`(`, `,`, `.`, `=`, …); multi-character operators come as several tokens. */
  | 'punctuation';

/** One token. Comments and whitespace are skipped, never returned. */
export interface SqliteToken {
  readonly kind: SqliteTokenKind;
  /** 0-based UTF-16 offset of the first character in the source. */
  readonly start: number;
  /** 0-based offset one past the last character (`source.slice(start, end)` is the raw token). */
  readonly end: number;
  /**
   * The token's value: the word as written, or the quoted token's content with its quotes
   * removed and doubled quotes undone (`"a""b"` → `a"b`).
   */
  readonly value: string;
}

/** `[A-Za-z0-9_$]` or any code unit from U+0080 (SQLite's identifier characters, tokenize.c `IdChar`). */
function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code >= 0x80;
}

/** `[0-9]`. */
function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** What may follow the first character of a number: `[0-9A-Za-z_.]`. */
function isNumberCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 46;
}

/**
 * Splits SQLite SQL text into tokens, skipping whitespace and comments. Never throws: an
 * unterminated quote runs to the end of the text (SQLite's prepare then reports it).
 *
 * @param sql - the SQL text.
 * @returns tokens in source order.
 * @example
 * tokenizeSqlite(`SELECT "a" -- c\n;`).map((t) => t.kind) // ['word', 'double_quoted', 'semicolon']
 */
export function tokenizeSqlite(sql: string): SqliteToken[] {
  const tokens: SqliteToken[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const ch = sql[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\uFEFF') {
      i += 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline < 0 ? n : newline + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      const { end, terminated } = closingQuote(sql, i, ch);
      const raw = sql.slice(i + 1, terminated ? end - 1 : end);
      const kind: SqliteTokenKind = ch === "'" ? 'string' : ch === '"' ? 'double_quoted' : 'quoted_identifier';
      tokens.push({ kind, start: i, end, value: raw.includes(ch + ch) ? raw.split(ch + ch).join(ch) : raw });
      i = end;
    } else if (ch === '[') {
      const close = sql.indexOf(']', i + 1);
      const end = close < 0 ? n : close + 1;
      tokens.push({ kind: 'quoted_identifier', start: i, end, value: sql.slice(i + 1, close < 0 ? n : close) });
      i = end;
    } else if (isDigitCode(sql.charCodeAt(i)) || (ch === '.' && isDigitCode(sql.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < n && isNumberCode(sql.charCodeAt(j))) {
        // An exponent sign belongs to the number: 1e-5.
        if ((sql[j] === 'e' || sql[j] === 'E') && (sql[j + 1] === '+' || sql[j + 1] === '-')) j += 1;
        j += 1;
      }
      tokens.push({ kind: 'number', start: i, end: j, value: sql.slice(i, j) });
      i = j;
    } else if (isWordCode(sql.charCodeAt(i))) {
      let j = i + 1;
      while (j < n && isWordCode(sql.charCodeAt(j))) j += 1;
      tokens.push({ kind: 'word', start: i, end: j, value: sql.slice(i, j) });
      i = j;
    } else {
      tokens.push({ kind: ch === ';' ? 'semicolon' : 'punctuation', start: i, end: i + 1, value: ch });
      i += 1;
    }
  }
  return tokens;
}

/** Index one past the closing quote (a doubled quote escapes itself); `sql.length` when unterminated. */
function closingQuote(sql: string, start: number, quote: string): { end: number; terminated: boolean } {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return { end: i + 1, terminated: true };
    }
    i += 1;
  }
  return { end: sql.length, terminated: false };
}

/**
 * Groups tokens into statements at top-level `;` tokens, dropping empty statements (so a trailing
 * `;`, or `;;`, adds none).
 *
 * @param tokens - output of {@link tokenizeSqlite}.
 * @returns one token list per non-empty statement.
 */
export function splitStatements(tokens: readonly SqliteToken[]): SqliteToken[][] {
  const statements: SqliteToken[][] = [];
  let current: SqliteToken[] = [];
  for (const token of tokens) {
    if (token.kind === 'semicolon') {
      if (current.length > 0) statements.push(current);
      current = [];
    } else {
      current.push(token);
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}
