/**
 * Gold ordering: whether row order matters for a gold query, and which rows are tied.
 *
 * - {@link detectOuterOrderBy}: does the gold's OUTERMOST query have ORDER BY? A text with no
 *   ORDER BY tokens at all is unordered without a parse; otherwise the outermost query is read
 *   (outer-query-tree.ts): from the SQLite tokens when they decide it, else with the AST layer
 *   (`parseSql`, sql-parser-cst), both giving the same answer. An ORDER BY inside `OVER (…)`, a subquery or a CTE does not
 *   count. For a compound select (`UNION` / `INTERSECT` / `EXCEPT`) the parser hangs the trailing
 *   ORDER BY on the right-most member; it applies to the whole compound. When the parser cannot read
 *   the SQL, a depth-0 token scan (strings, quoted identifiers and comments skipped) decides, and the
 *   result says so (`source: 'token-scan'`).
 * - {@link textHasOrderBy}: Spider's rule, `'order by' in g_str.lower()` (exec_eval.py
 *   `eval_exec_match`).
 * - {@link GoldOrdering}: what `compareResults` needs: ordered or not, and tie segments.
 */
import type { Row } from '../engine/engine.js';
import { parseSqlAhead, type Dialect } from '../sql/parse.js';
import { tokenizePostgres } from '../sql/postgres-lexer.js';
import { tokenizeSqlite, type SqliteToken } from '../sql/sqlite-lexer.js';
import { readOuterQuery, tokensDecideOuterQuery, type SqliteParse } from './outer-query-tree.js';
import { BoundedMap } from '../bounded-map.js';

export { findClause, outerSelect, parseSingleStatement, type CstNode, type SqliteParse } from './outer-query-tree.js';

/** Rows at result positions `[start, end)` may come in any order; `pool` lists every acceptable row. */
export interface TieSegment {
  readonly start: number;
  readonly end: number;
  /**
   * The gold rows acceptable at these positions (visible columns only). Equal in size to the
   * segment unless a LIMIT / OFFSET cut the tie group: then it holds the whole group.
   */
  readonly pool: readonly Row[];
}

/** One ORDER BY term of the gold's outermost query. */
export interface SortKeySpec {
  /** The key as written, e.g. `count(*)`, `T1.age`, `2`. */
  readonly text: string;
  readonly descending: boolean;
  /** `NULLS FIRST` / `NULLS LAST` when written; `null` leaves NULL placement to the engine. */
  readonly nulls: 'first' | 'last' | null;
}

/**
 * The gold's sort key values, read from the tie query (tie-aware policies only): what gold checks
 * need to see NULL sort keys and to name the key a tie shares.
 */
export interface SortKeyFacts {
  /** The ORDER BY terms, in order. */
  readonly specs: readonly SortKeySpec[];
  /** Key values of each gold row, by position (one cell per spec). */
  readonly values: readonly Row[];
  /** Rows the gold returns without its LIMIT / OFFSET (the gold's own count when it has none). */
  readonly fullCount: number;
  /** Per spec: how many of those rows have a NULL key. */
  readonly nullCounts: readonly number[];
}

/** How order was decided for a gold. */
/**
 * How a gold's ordering was decided: `ast` (the outermost query read structurally: from the tree,
 * or from the tokens where they give the tree's answer), `token-scan`
 * (the tree could not be read; a depth-0 token scan found it), `no-order-by` (no ORDER BY anywhere
 * in the text, so no query of it sorts: decided without a parse), `text` (Spider's text rule),
 * `policy` (the policy ignores row order).
 */
export type OrderSource = 'ast' | 'token-scan' | 'no-order-by' | 'text' | 'policy';

/** Row-order facts about one gold result, passed to `compareResults` in its context. */
export interface GoldOrdering {
  /** True when row order matters. */
  readonly ordered: boolean;
  /** How `ordered` was decided. */
  readonly source: OrderSource;
  /**
   * Tie groups covering every gold position in order, when known (tie-aware policies only).
   * Absent with `ordered: true` means strict row-by-row order.
   */
  readonly segments?: readonly TieSegment[];
  /** True when a LIMIT / OFFSET cut a tie group whose rows differ (the gold is nondeterministic). */
  readonly nondeterministic?: boolean;
  /** Why tie groups are unknown although order matters (e.g. `DISTINCT with a hidden sort key`). */
  readonly tiesUnknownReason?: string;
  /**
   * True when the tie query failed for a reason of the moment (timeout, memory cap, engine
   * failure), not because of the gold: the ordering must not be cached.
   */
  readonly transient?: boolean;
  /** The sort keys and their values, when the tie query ran (or the gold result held every key). */
  readonly sortKeys?: SortKeyFacts;
}

/** Outcome of {@link detectOuterOrderBy}. */
export interface OuterOrderBy {
  readonly ordered: boolean;
  /**
   * `no-order-by` when the text has no ORDER BY at all (nothing parsed), else `ast` when the
   * outermost query was read (outer-query-tree.ts: the tokens or sql-parser-cst), `token-scan` otherwise.
   */
  readonly source: 'ast' | 'token-scan' | 'no-order-by';
}

/** The tokens of `sql` in its dialect (PostgreSQL's own quoting rules; SQLite's for the rest). */
function tokensOf(sql: string, dialect: Dialect): SqliteToken[] {
  return dialect === 'postgres' ? tokenizePostgres(sql) : tokenizeSqlite(sql);
}

/**
 * Whether the outermost query of `sql` has ORDER BY, read in `dialect` (default `sqlite`; the
 * fixture's dialect).
 * @param sql - one statement.
 * @example detectOuterOrderBy('SELECT a FROM t ORDER BY a')                         // { ordered: true, source: 'ast' }
 * @example detectOuterOrderBy('SELECT rank() OVER (ORDER BY a) FROM t')             // { ordered: false, source: 'ast' }
 * @example detectOuterOrderBy('SELECT * FROM (SELECT a FROM t ORDER BY a)')         // { ordered: false, source: 'ast' }
 */
export function detectOuterOrderBy(sql: string, parse?: SqliteParse, dialect: Dialect = 'sqlite'): OuterOrderBy {
  // Most golds sort nothing: without ORDER BY tokens the tree cannot hold the clause (a parse
  // costs a round trip to the parser thread and a copy of the tree).
  if (!hasOrderByTokens(sql, dialect)) return { ordered: false, source: 'no-order-by' };
  const read = readOuterQuery(sql, parse, dialect);
  if (read.kind === 'query') return { ordered: read.query.orderBy !== null, source: 'ast' };
  return { ordered: tokenScanOrderBy(sql, dialect), source: 'token-scan' };
}

/**
 * Starts, in the parser thread, the parse {@link detectOuterOrderBy} will need for this gold, so
 * that it overlaps the gold's execution; nothing for a gold without ORDER BY tokens, nor for one
 * whose outermost query its tokens decide (neither needs a parse). Only for the default parser (`parseSql(sql, 'sqlite')`).
 * @param sql - the gold as it will run (after the policy's rewrites).
 */
export function parseGoldAhead(sql: string): void {
  if (!tokensDecideOuterQuery(sql) && hasOrderByTokens(sql)) parseSqlAhead(sql);
}

/** Spider's rule: the lower-cased gold text contains `order by` (one space) anywhere. */
export function textHasOrderBy(sql: string): boolean {
  return sql.toLowerCase().includes('order by');
}

/**
 * Depth-0 scan for `ORDER BY` over the dialect's tokens (`sql/sqlite-lexer.ts`,
 * `sql/postgres-lexer.ts`): strings, quoted identifiers and comments never count, nor anything
 * inside parentheses. Used only when the AST layer cannot read the SQL.
 */
export function tokenScanOrderBy(sql: string, dialect: Dialect = 'sqlite'): boolean {
  let depth = 0;
  let previousWord = '';
  for (const token of tokensOf(sql, dialect)) {
    if (token.kind === 'punctuation' && token.value === '(') depth += 1;
    if (token.kind === 'punctuation' && token.value === ')') depth = Math.max(0, depth - 1);
    if (token.kind !== 'word') {
      previousWord = '';
      continue;
    }
    const word = token.value.toLowerCase();
    if (depth === 0 && previousWord === 'order' && word === 'by') return true;
    previousWord = depth === 0 ? word : '';
  }
  return false;
}

/**
 * Whether `ORDER BY` occurs anywhere in `sql` as keywords (any depth; strings, quoted identifiers
 * and comments never count). When it does not, no query of the text sorts.
 * @example hasOrderByTokens("SELECT 'order by' FROM t")                       // false
 * @example hasOrderByTokens('SELECT * FROM (SELECT a FROM t ORDER BY a)')     // true
 */
export function hasOrderByTokens(sql: string, dialect: Dialect = 'sqlite'): boolean {
  // Asked for each item's gold before it runs and again when it is compared.
  const cacheKey = dialect === 'sqlite' ? sql : `${dialect}\u0000${sql}`;
  const known = recentOrderByTokens.get(cacheKey);
  if (known !== undefined) return known;
  let found = false;
  let previousWasOrder = false;
  for (const token of tokensOf(sql, dialect)) {
    const word = token.kind === 'word' ? token.value.toLowerCase() : '';
    if (previousWasOrder && word === 'by') {
      found = true;
      break;
    }
    previousWasOrder = word === 'order';
  }
  recentOrderByTokens.set(cacheKey, found);
  return found;
}

/** {@link hasOrderByTokens} of the 256 texts asked last. */
const recentOrderByTokens = new BoundedMap<string, boolean>(256);

/**
 * True when every `LIMIT` of `sql` has an `ORDER BY` in its own SELECT, read from the shared SQLite
 * tokens alone: walking back from each depth-level `LIMIT`, an `ORDER BY` at the same parenthesis
 * depth comes before that level's `SELECT`, its opening `(`, a `;` or the start. A compound's
 * trailing `ORDER BY` counts for its right-most member, as in the AST. Strings, quoted names and
 * comments never count.
 *
 * A cheap, one-sided test: when it holds, no SELECT of the text has LIMIT without ORDER BY, so a
 * caller may skip the parse; when it fails (or `limit` names a column) only the AST can tell.
 * @example everyLimitHasOrderBy('SELECT a FROM t ORDER BY a LIMIT 1')                  // true
 * @example everyLimitHasOrderBy('SELECT a FROM t WHERE b IN (SELECT b FROM u LIMIT 3)') // false
 */
export function everyLimitHasOrderBy(sql: string): boolean {
  const tokens = tokenizeSqlite(sql);
  const depths = new Array<number>(tokens.length);
  let depth = 0;
  tokens.forEach((token, index) => {
    if (token.kind === 'punctuation' && token.value === ')') depth = Math.max(0, depth - 1);
    depths[index] = depth;
    if (token.kind === 'punctuation' && token.value === '(') depth += 1;
  });
  const isWord = (index: number, word: string): boolean => tokens[index]?.kind === 'word' && tokens[index].value.toLowerCase() === word;
  for (let index = 0; index < tokens.length; index += 1) {
    if (!isWord(index, 'limit')) continue;
    const level = depths[index]!;
    let ordered = false;
    for (let back = index - 1; back >= 0; back -= 1) {
      const token = tokens[back]!;
      if (depths[back]! < level || token.kind === 'semicolon') break;
      if (depths[back]! > level) continue;
      if (isWord(back, 'select')) break;
      if (isWord(back, 'by') && isWord(back - 1, 'order') && depths[back - 1] === level) {
        ordered = true;
        break;
      }
    }
    if (!ordered) return false;
  }
  return true;
}
