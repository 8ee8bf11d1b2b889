/**
 * Function allow-lists for the L3 safety rung. A function call passes only when its name is on
 * the dialect's allow-list (or in the policy's `allowedFunctions`); everything else is blocked —
 * named side-effect functions with their own reason, unknown functions as `unknown_function`.
 * That is the failure direction a guardrail needs (*Text-to-SQL Evals* §3.3: "block all unknown
 * functions until you vet them").
 *
 * Sources:
 * - SQLite: the built-in scalar, aggregate, window, date/time, math and JSON functions
 *   (https://www.sqlite.org/lang_corefunc.html, lang_aggfunc.html, windowfunctions.html#builtins,
 *   lang_datefunc.html, lang_mathfunc.html, json1.html). Left out on purpose: `load_extension`
 *   (loads code), the shell-only `readfile` / `writefile` / `edit` (file access), `fts3_tokenizer`
 *   (pointer injection, CVE-2015-7036), and the connection-state readers `changes`,
 *   `last_insert_rowid`, `total_changes`, `sqlite_offset`, `sqlite_compileoption_*`.
 *   `random`, `randomblob` and `zeroblob` are kept: they change nothing, and their resource use is
 *   bounded by the engine's deadline and memory cap, not by this list.
 * - PostgreSQL / MySQL / BigQuery / Snowflake: the common pure functions (aggregates, window,
 *   string, numeric, date); side-effect functions named in *Text-to-SQL Evals* §3.3 and the vendors'
 *   docs are blocked with a reason.
 */
import type { Dialect } from '../sql/parse.js';

const SQLITE_FUNCTIONS = [
  // core scalar
  'abs', 'char', 'coalesce', 'concat', 'concat_ws', 'format', 'glob', 'hex', 'ifnull', 'iif', 'if', 'instr',
  'length', 'like', 'likelihood', 'likely', 'lower', 'ltrim', 'max', 'min', 'nullif', 'octet_length',
  'printf', 'quote', 'random', 'randomblob', 'replace', 'round', 'rtrim', 'sign', 'soundex', 'substr',
  'substring', 'trim', 'typeof', 'unhex', 'unicode', 'unistr', 'unistr_quote', 'unlikely', 'upper',
  'zeroblob', 'sqlite_version',
  // date and time; CURRENT_DATE / CURRENT_TIME / CURRENT_TIMESTAMP are keywords (lang_expr.html)
  // that the parser reads as calls without parentheses
  'date', 'time', 'datetime', 'julianday', 'unixepoch', 'strftime', 'timediff',
  'current_date', 'current_time', 'current_timestamp',
  // aggregates
  'avg', 'count', 'group_concat', 'string_agg', 'sum', 'total', 'median', 'percentile', 'percentile_cont', 'percentile_disc',
  // window
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value',
  'last_value', 'nth_value',
  // math
  'acos', 'acosh', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'ceil', 'ceiling', 'cos', 'cosh', 'degrees',
  'exp', 'floor', 'ln', 'log', 'log10', 'log2', 'mod', 'pi', 'pow', 'power', 'radians', 'sin', 'sinh',
  'sqrt', 'tan', 'tanh', 'trunc',
  // JSON
  'json', 'jsonb', 'json_array', 'jsonb_array', 'json_array_length', 'json_error_position', 'json_extract',
  'jsonb_extract', 'json_insert', 'jsonb_insert', 'json_object', 'jsonb_object', 'json_patch', 'jsonb_patch',
  'json_pretty', 'json_remove', 'jsonb_remove', 'json_replace', 'jsonb_replace', 'json_set', 'jsonb_set',
  'json_type', 'json_valid', 'json_quote', 'json_group_array', 'jsonb_group_array', 'json_group_object',
  'jsonb_group_object',
] as const;

/** Pure functions most SQL engines share (names as the vendors document them, lower-case). */
const COMMON_FUNCTIONS = [
  'abs', 'avg', 'count', 'sum', 'min', 'max', 'coalesce', 'nullif', 'lower', 'upper', 'length', 'char_length',
  'character_length', 'substring', 'substr', 'trim', 'ltrim', 'rtrim', 'replace', 'round', 'floor', 'ceil',
  'ceiling', 'concat', 'concat_ws', 'left', 'right', 'lpad', 'rpad', 'greatest', 'least', 'mod', 'power', 'pow',
  'sqrt', 'exp', 'ln', 'log', 'log10', 'sign', 'trunc', 'reverse', 'repeat', 'position', 'strpos', 'split_part',
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value',
  'last_value', 'nth_value', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  'percentile_cont', 'percentile_disc', 'median', 'mode', 'corr', 'covar_pop', 'covar_samp', 'string_agg',
  'array_agg', 'listagg', 'group_concat', 'bool_and', 'bool_or', 'every', 'any_value', 'count_if',
  'date_trunc', 'date_part', 'to_char', 'to_date', 'to_timestamp', 'to_number', 'date_add', 'date_sub',
  'datediff', 'date_diff', 'dateadd', 'date_format', 'timestamp_diff', 'timestamp_trunc', 'extract', 'year',
  'month', 'day', 'dayofweek', 'hour', 'minute', 'second', 'week', 'quarter', 'last_day', 'make_date',
  'ifnull', 'nvl', 'nvl2', 'iff', 'if', 'decode', 'initcap', 'md5', 'format', 'regexp_replace', 'regexp_like',
  'regexp_substr', 'regexp_contains', 'regexp_extract', 'split', 'array_length', 'cardinality', 'safe_divide',
  'div', 'abs', 'cast', 'try_cast', 'to_varchar', 'json_extract', 'json_value', 'json_query', 'parse_json',
  'age', 'justify_days', 'width_bucket', 'round', 'generate_array',
  // the clock: non-deterministic but without side effects (a gold that reads it is a gold-audit
  // finding, not a safety one)
  'now', 'current_date', 'current_time', 'current_timestamp', 'current_datetime', 'localtime', 'localtimestamp',
  'statement_timestamp', 'transaction_timestamp', 'clock_timestamp', 'curdate', 'curtime', 'sysdate',
  'getdate', 'utc_date', 'utc_timestamp', 'unix_timestamp',
] as const;

/**
 * Side-effect functions blocked by name, with the reason shown to the user. Matched on the last
 * part of the name, lower-case.
 */
export const BLOCKED_FUNCTIONS: Readonly<Record<string, string>> = {
  load_extension: 'loads native code into the database process',
  readfile: 'reads a file from the server (SQLite shell)',
  writefile: 'writes a file on the server (SQLite shell)',
  edit: 'starts an editor process (SQLite shell)',
  fts3_tokenizer: 'registers a tokenizer by pointer (CVE-2015-7036)',
  pg_sleep: 'holds a connection for a chosen time',
  pg_sleep_for: 'holds a connection for a chosen time',
  pg_sleep_until: 'holds a connection for a chosen time',
  sleep: 'holds a connection for a chosen time',
  benchmark: 'burns CPU for a chosen number of iterations',
  set_config: 'changes a session setting (e.g. the role)',
  pg_read_file: 'reads a file from the server',
  pg_read_binary_file: 'reads a file from the server',
  pg_ls_dir: 'lists a server directory',
  pg_stat_file: 'reads file metadata on the server',
  lo_import: 'reads a server file into a large object',
  lo_export: 'writes a large object to a server file',
  load_file: 'reads a file from the server (MySQL)',
  nextval: 'advances a sequence (a write)',
  setval: 'sets a sequence (a write)',
  dblink: 'opens a connection to another database',
  dblink_exec: 'runs a statement on another database',
  dblink_connect: 'opens a connection to another database',
  pg_terminate_backend: 'kills another session',
  pg_cancel_backend: 'cancels another session\'s query',
  pg_reload_conf: 'reloads the server configuration',
  get_lock: 'takes a named lock',
  xp_cmdshell: 'runs an operating-system command',
  sys_exec: 'runs an operating-system command',
};

/** Table functions that are never allowed, whatever `allowTableFunctions` says: SQLite pragmas. */
export function isPragmaFunction(name: string): boolean {
  return name.toLowerCase().startsWith('pragma_');
}

const ALLOWED: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  sqlite: new Set(SQLITE_FUNCTIONS),
  postgres: new Set(COMMON_FUNCTIONS),
  mysql: new Set(COMMON_FUNCTIONS),
  bigquery: new Set(COMMON_FUNCTIONS),
  snowflake: new Set(COMMON_FUNCTIONS),
};

/** The verdict on one function name. */
export type FunctionVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly kind: 'blocked_function' | 'unknown_function'; readonly reason: string };

/**
 * Decides whether a scalar, aggregate or window function may be called.
 *
 * @param name - the function name as written (qualified names: the last part is checked, and a
 *   qualifier other than the dialect's catalog schema makes it unknown).
 * @param dialect - the SQL dialect.
 * @param extra - names the policy allows on top of the list (lower-case compared).
 * @example
 * checkFunction('upper', 'sqlite')           // { allowed: true }
 * checkFunction('load_extension', 'sqlite')  // { allowed: false, kind: 'blocked_function', … }
 * checkFunction('my_udf', 'sqlite')          // { allowed: false, kind: 'unknown_function', … }
 */
export function checkFunction(name: string, dialect: Dialect, extra: readonly string[] = []): FunctionVerdict {
  const lowered = name.toLowerCase();
  const parts = lowered.split('.');
  const last = parts[parts.length - 1] ?? lowered;
  if (extra.some((allowed) => allowed.toLowerCase() === lowered || allowed.toLowerCase() === last)) return { allowed: true };
  const blocked = BLOCKED_FUNCTIONS[last];
  if (blocked !== undefined) return { allowed: false, kind: 'blocked_function', reason: blocked };
  if (last.startsWith('system$')) return { allowed: false, kind: 'blocked_function', reason: 'a Snowflake system function' };
  const qualifierOk = parts.length === 1 || (parts.length === 2 && (parts[0] === 'pg_catalog' || parts[0] === 'main'));
  if (qualifierOk && ALLOWED[dialect].has(last)) return { allowed: true };
  return { allowed: false, kind: 'unknown_function', reason: `not on the ${dialect} allow-list of pure functions` };
}
