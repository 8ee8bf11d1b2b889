/**
 * Fenced blocks in model output (rule 1 of extract.ts): block fences (``` or ~~~, with or without
 * a language tag) and one-line fences (```sql SELECT 1```), read in linear time.
 */
import { STATEMENT_KEYWORDS, startsWithStatementKeyword } from './extract-words.js';

/** Fence tags that name a SQL language (lower-case). */
const SQL_FENCE_TAGS = new Set([
  'sql', 'sqlite', 'sqlite3', 'postgres', 'postgresql', 'psql', 'pgsql', 'plpgsql', 'mysql',
  'mariadb', 'bigquery', 'snowflake', 'tsql', 'mssql', 'plsql', 'duckdb', 'hive', 'sparksql',
  'trino', 'presto',
]);

/** One line of the output: its text (without `\n`) and where it starts. */
interface Line {
  readonly text: string;
  readonly start: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline < 0) {
      lines.push({ text: text.slice(start), start });
      return lines;
    }
    lines.push({ text: text.slice(start, newline), start });
    start = newline + 1;
  }
}

const FENCE_OPENER = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)/;
const FENCE_CLOSER = /^[ \t]*(`{3,}|~{3,})[ \t]*\r?$/;

/**
 * Bodies of fenced blocks that qualify as SQL, in document order (tagged ones when any exist).
 * Linear in the text: each line is read once as a possible opener and once as a possible closer
 * (a regular expression over the whole text tried every opener against the rest: 77 s for
 * 400 KB of unclosed openers).
 *
 * A block opens at a line starting with a run of 3 or more backticks or tildes (the marker, then
 * an optional tag) and closes at the next line holding exactly that marker; an opener with no
 * closer opens nothing, and the lines after it are read again.
 */
export function findFencedSql(text: string): string[] {
  const lines = splitLines(text);
  const closers = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const marker = FENCE_CLOSER.exec(line.text)?.[1];
    if (marker === undefined) return;
    const list = closers.get(marker) ?? [];
    list.push(index);
    closers.set(marker, list);
  });
  const nextCloser = new Map<string, number>();
  const tagged: string[] = [];
  const untagged: string[] = [];
  let firstOpener: { readonly index: number; readonly tag: string } | undefined;
  for (let index = 0; index < lines.length - 1; ) {
    const opener = FENCE_OPENER.exec(lines[index]!.text);
    if (!opener) {
      index += 1;
      continue;
    }
    const marker = opener[1]!;
    const tag = (opener[2] ?? '').toLowerCase();
    firstOpener ??= { index, tag };
    const list = closers.get(marker) ?? [];
    let at = nextCloser.get(marker) ?? 0;
    while (at < list.length && list[at]! <= index) at += 1;
    nextCloser.set(marker, at);
    const close = list[at];
    if (close === undefined) {
      index += 1;
      continue;
    }
    const body = text.slice(lines[index + 1]!.start, lines[close]!.start);
    if (SQL_FENCE_TAGS.has(tag)) tagged.push(body);
    else if (tag === '' && startsWithStatementKeyword(body)) untagged.push(body);
    index = close + 1;
  }
  // An unterminated final fence (model output cut off) still counts when tagged as SQL.
  if (tagged.length === 0 && untagged.length === 0 && firstOpener && SQL_FENCE_TAGS.has(firstOpener.tag)) {
    tagged.push(text.slice(lines[firstOpener.index + 1]!.start));
  }
  if (tagged.length === 0 && untagged.length === 0) {
    // One-line fences: ```sql SELECT 1``` (the tag may be missing: ```SELECT 1```).
    for (const line of lines) {
      for (const inline of findInlineFences(line.text)) {
        if (SQL_FENCE_TAGS.has(inline.tag.toLowerCase())) tagged.push(inline.body);
        else if (inline.tag === '' && startsWithStatementKeyword(inline.body)) untagged.push(inline.body);
        else if (STATEMENT_KEYWORDS.has(inline.tag.toLowerCase())) untagged.push(`${inline.tag} ${inline.body}`);
      }
    }
  }
  return tagged.length > 0 ? tagged : untagged;
}

const INLINE_TAG = /([A-Za-z][\w+-]*)?[ \t]+/y;

/**
 * One-line fences in one line, left to right: a run of k ≥ 3 backticks, an optional tag,
 * whitespace, the body, and the next run of at least k backticks on the line (k as large as
 * such a closing run allows). Linear in the line.
 */
function findInlineFences(line: string): { tag: string; body: string }[] {
  const runs: { start: number; length: number }[] = [];
  for (let i = 0; i < line.length; ) {
    if (line[i] !== '`') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < line.length && line[j] === '`') j += 1;
    runs.push({ start: i, length: j - i });
    i = j;
  }
  if (runs.length < 2) return [];
  // Longest run after each run, to reject an opener with no closer at once.
  const longestAfter = new Array<number>(runs.length).fill(0);
  for (let r = runs.length - 2; r >= 0; r -= 1) longestAfter[r] = Math.max(runs[r + 1]!.length, longestAfter[r + 1]!);
  const found: { tag: string; body: string }[] = [];
  let r = 0;
  let openerStart = runs[0]!.start;
  while (r < runs.length) {
    const run = runs[r]!;
    const length = run.start + run.length - openerStart;
    const width = Math.min(length, longestAfter[r]!);
    const afterRun = run.start + run.length;
    INLINE_TAG.lastIndex = afterRun;
    const tag = width >= 3 ? INLINE_TAG.exec(line) : null;
    if (!tag) {
      r += 1;
      openerStart = runs[r]?.start ?? 0;
      continue;
    }
    let close = r + 1;
    while (runs[close]!.length < width) close += 1;
    const closer = runs[close]!;
    const bodyStart = afterRun + tag[0].length;
    found.push({ tag: tag[1] ?? '', body: line.slice(bodyStart, Math.max(bodyStart, closer.start)).replace(/[ \t]+$/, '') });
    // The closing run's backticks beyond the k it used may open the next fence.
    r = close;
    openerStart = closer.start + width;
    if (openerStart >= closer.start + closer.length) {
      r += 1;
      openerStart = runs[r]?.start ?? 0;
    }
  }
  return found;
}
