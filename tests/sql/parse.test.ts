import { describe, expect, it } from 'vitest';
import { DIALECTS, lineLocator, parseSql, positionAt, type ParseResult } from '../../src/sql/parse.js';

/** The parts of a result the tests pin: kind, statement count and first statement type. */
function summary(result: ParseResult): unknown {
  if (!result.ok) return { ok: false, error: result.error };
  if (result.kind === 'cst') return { kind: 'cst', dialect: result.dialect, types: result.program.statements.map((statement) => statement.type) };
  return { kind: 'node-sql-parser', dialect: result.dialect, types: result.ast.map((node) => (node as { type: string }).type) };
}

describe('parseSql', () => {
  it('lists the supported dialects', () => {
    expect(DIALECTS).toEqual(['sqlite', 'postgres', 'mysql', 'bigquery', 'snowflake']);
  });

  it.each([
    ['SELECT a FROM t', 'sqlite', ['select_stmt']],
    ['SELECT a FROM t; SELECT 2', 'sqlite', ['select_stmt', 'select_stmt']],
    ['SELECT a FROM t INTERSECT SELECT a FROM u', 'sqlite', ['compound_select_stmt']],
    ['SELECT a FROM t EXCEPT SELECT a FROM u', 'sqlite', ['compound_select_stmt']],
    ['SELECT [a b] FROM t', 'sqlite', ['select_stmt']],
    ['SELECT count(*) FILTER (WHERE x > 1) FROM t', 'sqlite', ['select_stmt']],
    ['SELECT a IS NOT DISTINCT FROM b FROM t', 'sqlite', ['select_stmt']],
    ['SELECT ? , :name, $x', 'sqlite', ['select_stmt']],
    ['', 'sqlite', ['empty']],
    ['SELECT a::int FROM t', 'postgres', ['select_stmt']],
    ['SELECT `a` FROM t', 'mysql', ['select_stmt']],
    ['SELECT a FROM `p.d.t`', 'bigquery', ['select_stmt']],
  ] as const)('reads %j in %s with sql-parser-cst', (sql, dialect, types) => {
    expect(summary(parseSql(sql, dialect))).toEqual({ kind: 'cst', dialect, types });
  });

  it('keeps source ranges on nodes', () => {
    const result = parseSql('SELECT a FROM t', 'sqlite');
    expect(result.ok && result.kind === 'cst' && result.program.statements[0]!.range).toEqual([0, 15]);
  });

  it('reads Snowflake with node-sql-parser', () => {
    expect(summary(parseSql('SELECT a FROM t QUALIFY x = 1', 'snowflake'))).toEqual({ kind: 'node-sql-parser', dialect: 'snowflake', types: ['select'] });
  });

  it.each([
    ['SELECT a FROM\nWHERE', 'sqlite', { message: 'Syntax Error: Unexpected "WHERE"', line: 2, column: 1 }],
    // SQLite accepts an empty IN list; the AST layer does not (the engine stays the authority for SQLite).
    ['SELECT * FROM t WHERE a IN ()', 'sqlite', { message: 'Syntax Error: Unexpected ")"', line: 1, column: 29 }],
  ] as const)('reports %j in %s with a 1-based position', (sql, dialect, error) => {
    expect(parseSql(sql, dialect)).toEqual({ ok: false, dialect, error });
  });

  it('reports node-sql-parser failures with a position', () => {
    const result = parseSql('SELECT FROM', 'snowflake');
    expect(result.ok).toBe(false);
    expect(!result.ok && { line: result.error.line, column: result.error.column }).toEqual({ line: 1, column: 12 });
  });

  it('throws TypeError for an unknown dialect', () => {
    expect(() => parseSql('SELECT 1', 'oracle' as never)).toThrow(new TypeError('dialect must be one of sqlite, postgres, mysql, bigquery, snowflake; received "oracle"'));
  });
});

/** `positionAt` and a `lineLocator` of the same text: the same conversion, one offset or many. */
const converters: [string, (sql: string, offset: number) => { line: number; column: number }][] = [
  ['positionAt', positionAt],
  ['lineLocator', (sql, offset) => lineLocator(sql)(offset)],
];

describe.each(converters)('%s', (_name, convert) => {
  it.each([
    ['abc', 0, { line: 1, column: 1 }],
    ['abc', 2, { line: 1, column: 3 }],
    ['a\nbc\nd', 1, { line: 1, column: 2 }],
    ['a\nbc\nd', 2, { line: 2, column: 1 }],
    ['a\nbc\nd', 4, { line: 2, column: 3 }],
    ['a\nbc\nd', 5, { line: 3, column: 1 }],
    ['a\n', 2, { line: 2, column: 1 }],
    ['\n\n\n', 3, { line: 4, column: 1 }],
    ['ab', 9, { line: 1, column: 10 }],
  ])('%j at %i', (sql, offset, position) => {
    expect(convert(sql, offset)).toEqual(position);
  });
});

describe('lineLocator', () => {
  it('gives, for every offset of a multi-line text, one more line than the newlines before it and the column after the last of them', () => {
    const sql = 'SELECT a,\n  b\nFROM t\n\nWHERE c = 1\n';
    const locate = lineLocator(sql);
    const offsets = Array.from({ length: sql.length + 3 }, (_, offset) => offset);
    const byScan = (offset: number) => {
      const before = sql.slice(0, offset);
      return { line: before.split('\n').length, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
    };
    expect(offsets.map(locate)).toEqual(offsets.map(byScan));
    expect(locate(sql.indexOf('WHERE'))).toEqual({ line: 5, column: 1 });
  });
});

describe('parseSql: SQLite keywords used as identifiers', () => {
  it.each([
    ['SELECT a AS full FROM t', [{ start: 12, end: 16, word: 'full' }]],
    ['SELECT left.a FROM t AS left', [{ start: 7, end: 11, word: 'left' }, { start: 24, end: 28, word: 'left' }]],
    ['SELECT * FROM Match', [{ start: 14, end: 19, word: 'Match' }]],
    ['SELECT window FROM t ORDER BY natural', [{ start: 7, end: 13, word: 'window' }, { start: 30, end: 37, word: 'natural' }]],
  ])('%s is read with %j quoted, ranges in the original text', (sql, quoted) => {
    const parsed = parseSql(sql, 'sqlite');
    if (!parsed.ok || parsed.kind !== 'cst') throw new Error('expected a tree');
    expect(parsed.quotedKeywords).toEqual(quoted);
    const statement = parsed.program.statements[0]!;
    expect(statement.range).toEqual([0, sql.length]);
  });

  it('keywords used as keywords are never quoted, and a text that parses is left alone', () => {
    const parsed = parseSql('SELECT a FROM t LEFT JOIN u USING (a) NATURAL JOIN v', 'sqlite');
    expect(parsed.ok && parsed.kind === 'cst' && parsed.quotedKeywords).toBe(undefined);
  });

  it('a text that fails for another reason keeps its own error', () => {
    expect(parseSql('SELECT a AS full FROM WHERE', 'sqlite')).toEqual({ ok: false, dialect: 'sqlite', error: { message: 'Syntax Error: Unexpected " "', line: 1, column: 17 } });
  });

  it('only SQLite is repaired: postgres keeps the parser verdict', () => {
    expect(parseSql('SELECT left FROM t', 'postgres').ok).toBe(false);
    expect(parseSql('SELECT left FROM t', 'sqlite').ok).toBe(true);
  });
});
