import { describe, expect, it } from 'vitest';
import { checkPreparedStatement, checkQueryText, firstTokenStart } from '../../../src/engine/sqlite/query-gate.js';
import { splitStatements, tokenizeSqlite } from '../../../src/sql/sqlite-lexer.js';

/** The gate's verdict read from the full token list, as the gate reads every text it cannot settle on its first word. */
function tokenVerdict(sql: string): string {
  if (sql.includes('\0')) return 'nul';
  const statements = splitStatements(tokenizeSqlite(sql));
  if (statements.length !== 1) return statements.length === 0 ? 'empty_statement' : 'multiple_statements';
  const first = statements[0]![0]!;
  return first.kind === 'word' && ['select', 'with', 'values'].includes(first.value.toLowerCase()) ? 'pass' : 'not_a_query';
}

/** The code of checkQueryText's verdict ('pass' when it lets the text through; 'nul' for the NUL refusal). */
function gateVerdict(sql: string): string {
  const error = checkQueryText(sql);
  if (error === undefined) return 'pass';
  return error.message.startsWith('unrecognized token: a NUL') ? 'nul' : error.code;
}

/** Deterministic texts over an alphabet of what changes a statement's boundaries or first token. */
function trickyTexts(count: number, seed: number): string[] {
  const pieces = ['SELECT', 'select', 'WITH', 'VALUES', 'PRAGMA', 'x', '1', '.5', ' ', '\n', '\t', '\uFEFF', ';', ';', "'", '"', '`', '[', ']', '--', '/*', '*/', '-', '/', '(', 'é', '$a', '_b', '\v', '\f', '\r'];
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state;
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + (next() % 9) }, () => pieces[next() % pieces.length]).join(''));
}

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
    ['SELECT 1\0; DELETE FROM t', 'syntax_error', 'unrecognized token: a NUL character at line 1, column 9; SQLite stops reading SQL text at a NUL, so the text is refused'],
    ["SELECT 'a\n\0b'", 'syntax_error', 'unrecognized token: a NUL character at line 2, column 1; SQLite stops reading SQL text at a NUL, so the text is refused'],
  ])('refuses %j with %s', (sql, code, message) => {
    expect(checkQueryText(sql)).toEqual({ code, message });
  });
});

describe('checkQueryText reading only the first word', () => {
  it('gives the full token list’s verdict on 20 000 generated texts and on the cases where a `;` ends the text', () => {
    const texts = [
      ...trickyTexts(20_000, 7),
      'SELECT 1;',
      'SELECT 1 ;; \n ;',
      "SELECT 'a;",
      'SELECT "a;',
      'SELECT 1 /* ;',
      'SELECT 1 -- ;',
      'SELECT 1 -- x\n;',
      'SELECT 1; ;x',
      'SELECT 1; -- end',
      ';SELECT 1',
      '  ;  ',
      '/* SELECT */ PRAGMA x;',
      '\uFEFFSELECT 1;',
      'SELECT\uFEFF1;',
    ];
    const differing = texts.filter((sql) => gateVerdict(sql) !== tokenVerdict(sql));
    expect(differing).toEqual([]);
    // The generated texts reach every verdict, the shortcut's included.
    expect(new Set(texts.map(gateVerdict))).toEqual(new Set(['pass', 'empty_statement', 'multiple_statements', 'not_a_query']));
  });

  it('firstTokenStart is where the tokenizer’s first token starts', () => {
    const differing = trickyTexts(20_000, 11).filter((sql) => firstTokenStart(sql) !== (tokenizeSqlite(sql)[0]?.start ?? sql.length));
    expect(differing).toEqual([]);
    expect(firstTokenStart(' -- a\n /* b */ SELECT')).toBe(15);
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
