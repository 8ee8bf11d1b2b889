import { describe, expect, it } from 'vitest';
import { splitStatements, tokenizeSqlite } from '../../src/sql/sqlite-lexer.js';

const shape = (sql: string) => tokenizeSqlite(sql).map((token) => [token.kind, token.value]);

describe('tokenizeSqlite', () => {
  it.each([
    ['SELECT a FROM t', [['word', 'SELECT'], ['word', 'a'], ['word', 'FROM'], ['word', 't']]],
    [`SELECT 'it''s;' -- c;\n`, [['word', 'SELECT'], ['string', "it's;"]]],
    ['SELECT "a""b" /* ; */ ;', [['word', 'SELECT'], ['double_quoted', 'a"b'], ['semicolon', ';']]],
    ['SELECT [x;y], `z`', [['word', 'SELECT'], ['quoted_identifier', 'x;y'], ['punctuation', ','], ['quoted_identifier', 'z']]],
    ['SELECT 1.5e-3, .5, t.c', [['word', 'SELECT'], ['number', '1.5e-3'], ['punctuation', ','], ['number', '.5'], ['punctuation', ','], ['word', 't'], ['punctuation', '.'], ['word', 'c']]],
    ['SELECT "open', [['word', 'SELECT'], ['double_quoted', 'open']]],
    ['/* never closed ; SELECT', []],
    // Identifier characters: letters, digits, `_`, `$` and every code unit from U+0080 (U+007F is not one).
    ['SELECT café$1, x\u007fy, \u0080z, a\uFEFFb', [['word', 'SELECT'], ['word', 'café$1'], ['punctuation', ','], ['word', 'x'], ['punctuation', '\u007f'], ['word', 'y'], ['punctuation', ','], ['word', '\u0080z'], ['punctuation', ','], ['word', 'a\uFEFFb']]],
    ['SELECT 12abc.5_x+1, 1e+5', [['word', 'SELECT'], ['number', '12abc.5_x'], ['punctuation', '+'], ['number', '1'], ['punctuation', ','], ['number', '1e+5']]],
    ['', []],
  ])('%j', (sql, expected) => {
    expect(shape(sql)).toEqual(expected);
  });

  it('gives source offsets that slice back to the raw token', () => {
    const sql = `WHERE x = "A""B"`;
    const token = tokenizeSqlite(sql)[3]!;
    expect([token.start, token.end, sql.slice(token.start, token.end)]).toEqual([10, 16, '"A""B"']);
  });
});

describe('splitStatements', () => {
  it.each([
    ['SELECT 1', 1],
    ['SELECT 1;', 1],
    ['SELECT 1;;  ; -- trailing', 1],
    ['SELECT 1; SELECT 2', 2],
    [`SELECT ';'; `, 1],
    [';', 0],
    ['  /* c */ ', 0],
  ])('%j holds %i statement(s)', (sql, count) => {
    expect(splitStatements(tokenizeSqlite(sql))).toHaveLength(count);
  });
});
