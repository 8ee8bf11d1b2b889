/**
 * The text handed to sql-parser-cst, so that it reads what SQLite reads. The parser rejects or
 * misreads some input SQLite accepts (measured with sql-parser-cst 0.42.1 and SQLite 3.53.2):
 * - a bare CR, a form feed or a byte-order mark between tokens (SQLite: whitespace; tokenize.c
 *   `CC_SPACE`, `CC_BOM`); the parser also ends a `--` comment at a bare CR, SQLite only at LF;
 * - an unterminated `/*` comment at the end of the text (SQLite: a comment to the end);
 * - in SQLite mode, a bare word with a non-ASCII character after its first one (`xéy`, or a lone
 *   surrogate): SQLite reads one identifier; the parser stops at the character, so that
 *   `SELECT xéy FROM t` silently became `x AS éy`, and `SELECT 1 AS xéy` a syntax error.
 *
 * {@link parserText} rewrites only those characters, one UTF-16 unit for one (the appended `*\/`
 * goes after the end), so every source range the parser reports still points into the original
 * text. Characters inside string literals, quoted identifiers and comments are never changed,
 * except CR / FF / BOM inside comments, which are inert there. {@link restoreIdentifiers} puts
 * the original spelling back into the identifier nodes of the parsed tree.
 */
import { tokenizeSqlite, type SqliteToken } from './sqlite-lexer.js';

/** The rewritten text, and the offsets of word characters that were replaced. */
export interface ParserText {
  /** What the parser reads: same length as the source, plus `*\/` when a comment was left open. */
  readonly text: string;
  /** True when some identifier characters were replaced (then call {@link restoreIdentifiers}). */
  readonly replacedWordCharacters: boolean;
  /**
   * SQLite rules only: the first parenthesis that can never be matched (a `)` with no `(` open,
   * or the first `(` left open at the end), as a 0-based offset and a message. Such text cannot
   * parse, and the parser backtracks exponentially on open parentheses (26: 22 s), so the caller
   * reports this without parsing.
   */
  readonly unbalanced?: { readonly offset: number; readonly message: string };
}

/** Stand-in for a non-ASCII character inside a bare word: a digit, so no keyword can form. */
const WORD_STAND_IN = '0';

/**
 * Prepares SQL text for the parser (see the module doc).
 *
 * @param sql - the SQL text as the model or the dataset wrote it.
 * @param sqliteRules - true for the SQLite dialect (unterminated trailing comment, non-ASCII
 *   characters in bare words); false for the other sql-parser-cst dialects.
 * @returns the text to parse; identical to `sql` when nothing needed rewriting.
 * @example
 * parserText('SELECT 1 AS x\u00e9y /* note', true).text // 'SELECT 1 AS x0y /* note*\/'
 */
export function parserText(sql: string, sqliteRules: boolean): ParserText {
  const tokens = sqliteRules || /[\r\f\uFEFF\u0080-\uFFFF]|\/\*/.test(sql) ? tokenizeSqlite(sql) : [];
  const unbalanced = sqliteRules ? unbalancedParenthesis(tokens) : undefined;
  const extra = unbalanced ? { unbalanced } : {};
  if (!/[\r\f\uFEFF\u0080-\uFFFF]|\/\*/.test(sql)) return { text: sql, replacedWordCharacters: false, ...extra };
  const out = sql.split('');
  let replacedWordCharacters = false;
  let gapStart = 0;
  const cleanGap = (from: number, to: number): void => {
    for (let i = from; i < to; i += 1) {
      const ch = sql[i];
      if (ch === '\f' || ch === '\uFEFF' || (ch === '\r' && sql[i + 1] !== '\n')) out[i] = ' ';
    }
  };
  for (const token of tokens) {
    cleanGap(gapStart, token.start);
    if (sqliteRules && token.kind === 'word') {
      for (let i = token.start + 1; i < token.end; i += 1) {
        if (sql.charCodeAt(i) >= 0x80) {
          out[i] = WORD_STAND_IN;
          replacedWordCharacters = true;
        }
      }
    }
    gapStart = token.end;
  }
  cleanGap(gapStart, sql.length);
  let text = out.join('');
  if (sqliteRules && endsInOpenBlockComment(sql, gapStart)) text += '*/';
  return { text, replacedWordCharacters, ...extra };
}

/** The first parenthesis that can never be matched, by the SQLite tokens (strings and comments skipped). */
function unbalancedParenthesis(tokens: readonly SqliteToken[]): { offset: number; message: string } | undefined {
  const open: number[] = [];
  for (const token of tokens) {
    if (token.kind !== 'punctuation') continue;
    if (token.value === '(') open.push(token.start);
    else if (token.value === ')' && open.pop() === undefined) return { offset: token.start, message: 'Syntax Error: Unexpected ")": no "(" is open' };
  }
  const first = open[0];
  return first === undefined ? undefined : { offset: first, message: `Syntax Error: ${open.length} "(" never closed; the first opens here` };
}

/** True when the text after the last token ends inside a `/*` comment that never closes. */
function endsInOpenBlockComment(sql: string, from: number): boolean {
  let i = from;
  while (i < sql.length) {
    if (sql.startsWith('--', i)) {
      const newline = sql.indexOf('\n', i);
      if (newline < 0) return false;
      i = newline + 1;
    } else if (sql.startsWith('/*', i)) {
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) return true;
      i = close + 2;
    } else {
      i += 1;
    }
  }
  return false;
}

/**
 * Puts the original spelling back into every identifier node whose source range held a replaced
 * character (bare identifiers: `text` and `name` are the source text). Walks the tree
 * iteratively; changes the freshly parsed tree in place, before anyone else sees it.
 *
 * @param root - the parsed tree (nodes with `type`, `range`).
 * @param sql - the original SQL text.
 */
export function restoreIdentifiers(root: object, sql: string): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    if (node['type'] === 'identifier' && Array.isArray(node['range'])) {
      const [start, end] = node['range'] as [number, number];
      const original = sql.slice(start, end);
      if (original !== node['text'] && /[^\x00-\x7f]/.test(original) && !/^["`[]/.test(original)) {
        node['text'] = original;
        node['name'] = original;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range' || value === null || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (item !== null && typeof item === 'object') stack.push(item as object);
      } else {
        stack.push(value as object);
      }
    }
  }
}
