import { describe, expect, it } from 'vitest';
import { parseInWorker } from '../../src/sql/bounded-parse.js';
import { parseSql } from '../../src/sql/parse.js';

const CST = { dialect: 'sqlite', includeRange: true };

describe('parseInWorker', () => {
  it('returns the tree of a query and the message of a syntax error', () => {
    const parsed = parseInWorker('sql-parser-cst', 'SELECT 1', CST);
    expect(parsed.ok && (parsed.value as { statements: { type: string }[] }).statements.map((statement) => statement.type)).toEqual(['select_stmt']);
    const failed = parseInWorker('sql-parser-cst', 'SELEC 1', CST);
    expect(failed).toMatchObject({ ok: false, budget: false });
    expect(failed.ok ? '' : failed.message).toMatch(/^Syntax Error: Unexpected "SELEC"/);
  });

  it('stops a parse that backtracks exponentially at its time budget, then parses the next text', () => {
    // 26 unclosed parentheses: 22 s in the parser (×2 per level).
    const started = performance.now();
    expect(parseInWorker('sql-parser-cst', `SELECT ${'('.repeat(26)}`, CST, 300)).toEqual({
      ok: false,
      budget: true,
      message: 'not analysed within budget: the parser took more than 300 ms',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(parseInWorker('sql-parser-cst', 'SELECT 2', CST)).toMatchObject({ ok: true });
  });

  it('refuses a tree deeper than the analysis walks, in the worker', () => {
    expect(parseInWorker('sql-parser-cst', `SELECT ${'('.repeat(3_000)}1${')'.repeat(3_000)}`, CST)).toEqual({
      ok: false,
      budget: true,
      message: 'not analysed within budget: the parse tree is more than 1100 levels deep',
    });
  });
});

describe('parseSql on pathological text', () => {
  it.each([
    ['a failing expression inside 24 balanced parentheses (about 15 s in the parser)', 'sqlite', `SELECT ${'('.repeat(24)}1 +${')'.repeat(24)}`],
    ['16 nested WITH in PostgreSQL (90 s and "Invalid array length" in the parser)', 'postgres', `WITH ${'a AS (WITH '.repeat(16)}`],
  ] as const)('%s ends within budget', (_case, dialect, sql) => {
    const parsed = parseSql(sql, dialect);
    expect(parsed).toMatchObject({ ok: false, error: { budget: true, message: 'not analysed within budget: the parser took more than 2000 ms' } });
  });

  it.each([
    ['26 unclosed parentheses', `SELECT ${'('.repeat(26)}`, { message: 'Syntax Error: 26 "(" never closed; the first opens here', line: 1, column: 8 }],
    ['a closing parenthesis with none open', "SELECT ')' FROM t)", { message: 'Syntax Error: Unexpected ")": no "(" is open', line: 1, column: 18 }],
  ])('sqlite: %s is a syntax error at once, without the parser', (_case, sql, error) => {
    expect(parseSql(sql, 'sqlite')).toEqual({ ok: false, dialect: 'sqlite', error });
  });
});
