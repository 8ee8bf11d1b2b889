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
 * - PostgreSQL: the common pure functions plus PostgreSQL's own string, date/time, math, array,
 *   JSON, range and full-text functions (PostgreSQL 15 manual, Functions and Operators, chapter 9).
 *   Blocked with a reason (chapter 9.27, System Administration Functions, and the contrib
 *   modules): server files (`pg_read_file`, `pg_ls_dir`, `pg_stat_file`, adminpack's
 *   `pg_file_write`), large objects (`lo_import`, `lo_export`, every `lo_*`), other servers (every
 *   `dblink*`), settings (`set_config`), sleeping (`pg_sleep*`), other sessions
 *   (`pg_terminate_backend`, `pg_cancel_backend`), advisory locks (every `pg_advisory_*`,
 *   `pg_try_advisory_*`), `pg_notify`, server control (`pg_reload_conf`, `pg_rotate_logfile`,
 *   `pg_promote`, `pg_switch_wal`, backups, replication slots), sequences (`nextval`, `setval`),
 *   and SQL run from a string (`query_to_xml`, `table_to_xml`, … which read what the static
 *   checks never see).
 * - MySQL / BigQuery / Snowflake: the common pure functions (aggregates, window, string, numeric,
 *   date); side-effect functions named in *Text-to-SQL Evals* §3.3 and the vendors' docs are
 *   blocked with a reason.
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

/** PostgreSQL's own pure functions, beside {@link COMMON_FUNCTIONS} (PostgreSQL 15 manual, chapter 9). */
const POSTGRES_FUNCTIONS = [
  // string
  'btrim', 'chr', 'ascii', 'translate', 'to_hex', 'quote_ident', 'quote_literal', 'quote_nullable', 'string_to_array',
  'array_to_string', 'regexp_match', 'regexp_matches', 'regexp_split_to_array', 'regexp_split_to_table', 'regexp_count',
  'regexp_instr', 'starts_with', 'octet_length', 'bit_length', 'overlay', 'normalize', 'unistr', 'to_ascii',
  'encode', 'decode', 'convert_from', 'convert_to', 'sha224', 'sha256', 'sha384', 'sha512',
  // date and time
  'date_bin', 'make_time', 'make_timestamp', 'make_timestamptz', 'make_interval', 'justify_hours',
  'justify_interval', 'isfinite', 'timezone', 'timeofday',
  // function-style casts
  'date', 'time', 'timestamp', 'timestamptz', 'interval', 'numeric', 'text', 'int', 'int2', 'int4', 'int8', 'float4', 'float8', 'bool',
  // math and aggregates
  'cbrt', 'degrees', 'radians', 'factorial', 'gcd', 'lcm', 'min_scale', 'scale', 'trim_scale', 'pi', 'acos', 'asin',
  'atan', 'atan2', 'cos', 'cot', 'sin', 'tan', 'sinh', 'cosh', 'tanh', 'random', 'log2', 'bit_and', 'bit_or', 'bit_xor',
  'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy', 'regr_syy',
  'grouping', 'num_nulls', 'num_nonnulls', 'xmlagg',
  // arrays
  'unnest', 'generate_series', 'generate_subscripts', 'array_lower', 'array_upper', 'array_position', 'array_positions',
  'array_remove', 'array_replace', 'array_append', 'array_prepend', 'array_cat', 'array_dims', 'array_ndims', 'array_fill',
  'trim_array',
  // JSON
  'to_json', 'to_jsonb', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'json_build_object',
  'jsonb_build_object', 'json_build_array', 'jsonb_build_array', 'json_object', 'jsonb_object', 'row_to_json',
  'array_to_json', 'json_extract_path', 'jsonb_extract_path', 'json_extract_path_text', 'jsonb_extract_path_text',
  'json_array_elements', 'jsonb_array_elements', 'json_array_elements_text', 'jsonb_array_elements_text', 'json_each',
  'jsonb_each', 'json_each_text', 'jsonb_each_text', 'json_object_keys', 'jsonb_object_keys', 'json_typeof',
  'jsonb_typeof', 'json_array_length', 'jsonb_array_length', 'json_strip_nulls', 'jsonb_strip_nulls', 'jsonb_set',
  'jsonb_insert', 'jsonb_pretty', 'jsonb_path_query', 'jsonb_path_query_array', 'jsonb_path_query_first',
  'jsonb_path_exists', 'jsonb_path_match', 'json_populate_record', 'jsonb_populate_record', 'json_to_record',
  'jsonb_to_record', 'json_to_recordset', 'jsonb_to_recordset',
  // ranges and full text
  'lower_inc', 'upper_inc', 'lower_inf', 'upper_inf', 'isempty', 'range_merge', 'int4range', 'int8range', 'numrange',
  'tsrange', 'tstzrange', 'daterange', 'to_tsvector', 'to_tsquery', 'plainto_tsquery', 'phraseto_tsquery',
  'websearch_to_tsquery', 'ts_rank', 'ts_rank_cd', 'ts_headline', 'setweight', 'strip', 'numnode',
  // information without side effects
  'pg_typeof', 'gen_random_uuid', 'format_type', 'current_database', 'current_schema', 'current_schemas', 'version',
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
  pg_ls_logdir: 'lists a server directory',
  pg_ls_waldir: 'lists a server directory',
  pg_ls_tmpdir: 'lists a server directory',
  pg_ls_archive_statusdir: 'lists a server directory',
  pg_file_write: 'writes a file on the server (adminpack)',
  pg_file_rename: 'renames a file on the server (adminpack)',
  pg_file_unlink: 'removes a file on the server (adminpack)',
  pg_logdir_ls: 'lists the server\'s log directory (adminpack)',
  pg_notify: 'sends a notification to other sessions',
  pg_rotate_logfile: 'rotates the server\'s log file',
  pg_promote: 'promotes a standby server',
  pg_switch_wal: 'forces a write-ahead-log switch',
  pg_create_restore_point: 'writes a restore point into the write-ahead log',
  pg_backup_start: 'starts a server backup',
  pg_backup_stop: 'ends a server backup',
  pg_start_backup: 'starts a server backup',
  pg_stop_backup: 'ends a server backup',
  pg_create_physical_replication_slot: 'creates a replication slot (keeps WAL on the server)',
  pg_create_logical_replication_slot: 'creates a replication slot (keeps WAL on the server)',
  pg_drop_replication_slot: 'drops a replication slot',
  pg_logical_emit_message: 'writes a message into the write-ahead log',
  pg_log_backend_memory_contexts: 'writes another backend\'s memory into the server log',
  pg_import_system_collations: 'creates collations in a schema',
  pg_export_snapshot: 'exports the transaction\'s snapshot to other sessions',
  query_to_xml: 'runs SQL given as a string (hidden from the static checks)',
  query_to_xmlschema: 'runs SQL given as a string (hidden from the static checks)',
  query_to_xml_and_xmlschema: 'runs SQL given as a string (hidden from the static checks)',
  cursor_to_xml: 'reads a cursor by name (hidden from the static checks)',
  table_to_xml: 'reads a table named in a string (hidden from the static checks)',
  table_to_xmlschema: 'reads a table named in a string (hidden from the static checks)',
  table_to_xml_and_xmlschema: 'reads a table named in a string (hidden from the static checks)',
  schema_to_xml: 'reads every table of a schema (hidden from the static checks)',
  schema_to_xml_and_xmlschema: 'reads every table of a schema (hidden from the static checks)',
  database_to_xml: 'reads every table of the database (hidden from the static checks)',
  database_to_xml_and_xmlschema: 'reads every table of the database (hidden from the static checks)',
  xp_cmdshell: 'runs an operating-system command',
  sys_exec: 'runs an operating-system command',
};

/**
 * Families of side-effect functions blocked by name prefix (PostgreSQL's large objects, dblink and
 * advisory locks have many members), with the reason shown to the user.
 */
const BLOCKED_PREFIXES: readonly (readonly [prefix: string, reason: string])[] = [
  ['dblink', 'opens a connection to another database (dblink)'],
  ['lo_', 'reads or writes a large object (server files through lo_import / lo_export)'],
  ['pg_advisory_', 'takes or releases an advisory lock (blocks other sessions)'],
  ['pg_try_advisory_', 'takes an advisory lock (blocks other sessions)'],
  ['pg_read_', 'reads a file from the server'],
  ['pg_sleep', 'holds a connection for a chosen time'],
  ['pg_replication_origin_', 'changes replication state'],
];

/** The reason a function is blocked, by its lower-case last name part; `undefined` when it is not. */
export function blockedReason(name: string): string | undefined {
  const exact = BLOCKED_FUNCTIONS[name];
  if (exact !== undefined) return exact;
  return BLOCKED_PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** Table functions that are never allowed, whatever `allowTableFunctions` says: SQLite pragmas. */
export function isPragmaFunction(name: string): boolean {
  return name.toLowerCase().startsWith('pragma_');
}

const ALLOWED: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  sqlite: new Set(SQLITE_FUNCTIONS),
  postgres: new Set([...COMMON_FUNCTIONS, ...POSTGRES_FUNCTIONS]),
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
  const blocked = blockedReason(last);
  if (blocked !== undefined) return { allowed: false, kind: 'blocked_function', reason: blocked };
  if (last.startsWith('system$')) return { allowed: false, kind: 'blocked_function', reason: 'a Snowflake system function' };
  const qualifierOk = parts.length === 1 || (parts.length === 2 && (parts[0] === 'pg_catalog' || parts[0] === 'main'));
  if (qualifierOk && ALLOWED[dialect].has(last)) return { allowed: true };
  return { allowed: false, kind: 'unknown_function', reason: `not on the ${dialect} allow-list of pure functions` };
}
