/**
 * Reading SQLite keywords used as identifiers: sql-parser-cst rejects valid SQLite such as
 * `SELECT a AS full FROM t`, `FROM t AS left` or a column named `window` (16 keywords fail in the
 * three uses of tests/sql/sqlite-keywords.test.ts: cast cross full glob groups indexed inner left
 * like match natural outer raise regexp right window), while SQLite's `prepare` accepts them.
 *
 * The repair is driven by the parser's own error: when a parse fails, a word near the error
 * position that SQLite accepts as an identifier ({@link SQLITE_IDENTIFIER_KEYWORDS}) is quoted with
 * backticks (an identifier in every SQLite build, never a string, unlike `"…"`), and the text is
 * parsed again. A quote is kept only when it moves the error further right or removes it; the
 * repair succeeds only when the whole text parses. So a keyword is quoted only where the parser
 * could not read it as a keyword, and a text that fails for another reason fails as before, with
 * its original error.
 *
 * The tree of a repaired text has its `range` offsets mapped back to the original text, so every
 * position reported to a user points into what they wrote; identifier nodes keep the backticked
 * `text` (renders as valid SQL) and the plain `name`.
 */
import { tokenizeSqlite, type SqliteToken } from './sqlite-lexer.js';
import { SQLITE_IDENTIFIER_KEYWORDS } from './sqlite-keywords.js';

/** A keyword the repair quoted: its offsets `[start, end)` in the original text and the word. */
export interface QuotedKeyword {
  readonly start: number;
  readonly end: number;
  readonly word: string;
}

/** What one parse attempt returns to the repair: the tree, or the 0-based offset of the error. */
export type ParseAttempt<T> = { readonly ok: true; readonly tree: T } | { readonly ok: false; readonly offset: number | undefined };

/** A successful repair. */
export interface KeywordRepair<T> {
  /** The tree of the repaired text, ranges mapped back to the original text. */
  readonly tree: T;
  /** The keywords quoted, in source order. */
  readonly quoted: readonly QuotedKeyword[];
}

/** Most parse attempts one repair may make (each failed parse costs as much as a success). */
export const MAX_REPAIR_ATTEMPTS = 64;

/**
 * Tries to make `sql` parse by quoting SQLite keywords used as identifiers (rules in the module doc).
 *
 * @param sql - the original text, which failed to parse with its error at `errorOffset`.
 * @param errorOffset - 0-based offset of the first parse error in `sql`.
 * @param parse - parses a text; returns the tree or the error's 0-based offset in that text.
 * @returns the repaired tree and the quoted keywords, or `undefined` when no repair parses.
 * @example
 * repairKeywordIdentifiers('SELECT a AS full FROM t', 16, parseAttempt)?.quoted // [{ start: 12, end: 16, word: 'full' }]
 */
export function repairKeywordIdentifiers<T>(sql: string, errorOffset: number, parse: (text: string) => ParseAttempt<T>): KeywordRepair<T> | undefined {
  const tokens = tokenizeSqlite(sql);
  const isCandidate = (index: number): boolean => {
    const token = tokens[index];
    return token !== undefined && token.kind === 'word' && SQLITE_IDENTIFIER_KEYWORDS.has(token.value.toLowerCase());
  };
  if (!tokens.some((_, index) => isCandidate(index))) return undefined;

  const quoted = new Set<number>();
  let error = errorOffset;
  let attempts = 0;
  for (;;) {
    const at = tokenIndexAt(tokens, error);
    let progressed = false;
    // The parser reports the token it could not take, or the first one after a word it read too
    // far (`SELECT a AS full FROM` fails at the space after `full`): try the nearest words first.
    for (const index of [at, at - 1, at + 1, at - 2]) {
      if (!isCandidate(index) || quoted.has(index)) continue;
      if (attempts >= MAX_REPAIR_ATTEMPTS) return undefined;
      attempts += 1;
      quoted.add(index);
      const text = render(sql, tokens, quoted);
      const attempt = parse(text);
      if (attempt.ok) return { tree: remapRanges(attempt.tree, offsetMapper(tokens, quoted)), quoted: quotedKeywords(tokens, quoted) };
      const moved = attempt.offset === undefined ? undefined : offsetMapper(tokens, quoted)(attempt.offset);
      if (moved !== undefined && moved > error) {
        error = moved;
        progressed = true;
        break;
      }
      quoted.delete(index);
    }
    if (!progressed) return undefined;
  }
}

/** Index of the first token that ends after `offset` (the token at or after it). */
function tokenIndexAt(tokens: readonly SqliteToken[], offset: number): number {
  const index = tokens.findIndex((token) => token.end > offset);
  return index < 0 ? tokens.length : index;
}

function render(sql: string, tokens: readonly SqliteToken[], quoted: ReadonlySet<number>): string {
  let out = '';
  let last = 0;
  for (const index of [...quoted].sort((a, b) => a - b)) {
    const token = tokens[index]!;
    out += `${sql.slice(last, token.start)}\`${token.value}\``;
    last = token.end;
  }
  return out + sql.slice(last);
}

function quotedKeywords(tokens: readonly SqliteToken[], quoted: ReadonlySet<number>): QuotedKeyword[] {
  return [...quoted].sort((a, b) => a - b).map((index) => {
    const token = tokens[index]!;
    return { start: token.start, end: token.end, word: token.value };
  });
}

/**
 * Maps an offset in the repaired text to the original text. Each quoted word of length L at
 * original `[a, b)` occupies `[a + s, a + s + L + 2)` in the repaired text (s = 2 per earlier
 * quote): its opening backtick maps to `a`, its letters to themselves, its closing backtick to
 * `b − 1` (so that an exclusive end one past it maps to `b`).
 */
function offsetMapper(tokens: readonly SqliteToken[], quoted: ReadonlySet<number>): (offset: number) => number {
  const spans = [...quoted].sort((a, b) => a - b).map((index) => tokens[index]!);
  return (offset) => {
    let shift = 0;
    for (const { start, end } of spans) {
      const length = end - start;
      if (offset < start + shift) return offset - shift;
      if (offset === start + shift) return start;
      if (offset <= start + shift + length) return offset - shift - 1;
      if (offset === start + shift + length + 1) return end - 1;
      shift += 2;
    }
    return offset - shift;
  };
}

/** A deep copy of a sql-parser-cst tree with every `range: [start, end)` mapped by `map`. */
function remapRanges<T>(tree: T, map: (offset: number) => number): T {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (key === 'range' && Array.isArray(field) && field.length === 2 && typeof field[0] === 'number' && typeof field[1] === 'number') {
        const start = map(field[0]);
        const end = field[1] > field[0] ? map(field[1] - 1) + 1 : start;
        out[key] = [start, Math.max(start, end)];
      } else {
        out[key] = visit(field);
      }
    }
    return out;
  };
  return visit(tree) as T;
}
