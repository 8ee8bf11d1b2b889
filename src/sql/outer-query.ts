/**
 * The outermost query of a SQLite SELECT, as far as row order needs it: the first member's select
 * list (each item's source range, alias and whether it is a `*`), `DISTINCT`, the trailing
 * `ORDER BY` terms and the `LIMIT` / `OFFSET`. All positions are 0-based UTF-16 offsets into the
 * SQL text (`sql.slice(start, end)` is the text as written).
 *
 * Two readers give this shape: the parse tree (compare/outer-query-tree.ts, sql-parser-cst) and
 * {@link readOuterQueryFromTokens}, which reads the SQLite tokens (sqlite-lexer.ts) of the common
 * shapes and gives up (`undefined`) on anything whose tree it cannot predict exactly. The token
 * reader costs microseconds; the tree costs loading the parser (about 180 ms of CPU per process)
 * and a round trip to the parser thread.
 */
import { sqlSizeOverBudget } from './analysis-budget.js';
import { isSqliteKeyword } from './sqlite-keywords.js';
import { tokenizeSqlite, type SqliteToken } from './sqlite-lexer.js';

/** A `[start, end)` source range. */
export type SourceRange = readonly [number, number];

/** One item of the select list. */
export interface OuterSelectItem {
  /** The item without its alias (for `a AS x`, the range of `a`). */
  readonly expr: SourceRange;
  /** The alias's name as the tree reads it (quotes removed, case kept), when the item has one. */
  readonly alias?: string;
  /** `*` or `t.*`. */
  readonly star: boolean;
}

/** One `ORDER BY` term. */
export interface OuterSortKey {
  /** The sort expression (with any `COLLATE`, without `ASC` / `DESC` / `NULLS …`). */
  readonly expr: SourceRange;
  /** The value of an integer literal key (`ORDER BY 2`). */
  readonly ordinal?: number;
  /** The name of a key that is a lone identifier (`ORDER BY name`, `"name"`), quotes removed. */
  readonly identifier?: string;
  readonly descending: boolean;
  readonly nulls: 'first' | 'last' | null;
}

/**
 * A LIMIT / OFFSET operand: `absent` when not written, the value of an integer literal, or `other`
 * (any other expression).
 */
export type LimitOperand = 'absent' | 'other' | number;

/** The outermost LIMIT clause. */
export interface OuterLimit {
  /** From `LIMIT` to the end of its last operand. */
  readonly range: SourceRange;
  readonly count: LimitOperand;
  readonly offset: LimitOperand;
}

/** The first member's select list (`SELECT [DISTINCT] items`). */
export interface OuterSelectList {
  readonly distinct: boolean;
  readonly items: readonly OuterSelectItem[];
  /** End offset of the last item. */
  readonly end: number;
}

/** The outermost query of one SELECT statement (compound or not). */
export interface OuterQuery {
  /** True for `UNION` / `INTERSECT` / `EXCEPT`. */
  readonly compound: boolean;
  /** The left-most member's select list; absent when that member has none (e.g. `VALUES`). */
  readonly selectList?: OuterSelectList;
  /** The trailing ORDER BY terms (of the whole compound), or `null` without ORDER BY. */
  readonly orderBy: readonly OuterSortKey[] | null;
  /** The trailing LIMIT, or `null`. */
  readonly limit: OuterLimit | null;
}

/** Words that end the select list at parenthesis depth 0. */
const SELECT_LIST_END = new Set(['from', 'where', 'group', 'having', 'window', 'order', 'limit']);
const COMPOUND_OPERATORS = new Set(['union', 'intersect', 'except']);
/** Keywords after which a word is an operand, not an implicit alias (`x IS y`, `a COLLATE nocase`). */
const OPERAND_BEFORE = new Set(['and', 'or', 'not', 'is', 'in', 'like', 'glob', 'regexp', 'match', 'between', 'collate', 'escape', 'case', 'when', 'then', 'else']);
/** Keywords that end an expression: a word after them is an implicit alias (`CASE … END x`). */
const EXPRESSION_END = new Set(['end', 'null']);
/** Keywords an item may end with (no alias): `x IS NULL`, `CASE … END`, `x NOTNULL`. */
const ITEM_END_KEYWORDS = new Set(['end', 'null', 'notnull', 'isnull']);
/** Words sql-parser-cst reads as literals although SQLite does not list them as keywords. */
const LITERAL_WORDS = new Set(['true', 'false']);

/**
 * Reads the outermost query of `sql` from its SQLite tokens.
 *
 * Precondition: SQLite accepted the statement (a gold that ran); the reader checks the structure
 * it reads, not the rest of the grammar. It returns the shape the parse tree gives
 * (compare/outer-query-tree.ts) or `undefined` when it cannot be sure of it: text over the analysis
 * size budget, unbalanced parentheses, more than one statement, a statement that does not start
 * with `SELECT` or a plain `WITH` clause before one (`VALUES`), a compound member that is not a `SELECT`, non-ASCII characters
 * in bare words, a keyword or `true` / `false` where an alias or a lone sort key stands, a string
 * as an implicit alias, a number written other than as decimal digits where a sort key or LIMIT
 * operand is a lone number, or an item it cannot split into expression and alias.
 * @example readOuterQueryFromTokens('SELECT name FROM t ORDER BY age DESC LIMIT 2')
 * // { compound: false, selectList: { distinct: false, items: [{ expr: [7, 11], star: false }], end: 11 },
 * //   orderBy: [{ expr: [28, 31], descending: true, nulls: null, identifier: 'age' }],
 * //   limit: { range: [37, 44], count: 2, offset: 'absent' } }
 */
export function readOuterQueryFromTokens(sql: string): OuterQuery | undefined {
  if (sqlSizeOverBudget(sql) !== undefined) return undefined;
  const all = tokenizeSqlite(sql);
  // One statement: trailing semicolons only.
  let length = all.length;
  const firstSemicolon = all.findIndex((token) => token.kind === 'semicolon');
  if (firstSemicolon >= 0) {
    if (all.slice(firstSemicolon).some((token) => token.kind !== 'semicolon')) return undefined;
    length = firstSemicolon;
  }
  const tokens = all.slice(0, length);
  const depths = depthsOf(tokens);
  if (depths === undefined) return undefined;
  if (tokens.some((token) => token.kind === 'word' && /[^\x00-\x7f]/.test(token.value))) return undefined;
  if (hasConstructTheParserRejects(tokens)) return undefined;

  // Compound members, split at depth-0 set operators, after any WITH clause.
  const bodyStart = wordOf(tokens[0]) === 'with' ? afterWithClause(tokens, depths) : 0;
  if (bodyStart === undefined) return undefined;
  const members: [number, number][] = [];
  let memberStart = bodyStart;
  for (let index = bodyStart; index < tokens.length; index += 1) {
    if (depths[index] !== 0 || !COMPOUND_OPERATORS.has(wordOf(tokens[index]))) continue;
    members.push([memberStart, index]);
    memberStart = index + 1 + (wordOf(tokens[index]) === 'union' && wordOf(tokens[index + 1]) === 'all' ? 1 : 0);
  }
  members.push([memberStart, tokens.length]);
  if (members.some(([start, end]) => start >= end || wordOf(tokens[start]) !== 'select')) return undefined;

  const [firstStart, firstEnd] = members[0]!;
  const selectList = readSelectList(tokens, depths, firstStart, firstEnd);
  if (selectList === undefined) return undefined;
  const [lastStart, lastEnd] = members[members.length - 1]!;
  const tail = readTail(tokens, depths, lastStart, lastEnd);
  if (tail === undefined) return undefined;
  // An ORDER BY or LIMIT at depth 0 in an earlier member is not SQLite; do not guess.
  for (const [start, end] of members.slice(0, -1)) {
    for (let index = start; index < end; index += 1) {
      if (depths[index] === 0 && (isOrderBy(tokens, index) || wordOf(tokens[index]) === 'limit')) return undefined;
    }
  }
  return { compound: members.length > 1, selectList, ...tail };
}

/**
 * Valid SQLite that sql-parser-cst rejects (measured with sql-parser-cst 0.42.1 against SQLite
 * 3.53.2's `prepare`): the tree gives no answer there, so neither may the tokens. An empty list
 * `()` other than a call's (`a IN ()`), and numbers other than decimal digits with an optional
 * fraction and exponent (`5.` fails; hex and `_` separators are left out to be safe).
 */
function hasConstructTheParserRejects(tokens: readonly SqliteToken[]): boolean {
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.kind === 'number' && !/^(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][0-9]*)?$/.test(token.value)) return true;
    if (isPunctuation(token, '(') && isPunctuation(tokens[index + 1], ')')) {
      const before = tokens[index - 1];
      if (before === undefined || !(before.kind === 'word' ? !isSqliteKeyword(before.value) : before.kind === 'double_quoted' || before.kind === 'quoted_identifier')) return true;
    }
  }
  return false;
}

/**
 * The index of the first token after a leading `WITH [RECURSIVE] name [(columns)] AS [[NOT]
 * MATERIALIZED] (…)[, …]`; `undefined` when the clause is not of that form.
 */
function afterWithClause(tokens: readonly SqliteToken[], depths: readonly number[]): number | undefined {
  let index = wordOf(tokens[1]) === 'recursive' ? 2 : 1;
  const closing = (open: number): number | undefined => {
    if (!isPunctuation(tokens[open], '(')) return undefined;
    for (let at = open + 1; at < tokens.length; at += 1) if (depths[at] === depths[open] && isPunctuation(tokens[at], ')')) return at;
    return undefined;
  };
  for (;;) {
    const name = tokens[index];
    if (name === undefined || !isName(name)) return undefined;
    index += 1;
    if (isPunctuation(tokens[index], '(')) {
      const end = closing(index);
      if (end === undefined) return undefined;
      index = end + 1;
    }
    if (wordOf(tokens[index]) !== 'as') return undefined;
    index += 1;
    if (wordOf(tokens[index]) === 'not' && wordOf(tokens[index + 1]) === 'materialized') index += 2;
    else if (wordOf(tokens[index]) === 'materialized') index += 1;
    const end = closing(index);
    if (end === undefined) return undefined;
    index = end + 1;
    if (!isPunctuation(tokens[index], ',')) return index;
    index += 1;
  }
}

/** Parenthesis depth of each token (a `(` and its `)` are at the outer depth); `undefined` when unbalanced. */
function depthsOf(tokens: readonly SqliteToken[]): number[] | undefined {
  const depths = new Array<number>(tokens.length);
  let depth = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.kind === 'punctuation' && token.value === ')') depth -= 1;
    if (depth < 0) return undefined;
    depths[index] = depth;
    if (token.kind === 'punctuation' && token.value === '(') depth += 1;
  }
  return depth === 0 ? depths : undefined;
}

/** The lower-cased word of a bare-word token, else `''`. */
function wordOf(token: SqliteToken | undefined): string {
  return token?.kind === 'word' ? token.value.toLowerCase() : '';
}

function isOrderBy(tokens: readonly SqliteToken[], index: number): boolean {
  return wordOf(tokens[index]) === 'order' && wordOf(tokens[index + 1]) === 'by';
}

function isPunctuation(token: SqliteToken | undefined, value: string): boolean {
  return token?.kind === 'punctuation' && token.value === value;
}

/** Splits `[start, end)` at depth-0 commas; `undefined` when a part is empty. */
function splitAtCommas(tokens: readonly SqliteToken[], depths: readonly number[], start: number, end: number): [number, number][] | undefined {
  const parts: [number, number][] = [];
  let partStart = start;
  for (let index = start; index <= end; index += 1) {
    if (index < end && !(depths[index] === 0 && isPunctuation(tokens[index], ','))) continue;
    if (partStart >= index) return undefined;
    parts.push([partStart, index]);
    partStart = index + 1;
  }
  return parts;
}

function readSelectList(tokens: readonly SqliteToken[], depths: readonly number[], start: number, end: number): OuterSelectList | undefined {
  let itemsStart = start + 1;
  const modifier = wordOf(tokens[itemsStart]);
  const distinct = modifier === 'distinct';
  if (distinct || modifier === 'all') itemsStart += 1;
  let itemsEnd = itemsStart;
  while (itemsEnd < end && !(depths[itemsEnd] === 0 && SELECT_LIST_END.has(wordOf(tokens[itemsEnd])))) itemsEnd += 1;
  const parts = splitAtCommas(tokens, depths, itemsStart, itemsEnd);
  if (parts === undefined) return undefined;
  const items: OuterSelectItem[] = [];
  for (const [partStart, partEnd] of parts) {
    const item = readSelectItem(tokens, partStart, partEnd);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return { distinct, items, end: tokens[itemsEnd - 1]!.end };
}

/** One select item: `*`, `t.*`, `expr`, `expr AS name` or `expr name`. */
function readSelectItem(tokens: readonly SqliteToken[], start: number, end: number): OuterSelectItem | undefined {
  const range = (from: number, to: number): SourceRange => [tokens[from]!.start, tokens[to - 1]!.end];
  const last = tokens[end - 1]!;
  if (end - start === 1 && isPunctuation(last, '*')) return { expr: range(start, end), star: true };
  if (end - start === 3 && isPunctuation(last, '*') && isPunctuation(tokens[start + 1], '.') && isName(tokens[start]!)) {
    return { expr: range(start, end), star: true };
  }
  if (isPunctuation(last, '*')) return undefined;
  const before = tokens[end - 2];
  if (wordOf(before) === 'as') {
    if (end - start < 3 || !(isName(last) || last.kind === 'string')) return undefined;
    return { expr: range(start, end - 2), alias: last.value, star: false };
  }
  if (end - start >= 2 && isName(last)) {
    // `expr name`: an implicit alias when the token before can end an expression.
    if (endsExpression(before!)) return { expr: range(start, end - 1), alias: last.value, star: false };
    if (before!.kind === 'punctuation' || OPERAND_BEFORE.has(wordOf(before))) return { expr: range(start, end), star: false };
    return undefined;
  }
  if (last.kind === 'word' && isSqliteKeyword(last.value) && !ITEM_END_KEYWORDS.has(last.value.toLowerCase())) return undefined;
  if (last.kind === 'word' && LITERAL_WORDS.has(last.value.toLowerCase()) && end - start >= 2) return undefined;
  if (last.kind === 'string' && end - start >= 2 && !(before!.kind === 'punctuation' || OPERAND_BEFORE.has(wordOf(before)))) return undefined;
  return { expr: range(start, end), star: false };
}

/** A token that can only be a name: a quoted identifier, or a bare word that is no keyword nor `true` / `false`. */
function isName(token: SqliteToken): boolean {
  if (token.kind === 'double_quoted' || token.kind === 'quoted_identifier') return true;
  return token.kind === 'word' && !isSqliteKeyword(token.value) && !LITERAL_WORDS.has(token.value.toLowerCase());
}

/** Whether a select item whose last token this is has ended its expression (so a name after it is an alias). */
function endsExpression(token: SqliteToken): boolean {
  if (token.kind === 'punctuation') return token.value === ')';
  if (token.kind === 'word') return isName(token) || EXPRESSION_END.has(token.value.toLowerCase());
  return token.kind !== 'semicolon';
}

/** The last member's trailing `ORDER BY` and `LIMIT`. */
function readTail(tokens: readonly SqliteToken[], depths: readonly number[], start: number, end: number): Pick<OuterQuery, 'orderBy' | 'limit'> | undefined {
  let orderAt = -1;
  let limitAt = -1;
  for (let index = start; index < end; index += 1) {
    if (depths[index] !== 0) continue;
    if (isOrderBy(tokens, index)) {
      if (orderAt >= 0 || limitAt >= 0) return undefined;
      orderAt = index;
    } else if (wordOf(tokens[index]) === 'limit') {
      if (limitAt >= 0) return undefined;
      limitAt = index;
    }
  }
  let orderBy: OuterSortKey[] | null = null;
  if (orderAt >= 0) {
    const parts = splitAtCommas(tokens, depths, orderAt + 2, limitAt >= 0 ? limitAt : end);
    if (parts === undefined) return undefined;
    orderBy = [];
    for (const [partStart, partEnd] of parts) {
      const key = readSortKey(tokens, partStart, partEnd);
      if (key === undefined) return undefined;
      orderBy.push(key);
    }
  }
  let limit: OuterLimit | null = null;
  if (limitAt >= 0) {
    limit = readLimit(tokens, depths, limitAt, end) ?? null;
    if (limit === null) return undefined;
  }
  return { orderBy, limit };
}

function readSortKey(tokens: readonly SqliteToken[], start: number, end: number): OuterSortKey | undefined {
  let exprEnd = end;
  let nulls: OuterSortKey['nulls'] = null;
  const placement = wordOf(tokens[exprEnd - 1]);
  if (exprEnd - start >= 3 && wordOf(tokens[exprEnd - 2]) === 'nulls' && (placement === 'first' || placement === 'last')) {
    nulls = placement;
    exprEnd -= 2;
  }
  const direction = wordOf(tokens[exprEnd - 1]);
  const descending = direction === 'desc';
  if ((descending || direction === 'asc') && exprEnd - start >= 2) exprEnd -= 1;
  if (exprEnd <= start) return undefined;
  const expr: SourceRange = [tokens[start]!.start, tokens[exprEnd - 1]!.end];
  const lastWord = wordOf(tokens[exprEnd - 1]);
  if (lastWord === 'nulls' || lastWord === 'asc' || lastWord === 'desc') return undefined;
  if (exprEnd - start > 1) return { expr, descending, nulls };
  const only = tokens[start]!;
  if (only.kind === 'number') {
    if (!/^[0-9]+$/.test(only.value)) return undefined;
    return { expr, ordinal: Number(only.value), descending, nulls };
  }
  if (only.kind === 'word' && !isName(only)) return undefined;
  if (isName(only)) return { expr, identifier: only.value, descending, nulls };
  return { expr, descending, nulls };
}

/** `LIMIT count`, `LIMIT count OFFSET offset` or `LIMIT offset, count`, to the member's end. */
function readLimit(tokens: readonly SqliteToken[], depths: readonly number[], at: number, end: number): OuterLimit | undefined {
  let split = -1;
  for (let index = at + 1; index < end; index += 1) {
    if (depths[index] !== 0) continue;
    if (wordOf(tokens[index]) === 'offset' || isPunctuation(tokens[index], ',')) {
      if (split >= 0) return undefined;
      split = index;
    } else if (tokens[index]!.kind === 'word' && isSqliteKeyword(tokens[index]!.value)) return undefined;
  }
  const operand = (from: number, to: number): LimitOperand | undefined => {
    if (to <= from) return undefined;
    if (to - from > 1) return 'other';
    const only = tokens[from]!;
    if (only.kind !== 'number') return 'other';
    return /^[0-9]+$/.test(only.value) ? Number(only.value) : undefined;
  };
  const range: SourceRange = [tokens[at]!.start, tokens[end - 1]!.end];
  if (split < 0) {
    const count = operand(at + 1, end);
    return count === undefined ? undefined : { range, count, offset: 'absent' };
  }
  const first = operand(at + 1, split);
  const second = operand(split + 1, end);
  if (first === undefined || second === undefined) return undefined;
  return wordOf(tokens[split]) === 'offset' ? { range, count: first, offset: second } : { range, count: second, offset: first };
}
