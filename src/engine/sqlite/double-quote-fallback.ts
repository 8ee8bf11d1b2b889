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
 * a single-quoted literal and prepare is retried; this repeats while it makes progress.
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
