/**
 * SQLite-only constructs in SQL meant for PostgreSQL: what a model (or a dataset ported from
 * SQLite) writes out of habit, and what PostgreSQL writes instead. L1 adds them to its reason when
 * PostgreSQL (or the parser) rejects a text, so that "wrong dialect" reads as such, not as a bare
 * `function strftime(unknown, date) does not exist`.
 *
 * Read from PostgreSQL's tokens (postgres-lexer.ts), so strings, comments and quoted names never
 * match. Sources: SQLite's core, date and aggregate functions (https://www.sqlite.org/lang_corefunc.html,
 * lang_datefunc.html, lang_aggfunc.html), its `LIMIT offset, count` form and `COLLATE NOCASE`
 * (lang_select.html, datatype3.html#collation), its `[name]` and `` `name` `` quoting
 * (lang_keywords.html); PostgreSQL's equivalents from its manual (Functions and Operators).
 */
import { tokenizePostgres, type PostgresToken } from './postgres-lexer.js';

/** One SQLite-only construct found in a text. */
export interface SqliteConstruct {
  /** The construct as a person names it: `strftime(…)`, `COLLATE NOCASE`, `LIMIT offset, count`, `[name]`. */
  readonly construct: string;
  /** 0-based offset of its first token in the text. */
  readonly offset: number;
  /** What PostgreSQL writes instead. */
  readonly instead: string;
}

/** SQLite functions PostgreSQL does not have, with what it writes instead (lower-case names). */
const SQLITE_FUNCTIONS: Readonly<Record<string, string>> = {
  strftime: "to_char(x, 'YYYY-MM-DD'), date_trunc('month', x) or extract(year FROM x)",
  julianday: 'date subtraction (date1 - date2 is a number of days) or extract(epoch FROM …)',
  datetime: "a cast (x::timestamp) and interval arithmetic (x + interval '1 day')",
  unixepoch: 'extract(epoch FROM x)',
  timediff: 'subtraction of timestamps (an interval) or age(a, b)',
  ifnull: 'coalesce(x, y)',
  iif: 'CASE WHEN … THEN … ELSE … END',
  instr: 'strpos(text, part)',
  printf: "format('%s', …) or to_char(…)",
  group_concat: "string_agg(x, ',')",
  total: 'coalesce(sum(x), 0)',
  typeof: 'pg_typeof(x)',
  randomblob: "gen_random_bytes (pgcrypto) or md5(random()::text)",
  zeroblob: "decode(repeat('00', n), 'hex')",
  char: 'chr(code)',
  last_insert_rowid: 'RETURNING (or lastval())',
  changes: 'the row count the command reports',
  sqlite_version: 'version()',
  likelihood: 'the expression alone',
  likely: 'the expression alone',
  unlikely: 'the expression alone',
  glob: 'LIKE, SIMILAR TO or a regular expression (~)',
  json_extract: "the -> / ->> operators or json_extract_path_text(j, 'key')",
  json_group_array: 'json_agg(x)',
  json_group_object: 'json_object_agg(k, v)',
};

/** SQLite date functions PostgreSQL has only with one argument (a cast): `date(x, '-4 hours')`. */
const MODIFIER_FUNCTIONS: Readonly<Record<string, string>> = {
  date: "x::date, with modifiers as interval arithmetic ((x - interval '4 hours')::date)",
  time: "x::time, with modifiers as interval arithmetic (x + interval '1 hour')::time",
};

/** Words before which a `[` opens SQLite's bracket quoting rather than an array subscript. */
const BEFORE_NAME = new Set(['select', 'from', 'join', 'by', 'on', 'where', 'and', 'or', 'as', 'when', 'then', 'else', 'not', 'distinct', 'having', 'using', 'into', 'update', 'table']);

/** Where a `[` opens a name rather than a subscript: at the start, after punctuation, or after such a keyword. */
function opensName(previous: PostgresToken | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.kind === 'punctuation') return previous.value !== ')' && previous.value !== ']';
  return previous.kind === 'word' && BEFORE_NAME.has(previous.value.toLowerCase());
}

/** Arguments of the call whose `(` is `tokens[open]`: the top-level commas plus one (0 for `()`). */
function argumentCount(tokens: readonly PostgresToken[], open: number): number {
  let depth = 0;
  let commas = 0;
  for (let i = open; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind !== 'punctuation') continue;
    if (token.value === '(' || token.value === '[') depth += 1;
    else if (token.value === ')' || token.value === ']') {
      depth -= 1;
      if (depth === 0) return i === open + 1 ? 0 : commas + 1;
    } else if (token.value === ',' && depth === 1) commas += 1;
  }
  return commas + 1;
}

/**
 * The SQLite-only constructs of a text meant for PostgreSQL, in text order, one per construct kind
 * and name. Never throws.
 * @example
 * sqliteOnlyConstructs("SELECT strftime('%Y', d) FROM t LIMIT 1, 2")
 * // [{ construct: 'strftime(…)', offset: 7, instead: "to_char(x, 'YYYY-MM-DD'), …" },
 * //  { construct: 'LIMIT offset, count', offset: 32, instead: 'LIMIT count OFFSET offset' }]
 */
export function sqliteOnlyConstructs(sql: string): SqliteConstruct[] {
  const tokens = tokenizePostgres(sql);
  const found = new Map<string, SqliteConstruct>();
  const add = (construct: string, offset: number, instead: string): void => {
    if (!found.has(construct)) found.set(construct, { construct, offset, instead });
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    const word = token.kind === 'word' ? token.value.toLowerCase() : undefined;
    const qualified = previous?.kind === 'punctuation' && previous.value === '.';
    if (word !== undefined && !qualified && next?.kind === 'punctuation' && next.value === '(') {
      const instead = SQLITE_FUNCTIONS[word];
      if (instead !== undefined) add(`${word}(…)`, token.start, instead);
      const modifier = MODIFIER_FUNCTIONS[word];
      if (modifier !== undefined && argumentCount(tokens, i + 1) >= 2) add(`${word}(x, modifier)`, token.start, modifier);
    } else if (word === 'glob') {
      add('GLOB', token.start, SQLITE_FUNCTIONS['glob']!);
    } else if (word === 'collate' && next?.kind === 'word' && ['nocase', 'rtrim', 'binary'].includes(next.value.toLowerCase())) {
      add(`COLLATE ${next.value.toUpperCase()}`, token.start, 'lower(a) = lower(b) or ILIKE for a case-blind comparison, COLLATE "C" for a binary one');
    } else if (word === 'limit' && (next?.kind === 'number' || next?.kind === 'word') && tokens[i + 2]?.kind === 'punctuation' && tokens[i + 2]!.value === ',') {
      add('LIMIT offset, count', token.start, 'LIMIT count OFFSET offset');
    } else if (token.kind === 'punctuation' && token.value === '[' && next?.kind === 'word' && tokens[i + 2]?.value === ']' && opensName(previous)) {
      add('[name]', token.start, 'double quotes ("name")');
    } else if (token.kind === 'punctuation' && token.value === '`') {
      add('`name`', token.start, 'double quotes ("name")');
    } else if (token.kind === 'punctuation' && token.value === '=' && next?.kind === 'punctuation' && next.value === '=' && next.start === token.end) {
      add('==', token.start, '=');
    }
  }
  return [...found.values()].sort((a, b) => a.offset - b.offset);
}

/**
 * What a PostgreSQL error message says about a SQLite habit the constructs above cannot see
 * (integer booleans, integer date arithmetic on a timestamp); `undefined` when nothing.
 * @example postgresErrorHint('operator does not exist: boolean = integer') // 'PostgreSQL booleans compare with true / false …'
 */
export function postgresErrorHint(message: string): string | undefined {
  if (/operator does not exist: (boolean [=<>!]+ integer|integer [=<>!]+ boolean)/.test(message)) {
    return 'PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores';
  }
  if (/operator does not exist: timestamp(tz| with(out)? time zone)? [-+] integer/.test(message)) {
    return "PostgreSQL adds and subtracts intervals on timestamps (ts - interval '30 days'), not numbers of days";
  }
  if (/function (sum|avg)\(text\) does not exist/.test(message)) return 'a text column does not sum in PostgreSQL: cast it (col::numeric)';
  return undefined;
}

/**
 * One line naming the SQLite-only constructs of a text and the PostgreSQL hint of its error, or
 * `undefined` when there is neither: `SQLite-only: strftime(…) (PostgreSQL: to_char(…)); …`.
 */
export function sqliteHabitNote(sql: string, postgresMessage?: string): string | undefined {
  const parts = sqliteOnlyConstructs(sql).map((construct) => `${construct.construct} is SQLite's (PostgreSQL: ${construct.instead})`);
  const hint = postgresMessage === undefined ? undefined : postgresErrorHint(postgresMessage);
  if (hint !== undefined) parts.push(hint);
  return parts.length === 0 ? undefined : `wrong dialect? ${parts.join('; ')}`;
}
