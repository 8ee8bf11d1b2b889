/**
 * SQLite's keywords, and which of them SQLite also accepts as identifiers.
 *
 * Source: https://sqlite.org/lang_keywords.html (the 147 keywords of a default build) and the
 * keyword table of SQLite's `tool/mkkeywordhash.c`, which generates `sqlite3_keyword_name()`
 * (better-sqlite3 does not expose that function). `WITHIN` is left out: it is a keyword only in
 * builds with `SQLITE_ENABLE_ORDERED_SET_FUNCS`.
 *
 * SQLite's parser lets many keywords stand for a name where that is not ambiguous (parse.y's
 * `%fallback ID` list, plus the join and LIKE operator words): `SELECT a AS full`, `FROM t AS
 * left`, a column named `window`. {@link SQLITE_IDENTIFIER_KEYWORDS} lists the keywords SQLite's
 * `prepare` accepts in at least one of three uses — column alias after `AS`, table alias after
 * `AS`, column name — measured with better-sqlite3 12 (SQLite 3.53.2) and re-measured by
 * tests/sql/sqlite-keywords.test.ts.
 */

/** The 147 keywords of a default SQLite build, upper case, in the documentation's order. */
export const SQLITE_KEYWORDS: readonly string[] = Object.freeze([
  'ABORT', 'ACTION', 'ADD', 'AFTER', 'ALL', 'ALTER', 'ALWAYS', 'ANALYZE', 'AND', 'AS', 'ASC', 'ATTACH',
  'AUTOINCREMENT', 'BEFORE', 'BEGIN', 'BETWEEN', 'BY', 'CASCADE', 'CASE', 'CAST', 'CHECK', 'COLLATE',
  'COLUMN', 'COMMIT', 'CONFLICT', 'CONSTRAINT', 'CREATE', 'CROSS', 'CURRENT', 'CURRENT_DATE',
  'CURRENT_TIME', 'CURRENT_TIMESTAMP', 'DATABASE', 'DEFAULT', 'DEFERRABLE', 'DEFERRED', 'DELETE',
  'DESC', 'DETACH', 'DISTINCT', 'DO', 'DROP', 'EACH', 'ELSE', 'END', 'ESCAPE', 'EXCEPT', 'EXCLUDE',
  'EXCLUSIVE', 'EXISTS', 'EXPLAIN', 'FAIL', 'FILTER', 'FIRST', 'FOLLOWING', 'FOR', 'FOREIGN', 'FROM',
  'FULL', 'GENERATED', 'GLOB', 'GROUP', 'GROUPS', 'HAVING', 'IF', 'IGNORE', 'IMMEDIATE', 'IN', 'INDEX',
  'INDEXED', 'INITIALLY', 'INNER', 'INSERT', 'INSTEAD', 'INTERSECT', 'INTO', 'IS', 'ISNULL', 'JOIN',
  'KEY', 'LAST', 'LEFT', 'LIKE', 'LIMIT', 'MATCH', 'MATERIALIZED', 'NATURAL', 'NO', 'NOT', 'NOTHING',
  'NOTNULL', 'NULL', 'NULLS', 'OF', 'OFFSET', 'ON', 'OR', 'ORDER', 'OTHERS', 'OUTER', 'OVER',
  'PARTITION', 'PLAN', 'PRAGMA', 'PRECEDING', 'PRIMARY', 'QUERY', 'RAISE', 'RANGE', 'RECURSIVE',
  'REFERENCES', 'REGEXP', 'REINDEX', 'RELEASE', 'RENAME', 'REPLACE', 'RESTRICT', 'RETURNING', 'RIGHT',
  'ROLLBACK', 'ROW', 'ROWS', 'SAVEPOINT', 'SELECT', 'SET', 'TABLE', 'TEMP', 'TEMPORARY', 'THEN', 'TIES',
  'TO', 'TRANSACTION', 'TRIGGER', 'UNBOUNDED', 'UNION', 'UNIQUE', 'UPDATE', 'USING', 'VACUUM', 'VALUES',
  'VIEW', 'VIRTUAL', 'WHEN', 'WHERE', 'WINDOW', 'WITH', 'WITHOUT',
]);

/**
 * The 89 keywords (lower case) that SQLite's `prepare` accepts as an identifier in at least one
 * of: column alias (`SELECT a AS k`), table alias (`FROM t AS k`), column name (`SELECT k FROM t`
 * with `CREATE TABLE t (k …)`). The other 58 are reserved in all three uses.
 *
 * Note `current_date`, `current_time`, `current_timestamp`: accepted as a column name, but
 * `SELECT current_date FROM t` reads the clock, not the column (they are CTIME_KW tokens).
 */
export const SQLITE_IDENTIFIER_KEYWORDS: ReadonlySet<string> = new Set([
  'abort', 'action', 'after', 'always', 'analyze', 'asc', 'attach', 'before', 'begin', 'by', 'cascade',
  'cast', 'column', 'conflict', 'cross', 'current', 'current_date', 'current_time', 'current_timestamp',
  'database', 'deferred', 'desc', 'detach', 'do', 'end', 'each', 'exclusive', 'exclude', 'explain',
  'fail', 'filter', 'first', 'following', 'for', 'full', 'generated', 'glob', 'groups', 'if', 'ignore',
  'immediate', 'indexed', 'initially', 'inner', 'instead', 'key', 'last', 'left', 'like', 'match',
  'materialized', 'natural', 'no', 'nulls', 'of', 'offset', 'others', 'outer', 'over', 'partition',
  'plan', 'pragma', 'preceding', 'query', 'raise', 'range', 'recursive', 'regexp', 'reindex', 'release',
  'rename', 'replace', 'restrict', 'right', 'rollback', 'row', 'rows', 'savepoint', 'temp', 'temporary',
  'ties', 'trigger', 'unbounded', 'vacuum', 'view', 'virtual', 'window', 'with', 'without',
]);

/** True when `word` (any case) is one of {@link SQLITE_KEYWORDS}. */
export function isSqliteKeyword(word: string): boolean {
  return KEYWORD_SET.has(word.toUpperCase());
}

const KEYWORD_SET: ReadonlySet<string> = new Set(SQLITE_KEYWORDS);
