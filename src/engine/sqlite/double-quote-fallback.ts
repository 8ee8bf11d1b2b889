/**
 * SQLite's legacy double-quoted string literals ("DQS"), emulated by rewriting.
 *
 * Stock SQLite builds (CLI, Python) read a double-quoted token that names no column as a string
 * literal (https://sqlite.org/quirks.html#dblquote). better-sqlite3 is compiled with
 * `SQLITE_DQS=0`, so `WHERE x = "APG"` fails with `no such column: "APG" - should this be a
 * string literal in single-quotes?` (106 of the 507 golds of the shared Spider slice).
 *
 * Legacy mode: when prepare fails with `no such column: X` and X appears as an unqualified
 * double-quoted token in the SQL (outside strings and comments), every such token is rewritten to
 * a single-quoted literal and prepare is retried; this repeats while it makes progress. Stock
 * SQLite decides token by token, though: in `WHERE a = "b" OR EXISTS (SELECT 1 FROM t2 WHERE
 * t2.c = "b")` the first `"b"` is a string and the second the column `t2.b` when only t2 has a
 * column b. So once the rewritten text prepares, {@link restoreResolvingIdentifiers} puts back,
 * one by one, every rewritten token that prepares as an identifier where it stands.
 */
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';

/**
 * Reads the column name out of SQLite's `no such column` message.
 *
 * @param message - the SQLite error message.
 * @returns the name without its double quotes when the message is `no such column: "X"` (with or
 *   without SQLite ≥ 3.41's hint ` - should this be a string literal in single-quotes?`), the bare
 *   name for `no such column: X`, or `undefined` for any other message (a qualified `T1.x` is
 *   returned as is and then never matches a double-quoted token).
 */
export function missingColumnName(message: string): string | undefined {
  const match = /^no such column: (.*?)(?: - should this be a string literal in single-quotes\?)?$/s.exec(message);
  if (!match) return undefined;
  const name = match[1]!;
  return name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name;
}

/**
 * Rewrites every unqualified double-quoted token whose value is `name` into a single-quoted
 * string literal (inner `'` doubled). Tokens next to a `.` (`t."name"`, `"t".x`) are identifiers
 * in every SQLite build and stay.
 *
 * @param sql - the SQL text.
 * @param name - the token's value, without quotes (as {@link missingColumnName} returns it).
 * @returns the rewritten SQL, or `undefined` when no such token exists.
 * @example
 * rewriteDoubleQuoted('SELECT * FROM t WHERE c = "APG"', 'APG') // "SELECT * FROM t WHERE c = 'APG'"
 */
export function rewriteDoubleQuoted(sql: string, name: string): string | undefined {
  const tokens = tokenizeSqlite(sql);
  let out = '';
  let last = 0;
  let changed = false;
  tokens.forEach((token, index) => {
    if (token.kind !== 'double_quoted' || token.value !== name) return;
    if (token.end - token.start < 2 || sql[token.end - 1] !== '"') return;
    const before = tokens[index - 1];
    const after = tokens[index + 1];
    const qualified = (before?.kind === 'punctuation' && before.value === '.') || (after?.kind === 'punctuation' && after.value === '.');
    if (qualified) return;
    out += sql.slice(last, token.start) + `'${token.value.replaceAll("'", "''")}'`;
    last = token.end;
    changed = true;
  });
  return changed ? out + sql.slice(last) : undefined;
}

/**
 * Undoes the rewrites that were not needed: for each double-quoted token of `originalSql` that
 * `rewrittenSql` turned into a string literal, in source order, the token is put back when the
 * text still prepares with it (so it names a column there, as stock SQLite would read it).
 *
 * @param originalSql - the text before the fallback.
 * @param rewrittenSql - the text after {@link rewriteDoubleQuoted} rounds; it prepares.
 * @param prepares - true when SQLite prepares the text (no statement is run).
 * @returns the text with only the rewrites SQLite needs; `rewrittenSql` when the two texts do not
 *   tokenize alike (never expected: a rewrite replaces one token by one token).
 * @example
 * // t1(a), t2(b, c)
 * restoreResolvingIdentifiers('SELECT a FROM t1 WHERE a = "b" OR EXISTS (SELECT 1 FROM t2 WHERE c = "b")',
 *   "SELECT a FROM t1 WHERE a = 'b' OR EXISTS (SELECT 1 FROM t2 WHERE c = 'b')", prepares)
 * // "SELECT a FROM t1 WHERE a = 'b' OR EXISTS (SELECT 1 FROM t2 WHERE c = \"b\")"
 */
export function restoreResolvingIdentifiers(originalSql: string, rewrittenSql: string, prepares: (sql: string) => boolean): string {
  const original = tokenizeSqlite(originalSql);
  const rewritten = tokenizeSqlite(rewrittenSql);
  if (original.length !== rewritten.length) return rewrittenSql;
  const restorable = original.flatMap((token, index) => (token.kind === 'double_quoted' && rewritten[index]!.kind === 'string' ? [index] : []));
  if (restorable.length < 2) return rewrittenSql;
  const restored = new Set<number>();
  const render = (extra: number): string => {
    let out = '';
    let last = 0;
    rewritten.forEach((token, index) => {
      if (index !== extra && !restored.has(index)) return;
      out += rewrittenSql.slice(last, token.start) + originalSql.slice(original[index]!.start, original[index]!.end);
      last = token.end;
    });
    return out + rewrittenSql.slice(last);
  };
  for (const index of restorable) {
    if (prepares(render(index))) restored.add(index);
  }
  return restored.size === 0 ? rewrittenSql : render(-1);
}
