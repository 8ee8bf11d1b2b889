/**
 * The Spider test-suite's SQL text rewrites, reproduced quirk for quirk (they change verdicts, so
 * they are part of the {@link SqlRewrites} policy). Applied in the official order:
 * 1. prediction only: `" value "` → `" 1 "` (evaluation.py `evaluate`: `p_str.replace(" value ", " 1 ")`);
 * 2. both: `> =`, `< =`, `! =` joined (exec_eval.py `postprocess`);
 * 3. both, unless `--keep_distinct`: every `DISTINCT` token removed as text, the whitespace around
 *    it kept (parse.py `remove_distinct`, which re-joins sqlparse's tokens of the FIRST statement
 *    only, so text after the first top-level `;` is dropped too);
 * 4. both, at execution: `YEAR(CURDATE())` → the year (exec_eval.py `replace_cur_year`, 2020).
 */
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';
import { BoundedMap } from '../bounded-map.js';

/**
 * Text rewrites applied to the SQL before it runs (the Spider test-suite's quirks). They belong to
 * the policy because they change verdicts; `compareResults` ignores them, `checkExecution` and the
 * CLI apply them.
 */
export interface SqlRewrites {
  /**
   * Remove every `DISTINCT` keyword token from gold and prediction as text, keeping the whitespace
   * around it (`COUNT(DISTINCT x)` → `COUNT( x)`). Spider `parse.py` `remove_distinct`, skipped
   * by `--keep_distinct`.
   */
  readonly removeDistinct: boolean;
  /** Join `> =`, `< =`, `! =` into `>=`, `<=`, `!=` in both queries (Spider `postprocess`). */
  readonly joinSpacedOperators: boolean;
  /**
   * Replace `YEAR(CURDATE())` (any case and spacing, plus trailing whitespace) with this year in
   * both queries; `null` = no rewrite. Spider `replace_cur_year` uses 2020.
   */
  readonly currentYear: number | null;
  /**
   * Replace `" value "` by `" 1 "` in the prediction (Spider `evaluation.py` `evaluate`; it replaces
   * the word with its surrounding spaces, not every substring `value`).
   */
  readonly valuePlaceholder: boolean;
}

/** No rewrite at all (the `default` and `bird` presets). */
export const NO_REWRITES: SqlRewrites = Object.freeze({
  removeDistinct: false,
  joinSpacedOperators: false,
  currentYear: null,
  valuePlaceholder: false,
});

/** Which query a rewrite is applied to. */
export type SqlRole = 'gold' | 'predicted';

/**
 * Applies the policy's rewrites to one query.
 * @param sql - the query text.
 * @param role - `predicted` also gets the `" value "` placeholder rewrite.
 * @param rewrites - the policy's rewrites; all off leaves `sql` unchanged.
 * @example applySqlRewrites('SELECT COUNT(DISTINCT a) FROM t WHERE b > = 2', 'gold', PRESETS.spider.rewrites)
 * // 'SELECT COUNT( a) FROM t WHERE b >= 2'
 */
export function applySqlRewrites(sql: string, role: SqlRole, rewrites: SqlRewrites): string {
  if (!rewrites.removeDistinct && !rewrites.joinSpacedOperators && rewrites.currentYear === null && !(role === 'predicted' && rewrites.valuePlaceholder)) return sql;
  // Golds repeat (Spider's paraphrased questions share them): a frozen rewrite set remembers its
  // recent gold texts.
  const recent = role === 'gold' && Object.isFrozen(rewrites) ? recentGoldRewrites(rewrites) : undefined;
  const known = recent?.get(sql);
  if (known !== undefined) return known;
  let out = sql;
  if (role === 'predicted' && rewrites.valuePlaceholder) out = out.replaceAll(' value ', ' 1 ');
  if (rewrites.joinSpacedOperators) out = out.replaceAll('> =', '>=').replaceAll('< =', '<=').replaceAll('! =', '!=');
  if (rewrites.removeDistinct) out = removeDistinctTokens(out);
  if (rewrites.currentYear !== null) out = replaceCurrentYear(out, rewrites.currentYear);
  recent?.set(sql, out);
  return out;
}

const RECENT_GOLDS = 1024;
const goldRewritesBySet = new WeakMap<SqlRewrites, BoundedMap<string, string>>();

function recentGoldRewrites(rewrites: SqlRewrites): BoundedMap<string, string> {
  let recent = goldRewritesBySet.get(rewrites);
  if (recent === undefined) {
    recent = new BoundedMap(RECENT_GOLDS);
    goldRewritesBySet.set(rewrites, recent);
  }
  return recent;
}

/** `YEAR ( CURDATE ( ) )` in any case and spacing, plus the whitespace after it, → `year`. */
export function replaceCurrentYear(sql: string, year: number): string {
  return sql.replace(/YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*/gi, String(year));
}

/** `distinct` in any ASCII case (a word token that lower-cases to `distinct` contains it). */
const DISTINCT_LETTERS = /distinct/i;

/**
 * Removes every word token `distinct` (any case) outside string literals, quoted identifiers and
 * comments, keeping everything else byte for byte; keeps only the first statement (up to and
 * including the first `;`), as `sqlparse.parse(s)[0]` does. Tokens come from the shared SQLite
 * tokenizer (`sql/sqlite-lexer.ts`).
 * @example removeDistinctTokens('SELECT COUNT(DISTINCT x) FROM t') // 'SELECT COUNT( x) FROM t'
 */
export function removeDistinctTokens(sql: string): string {
  // Without a `;` or the letters of `distinct` (any case) there is no token to act on.
  if (!sql.includes(';') && !DISTINCT_LETTERS.test(sql)) return sql;
  let out = '';
  let cursor = 0;
  for (const token of tokenizeSqlite(sql)) {
    if (token.kind === 'semicolon') return out + sql.slice(cursor, token.end);
    if (token.kind === 'word' && token.value.toLowerCase() === 'distinct') {
      out += sql.slice(cursor, token.start);
      cursor = token.end;
    }
  }
  return out + sql.slice(cursor);
}
