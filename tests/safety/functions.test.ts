import { describe, expect, it } from 'vitest';
import { checkFunction } from '../../src/safety/functions.js';
import type { Dialect } from '../../src/sql/parse.js';

describe('checkFunction', () => {
  it.each<[string, Dialect, string]>([
    ['upper', 'sqlite', 'allowed'],
    ['STRFTIME', 'sqlite', 'allowed'],
    ['json_extract', 'sqlite', 'allowed'],
    ['row_number', 'sqlite', 'allowed'],
    ['randomblob', 'sqlite', 'allowed'],
    ['load_extension', 'sqlite', 'blocked_function'],
    ['readfile', 'sqlite', 'blocked_function'],
    ['writefile', 'sqlite', 'blocked_function'],
    ['edit', 'sqlite', 'blocked_function'],
    ['fts3_tokenizer', 'sqlite', 'blocked_function'],
    ['last_insert_rowid', 'sqlite', 'unknown_function'],
    ['my_udf', 'sqlite', 'unknown_function'],
    ['date_trunc', 'postgres', 'allowed'],
    ['now', 'postgres', 'allowed'],
    ['CURRENT_TIMESTAMP', 'bigquery', 'allowed'],
    ['curdate', 'mysql', 'allowed'],
    ['pg_catalog.upper', 'postgres', 'allowed'],
    ['evil.upper', 'postgres', 'unknown_function'],
    ['pg_sleep', 'postgres', 'blocked_function'],
    ['set_config', 'postgres', 'blocked_function'],
    ['pg_read_file', 'postgres', 'blocked_function'],
    ['nextval', 'postgres', 'blocked_function'],
    ['dblink_exec', 'postgres', 'blocked_function'],
    ['lo_import', 'postgres', 'blocked_function'],
    ['sleep', 'mysql', 'blocked_function'],
    ['load_file', 'mysql', 'blocked_function'],
    ['system$wait', 'snowflake', 'blocked_function'],
  ])('%s (%s) → %s', (name, dialect, expected) => {
    const verdict = checkFunction(name, dialect);
    expect(verdict.allowed ? 'allowed' : verdict.kind).toBe(expected);
  });

  it('extra names from the policy are allowed; blocked names stay blocked only when not listed', () => {
    expect(checkFunction('my_udf', 'sqlite', ['MY_UDF']).allowed).toBe(true);
  });
});
