/**
 * Reading SQL out of model output, the same way for gold and predicted SQL.
 *
 * Rules, in order:
 * 1. Fenced blocks (``` or ~~~, with or without a language tag). Blocks tagged with a SQL
 *    language (`sql`, `sqlite`, `postgresql`, …) win over untagged ones; untagged blocks count
 *    only when they start with a SQL keyword. When several qualify, the **last** one is taken
 *    (models that think aloud put the final query last) and `candidates` says how many there were.
 *    A one-line fence (```sql SELECT 1```) counts the same way when no block fence qualifies.
 * 2. Otherwise, plain text: the SQL starts at the first line whose first word is a statement
 *    keyword (SELECT, WITH, VALUES, INSERT, DROP, PRAGMA, …), or else right after a colon that is
 *    followed by SELECT or WITH on the same line (`Query: SELECT …`), and runs through every
 *    following `;`-separated statement that also starts with a statement keyword. It stops at
 *    prose: a segment after `;` that does not start with a keyword, a blank line followed by a
 *    line that does not start with a SQL word, or a line that reads as a sentence (capitalised
 *    first word that is no SQL word, three or more words, ending in `.`, `!`, `?` or `:`).
 *    A keyword line that reads like prose (`Select the rows you need.`) counts as SQL only when
 *    it has SQL punctuation or the next non-blank line starts with a SQL word (`SELECT a` / `FROM t`).
 * 3. Whitespace is trimmed and one trailing `;` removed. Further statements are kept, so that
 *    `SELECT 1; DROP TABLE t` reaches the syntax rung as two statements.
 *
 * Semicolons and blank lines inside string literals, quoted identifiers and comments never end
 * the SQL.
 *
 * Cost: linear in the output (every look-ahead is bounded by the line or the whitespace it then
 * skips; measured 40 ms for 400 KB of unclosed fence openers, 65 ms for `SELECT 1;\n` × 40 000,
 * both quadratic before: 77 s and 23 s). An output longer than {@link MAX_OUTPUT_CHARS} is not
 * searched at all: it is taken whole as the SQL text, which the syntax rung then fails as too
 * large (src/sql/analysis-budget.ts), so no output costs more than one length check.
 *
 * Fences are read in extract-fences.ts, the SQL words in extract-words.ts.
 */
import { findFencedSql } from './extract-fences.js';
import { CONTINUATION_KEYWORDS, STATEMENT_KEYWORDS, firstWord, startsWithStatementKeyword, stripLeadingComments } from './extract-words.js';

/** Longest output searched for SQL, in characters (10 million). */
export const MAX_OUTPUT_CHARS = 10_000_000;

/** Result of {@link extractSql}. */
export type SqlExtraction =
  | {
      readonly found: true;
      /** The SQL text, trimmed, with one trailing semicolon removed. */
      readonly sql: string;
      /** Where it came from: a fenced block, or plain text. */
      readonly source: 'fence' | 'text';
      /** How many fenced blocks qualified (0 for plain text). */
      readonly candidates: number;
    }
  | {
      readonly found: false;
      /** Always `no SQL found`, followed by what was seen, e.g. `no SQL found: output is empty`. */
      readonly reason: string;
    };

/**
 * Extracts the SQL from model output (or from a gold field).
 *
 * @param output - the raw text. Non-string input gives `found: false`.
 * @returns the SQL and where it came from, or `found: false` with a reason starting `no SQL found`.
 * @example
 * extractSql('Here you go:\n```sql\nSELECT 1;\n```\nHope it helps') // { found: true, sql: 'SELECT 1', source: 'fence', candidates: 1 }
 * extractSql('I cannot answer that.') // { found: false, reason: 'no SQL found: no fenced block and no line starts with a SQL statement keyword' }
 */
export function extractSql(output: unknown): SqlExtraction {
  if (typeof output !== 'string') {
    return { found: false, reason: `no SQL found: output is ${output === null ? 'null' : typeof output}, not text` };
  }
  if (output.length > MAX_OUTPUT_CHARS) return { found: true, sql: output, source: 'text', candidates: 0 };
  if (output.trim() === '') return { found: false, reason: 'no SQL found: output is empty' };

  const fenced = findFencedSql(output);
  if (fenced.length > 0) {
    const sql = tidy(fenced[fenced.length - 1]!);
    if (sql !== '') return { found: true, sql, source: 'fence', candidates: fenced.length };
  }

  const fromText = findSqlInText(output);
  if (fromText !== undefined && fromText !== '') {
    return { found: true, sql: fromText, source: 'text', candidates: 0 };
  }
  if (fenced.length > 0) return { found: false, reason: 'no SQL found: the last SQL fenced block is empty' };
  return {
    found: false,
    reason: 'no SQL found: no fenced block and no line starts with a SQL statement keyword',
  };
}

/** Finds SQL in unfenced text (rule 2 of the module doc). */
function findSqlInText(text: string): string | undefined {
  const lines = text.split('\n');
  // Index of the next non-blank line after each line (-1: none), computed once from the end.
  const nextNonBlank = new Array<number>(lines.length).fill(-1);
  for (let index = lines.length - 2; index >= 0; index -= 1) {
    nextNonBlank[index] = lines[index + 1]!.trim() !== '' ? index + 1 : nextNonBlank[index + 1]!;
  }
  let offset = 0;
  let start = -1;
  for (const [index, line] of lines.entries()) {
    if (startsWithStatementKeyword(line) && (looksLikeSqlLine(line) || nextLineContinues(lines, nextNonBlank[index]!))) {
      start = offset + (line.length - line.trimStart().length);
      break;
    }
    offset += line.length + 1;
  }
  if (start < 0) start = afterColon(text);
  if (start < 0) return undefined;
  return tidy(cutAtProse(text.slice(start)));
}

/** True when line `next` (the next non-blank one; -1 for none) starts with a word that continues a statement (FROM, WHERE, …). */
function nextLineContinues(lines: readonly string[], next: number): boolean {
  if (next < 0) return false;
  const word = firstWord(lines[next]!);
  return word !== '' && CONTINUATION_KEYWORDS.has(word) && !STATEMENT_KEYWORDS.has(word);
}

/** Offset of `SELECT`/`WITH` right after a colon on one line (`Query: SELECT a FROM t`), or -1. */
function afterColon(text: string): number {
  const colon = /:[ \t]*((?:select|with)\b[^\n]*)/gi;
  for (const match of text.matchAll(colon)) {
    const rest = match[1]!;
    if (looksLikeSqlLine(rest) && /\bfrom\b|[(),*=]|^select\s+\S+\s*;?\s*$/i.test(rest)) return match.index + match[0].length - rest.length;
  }
  return -1;
}

/** A line that reads as a sentence: capitalised non-SQL first word, ≥ 3 words, sentence punctuation at the end. */
function isProseLine(line: string): boolean {
  const trimmed = line.trim();
  if (CONTINUATION_KEYWORDS.has(firstWord(trimmed))) return false;
  return /^[A-Z][A-Za-z']*:?(?:\s+\S+){2,}$/.test(trimmed) && /[.!?:]$/.test(trimmed);
}

/**
 * `Select the rows you need.` is prose that starts with a keyword: a line whose keyword is
 * followed by an article or pronoun, with no SQL punctuation and no FROM, is not SQL.
 */
function looksLikeSqlLine(line: string): boolean {
  const rest = line.trim();
  const proseStart = /^[A-Za-z]+\s+(the|a|an|your|this|that|these|those|it|my|our|me|you)\b/i.test(rest);
  // Only a prose-like start needs the scan of the whole line for SQL shape.
  return !proseStart || /[=(),*]|\bfrom\b|\btable\b|\binto\b/i.test(rest);
}

/**
 * Scans from the start of the SQL, tracking strings, quoted identifiers and comments, and cuts
 * where prose begins (after a `;` or after a blank line). Linear in the text: every look-ahead
 * reads only up to the end of the current line or across whitespace it then skips.
 */
function cutAtProse(text: string): string {
  let i = 0;
  const n = text.length;
  let lastNonSpace = n - 1;
  while (lastNonSpace >= 0 && /\s/.test(text[lastNonSpace]!)) lastNonSpace -= 1;
  // Where the line holding an offset ends: binary search over the newline offsets, found once.
  let newlines: number[] | undefined;
  const lineEndAt = (offset: number): number => {
    if (!newlines) {
      newlines = [];
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) newlines.push(at);
    }
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (newlines[middle]! < offset) low = middle + 1;
      else high = middle;
    }
    return newlines[low] ?? n;
  };
  while (i < n) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      i = skipQuoted(text, i, ch);
      continue;
    }
    if (ch === '[') {
      const end = text.indexOf(']', i + 1);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (ch === ';') {
      if (i >= lastNonSpace) return text.slice(0, i + 1);
      const rest = text.slice(i + 1);
      if (!startsWithStatementKeyword(rest)) return text.slice(0, i + 1);
      const segment = stripLeadingComments(rest);
      const segmentStart = n - segment.length;
      if (!looksLikeSqlLine(text.slice(segmentStart, lineEndAt(segmentStart)))) return text.slice(0, i + 1);
      i += 1;
      continue;
    }
    if (ch === '\n') {
      const lineEnd = text.indexOf('\n', i + 1);
      if (isProseLine(text.slice(i + 1, lineEnd < 0 ? n : lineEnd))) return text.slice(0, i);
      const blank = BLANK_LINE.exec(text.slice(i, lineEnd < 0 ? n : lineEnd + 1));
      if (blank) {
        // A blank line: the SQL goes on only if the next non-blank text continues it.
        let next = i + 1;
        while (next < n && /\s/.test(text[next]!)) next += 1;
        const rest = text.slice(next);
        const word = firstWord(rest);
        const punctuationStart = /^[()*,]/.test(rest);
        if (rest !== '' && !punctuationStart && !CONTINUATION_KEYWORDS.has(word)) return text.slice(0, i);
        // The whitespace in between changes nothing: skip it.
        i = next;
        continue;
      }
    }
    i += 1;
  }
  return text;
}

/** `\n`, spaces or tabs, `\n`: the start of a blank line. */
const BLANK_LINE = /^\n[ \t]*\n/;

/** Returns the index after the closing quote (a doubled quote escapes itself). */
function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return text.length;
}

function tidy(sql: string): string {
  let out = sql.trim();
  if (out.endsWith(';')) out = out.slice(0, -1).trimEnd();
  return out;
}
