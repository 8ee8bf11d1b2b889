/**
 * The table-valued functions (eponymous virtual tables) SQLite offers without a CREATE VIRTUAL
 * TABLE, in the SQLite that better-sqlite3 12 bundles (3.53.2). A name in FROM position outside
 * this list and outside the catalog is `no such table` for SQLite (`pragma_nosuchthing(0)`,
 * `generate_series(1, 3)`: the shell's extension, not in this library build).
 *
 * Measured: every `pragma_<name>` below prepares as `SELECT * FROM pragma_<name>`, which is
 * exactly the PRAGMAs of `pragma_pragma_list` that return rows and have no side effect
 * (https://www.sqlite.org/pragma.html#pragfunc); `json_each`, `json_tree`, `jsonb_each`,
 * `jsonb_tree` (json.c), `dbstat` (`SQLITE_ENABLE_DBSTAT_VTAB`) and `fts3tokenize` prepare too.
 * tests/sql/sqlite-table-functions.test.ts checks the list against the bundled SQLite.
 */

/** PRAGMAs readable as `pragma_<name>` table-valued functions. */
export const SQLITE_PRAGMA_TABLE_FUNCTIONS: readonly string[] = [
  'analysis_limit', 'application_id', 'auto_vacuum', 'automatic_index', 'busy_timeout', 'cache_size',
  'cache_spill', 'cell_size_check', 'checkpoint_fullfsync', 'collation_list', 'compile_options',
  'count_changes', 'data_version', 'database_list', 'defer_foreign_keys', 'empty_result_callbacks',
  'encoding', 'foreign_key_check', 'foreign_key_list', 'foreign_keys', 'freelist_count',
  'full_column_names', 'fullfsync', 'function_list', 'hard_heap_limit', 'ignore_check_constraints',
  'index_info', 'index_list', 'index_xinfo', 'integrity_check', 'journal_mode', 'journal_size_limit',
  'legacy_alter_table', 'locking_mode', 'max_page_count', 'module_list', 'optimize', 'page_count',
  'page_size', 'pragma_list', 'query_only', 'quick_check', 'read_uncommitted', 'recursive_triggers',
  'reverse_unordered_selects', 'schema_version', 'secure_delete', 'short_column_names',
  'soft_heap_limit', 'synchronous', 'table_info', 'table_list', 'table_xinfo', 'temp_store', 'threads',
  'trusted_schema', 'user_version', 'writable_schema',
];

/** Other eponymous virtual tables of this build. */
export const SQLITE_OTHER_TABLE_FUNCTIONS: readonly string[] = ['dbstat', 'fts3tokenize', 'json_each', 'json_tree', 'jsonb_each', 'jsonb_tree'];

const KNOWN: ReadonlySet<string> = new Set([...SQLITE_PRAGMA_TABLE_FUNCTIONS.map((name) => `pragma_${name}`), ...SQLITE_OTHER_TABLE_FUNCTIONS]);

/**
 * True when `name` (case-insensitive; `main.json_each` and `temp.json_each` count as
 * `json_each`) is a table-valued function this SQLite offers.
 */
export function isSqliteTableFunction(name: string): boolean {
  const lowered = name.toLowerCase();
  const last = lowered.slice(lowered.lastIndexOf('.') + 1);
  return KNOWN.has(last);
}
