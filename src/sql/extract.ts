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
 */

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

const STATEMENT_KEYWORDS = new Set([
  'select', 'with', 'values', 'insert', 'update', 'delete', 'replace', 'merge', 'upsert',
  'create', 'drop', 'alter', 'truncate', 'pragma', 'attach', 'detach', 'vacuum', 'reindex',
  'analyze', 'explain', 'begin', 'commit', 'end', 'rollback', 'savepoint', 'release', 'set',
  'copy', 'grant', 'revoke', 'call', 'execute', 'exec', 'do', 'show', 'describe', 'use',
  'lock', 'unlock', 'load', 'declare', 'prepare', 'table',
]);

/** Words that may start a continuation line of a statement after a blank line. */
const CONTINUATION_KEYWORDS = new Set([
  ...STATEMENT_KEYWORDS,
  'from', 'where', 'join', 'inner', 'left', 'right', 'full', 'cross', 'natural', 'on', 'using',
  'and', 'or', 'not', 'group', 'order', 'having', 'limit', 'offset', 'union', 'intersect',
  'except', 'window', 'as', 'case', 'when', 'then', 'else', 'returning', 'into', 'qualify',
  'fetch', 'for', 'distinct', 'all', 'partition', 'over', 'is', 'in', 'between', 'like',
]);

const SQL_FENCE_TAGS = new Set([
  'sql', 'sqlite', 'sqlite3', 'postgres', 'postgresql', 'psql', 'pgsql', 'plpgsql', 'mysql',
  'mariadb', 'bigquery', 'snowflake', 'tsql', 'mssql', 'plsql', 'duckdb', 'hive', 'sparksql',
  'trino', 'presto',
]);

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

/** Bodies of fenced blocks that qualify as SQL, in document order (tagged ones when any exist). */
function findFencedSql(text: string): string[] {
  const fence = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
  const tagged: string[] = [];
  const untagged: string[] = [];
  for (const match of text.matchAll(fence)) {
    const tag = (match[2] ?? '').toLowerCase();
    const body = match[3] ?? '';
    if (SQL_FENCE_TAGS.has(tag)) tagged.push(body);
    else if (tag === '' && startsWithStatementKeyword(body)) untagged.push(body);
  }
  // An unterminated final fence (model output cut off) still counts when tagged as SQL.
  if (tagged.length === 0 && untagged.length === 0) {
    const open = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*)$/m.exec(text);
    if (open && SQL_FENCE_TAGS.has((open[2] ?? '').toLowerCase())) tagged.push(open[3] ?? '');
  }
  if (tagged.length === 0 && untagged.length === 0) {
    // One-line fences: ```sql SELECT 1``` (the tag may be missing: ```SELECT 1```).
    const inline = /(`{3,})([A-Za-z][\w+-]*)?[ \t]+([^\n]*?)[ \t]*\1/g;
    for (const match of text.matchAll(inline)) {
      const tag = (match[2] ?? '').toLowerCase();
      const body = match[3] ?? '';
      if (SQL_FENCE_TAGS.has(tag)) tagged.push(body);
      else if (tag === '' && startsWithStatementKeyword(body)) untagged.push(body);
      else if (STATEMENT_KEYWORDS.has(tag)) untagged.push(`${match[2]} ${body}`);
    }
  }
  return tagged.length > 0 ? tagged : untagged;
}

function firstWord(text: string): string {
  const match = /^[\s(]*([A-Za-z_]+)/.exec(stripLeadingComments(text));
  return (match?.[1] ?? '').toLowerCase();
}

function startsWithStatementKeyword(text: string): boolean {
  return STATEMENT_KEYWORDS.has(firstWord(text));
}

function stripLeadingComments(text: string): string {
  let rest = text;
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith('--')) {
      const newline = trimmed.indexOf('\n');
      rest = newline < 0 ? '' : trimmed.slice(newline + 1);
    } else if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/');
      rest = end < 0 ? '' : trimmed.slice(end + 2);
    } else {
      return trimmed;
    }
  }
}

/** Finds SQL in unfenced text (rule 2 of the module doc). */
function findSqlInText(text: string): string | undefined {
  const lines = text.split('\n');
  let offset = 0;
  let start = -1;
  for (const [index, line] of lines.entries()) {
    if (startsWithStatementKeyword(line) && (looksLikeSqlLine(line) || nextLineContinues(lines, index))) {
      start = offset + (line.length - line.trimStart().length);
      break;
    }
    offset += line.length + 1;
  }
  if (start < 0) start = afterColon(text);
  if (start < 0) return undefined;
  return tidy(cutAtProse(text.slice(start)));
}

/** True when the next non-blank line starts with a word that continues a statement (FROM, WHERE, …). */
function nextLineContinues(lines: readonly string[], index: number): boolean {
  const next = lines.slice(index + 1).find((line) => line.trim() !== '');
  if (next === undefined) return false;
  const word = firstWord(next);
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
  const sqlShape = /[=(),*]|\bfrom\b|\btable\b|\binto\b/i.test(rest);
  return !proseStart || sqlShape;
}

/**
 * Scans from the start of the SQL, tracking strings, quoted identifiers and comments, and cuts
 * where prose begins (after a `;` or after a blank line).
 */
function cutAtProse(text: string): string {
  let i = 0;
  const n = text.length;
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
      const rest = text.slice(i + 1);
      if (rest.trim() === '' || !startsWithStatementKeyword(rest) || !looksLikeSqlLine(stripLeadingComments(rest).split('\n')[0] ?? '')) {
        return text.slice(0, i + 1);
      }
      i += 1;
      continue;
    }
    if (ch === '\n') {
      const lineEnd = text.indexOf('\n', i + 1);
      if (isProseLine(text.slice(i + 1, lineEnd < 0 ? n : lineEnd))) return text.slice(0, i);
      const blank = /^\n[ \t]*\n\s*/.exec(text.slice(i));
      if (blank) {
        const next = text.slice(i + blank[0].length);
        const word = firstWord(next);
        const punctuationStart = /^[()*,]/.test(next);
        if (next !== '' && !punctuationStart && !CONTINUATION_KEYWORDS.has(word)) return text.slice(0, i);
      }
    }
    i += 1;
  }
  return text;
}

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
