import { describe, expect, it } from 'vitest';
import { checkPreparedStatement, checkQueryText } from '../../../src/engine/sqlite/query-gate.js';

describe('checkQueryText', () => {
  it.each([
    'SELECT 1',
    'select 1;',
    '  -- why\n  WITH x AS (SELECT 1) SELECT * FROM x;',
    'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c',
    'VALUES (1, 2), (3, 4)',
    '/* a */ SeLeCt 2 ;; ',
  ])('lets %j through', (sql) => {
    expect(checkQueryText(sql)).toBeUndefined();
  });

  it.each([
    ['', 'empty_statement', 'empty statement: the text holds no SQL (only whitespace, comments or semicolons)'],
    [' ; -- nothing', 'empty_statement', 'empty statement: the text holds no SQL (only whitespace, comments or semicolons)'],
    ['SELECT 1; SELECT 2', 'multiple_statements', 'multiple statements: the text holds 2 statements; exactly one query runs'],
    ['SELECT 1; PRAGMA query_only = 0', 'multiple_statements', 'multiple statements: the text holds 2 statements; exactly one query runs'],
    ['PRAGMA query_only = 0', 'not_a_query', 'not a query: the statement starts with PRAGMA; only SELECT, WITH … SELECT and VALUES run'],
    ["VACUUM INTO '/tmp/copy.db'", 'not_a_query', 'not a query: the statement starts with VACUUM; only SELECT, WITH … SELECT and VALUES run'],
    ['explain select 1', 'not_a_query', 'not a query: the statement starts with EXPLAIN; only SELECT, WITH … SELECT and VALUES run'],
    ['(SELECT 1)', 'not_a_query', 'not a query: the statement starts with "("; only SELECT, WITH … SELECT and VALUES run'],
    ['"select" 1', 'not_a_query', 'not a query: the statement starts with "select"; only SELECT, WITH … SELECT and VALUES run'],
    // SQLite would run `SELECT 1` and never read the rest.
    ['SELECT 1\0; DELETE FROM t', 'sqlite_error', 'unrecognized token: a NUL character at line 1, column 9; SQLite stops reading SQL text at a NUL, so the text is refused'],
    ["SELECT 'a\n\0b'", 'sqlite_error', 'unrecognized token: a NUL character at line 2, column 1; SQLite stops reading SQL text at a NUL, so the text is refused'],
  ])('refuses %j with %s', (sql, code, message) => {
    expect(checkQueryText(sql)).toEqual({ code, message });
  });
});

describe('checkPreparedStatement', () => {
  it.each([
    [{ readonly: true, reader: true }, undefined],
    [{ readonly: false, reader: true }, { code: 'not_a_query', message: 'not a query: SQLite reports that the statement writes (e.g. WITH … INSERT/UPDATE/DELETE)' }],
    [{ readonly: true, reader: false }, { code: 'not_a_query', message: 'not a query: the statement returns no rows' }],
  ])('%j → %j', (statement, expected) => {
    expect(checkPreparedStatement(statement)).toEqual(expected);
  });
});
