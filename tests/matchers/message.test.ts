import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { describeValue } from '../../matchers/arguments.js';
import { formatCell, formatIssues, formatTable, formatVerdict, MAX_RECEIVED_CHARS, MAX_SOURCE_LINE_CHARS, MAX_TABLE_CELL_CHARS } from '../../matchers/message.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import { useGenerousParseBudget } from '../helpers/depth-limit.js';

describe('formatCell', () => {
  it.each([
    [null, 'NULL'],
    ['Ada', "'Ada'"],
    ["it's", "'it''s'"],
    ['', "''"],
    [42, '42'],
    [175.5, '175.5'],
    [2n ** 53n + 1n, '9007199254740993'],
    [new Uint8Array([10, 27]), "x'0a1b'"],
  ])('prints %o as %s', (cell, text) => {
    expect(formatCell(cell)).toBe(text);
  });
});

describe('formatTable', () => {
  it('aligns columns and keeps duplicate names', () => {
    expect(formatTable(['id', 'id', 'name'], [[1, 10, 'Ada'], [200, null, 'Grace']])).toMatchInlineSnapshot(`
      "  | id  | id   | name    |
        |-----|------|---------|
        | 1   | 10   | 'Ada'   |
        | 200 | NULL | 'Grace' |"
    `);
  });

  it('cuts cells longer than MAX_TABLE_CELL_CHARS', () => {
    const table = formatTable(['note'], [['x'.repeat(100)]], 0);
    expect(table.split('\n')[2]).toBe(`| '${'x'.repeat(MAX_TABLE_CELL_CHARS - 2)}… |`);
  });

  it('prints only the header for no rows', () => {
    expect(formatTable(['n'], [], 0)).toBe('| n |\n|---|');
  });
});

describe('formatIssues', () => {
  it('prints position, kind, message and did-you-mean', () => {
    expect(
      formatIssues([
        { kind: 'unknown_column', message: 'no such column: nme', line: 2, column: 8, suggestion: 'name' },
        { kind: 'write_statement', message: 'DELETE is not a query' },
      ]),
    ).toMatchInlineSnapshot(`
      "Issues:
        line 2, column 8  unknown_column  no such column: nme (did you mean "name"?)
        write_statement  DELETE is not a query"
    `);
  });

  it('is empty for no issues', () => {
    expect(formatIssues([])).toBe('');
  });

  it('prints a window of a long source line around the caret', () => {
    const source = `SELECT ${'a, '.repeat(500)}nme, ${'b, '.repeat(500)}c FROM t`;
    const column = source.indexOf('nme') + 1;
    const [, line, caret] = formatIssues([{ kind: 'unknown_column', message: 'no such column: nme', line: 1, column }], source).split('\n').slice(1);
    expect(line!.trim().length).toBe(MAX_SOURCE_LINE_CHARS + 2);
    expect(line!.trim().startsWith('…') && line!.trim().endsWith('…')).toBe(true);
    // The caret still points at the column.
    expect(line![caret!.indexOf('^')] + line!.slice(caret!.indexOf('^') + 1, caret!.indexOf('^') + 3)).toBe('nme');
  });
});

describe('failing matchers on huge SQL', () => {
  // The depth limit decides, not the 2 s parse budget a loaded machine can run out of first.
  useGenerousParseBudget();

  function messageOf(run: () => void): string {
    try {
      run();
    } catch (error) {
      return stripVTControlCharacters((error as Error).message);
    }
    throw new Error('the assertion passed');
  }

  it('cut the received text, so whitespace-heavy SQL costs no more than short SQL', () => {
    // 90 000 spaces: the runner's printer took 41 s on such a received text (100 000 spaces).
    const sql = `SELECT${' '.repeat(90_000)}name FROM`;
    const message = messageOf(() => expect(sql).toBeSafeSql({ maxLimit: 10 }));
    expect(message).toContain(`… (+${sql.length - MAX_RECEIVED_CHARS} characters)`);
    expect(message.length).toBeLessThan(10_000);
  });

  it('report a 10 000-term chain as not analysed within budget instead of throwing', () => {
    const sql = `SELECT * FROM t WHERE ${Array.from({ length: 10_000 }, () => 'a = 1').join(' OR ')}`;
    const message = messageOf(() => expect(sql).toBeSafeSql());
    expect(message).toContain('L3 safety failed: not_analysed: cannot be analysed, failing closed: not analysed within budget: the parse tree is more than 1100 levels deep');
  });
});

describe('formatVerdict', () => {
  it.each([
    ['pass', 'L1 syntax passed: one query'],
    ['fail', 'L1 syntax failed: one query'],
    ['skipped', 'L1 syntax skipped: one query'],
    ['unscored', 'L1 syntax unscored: one query'],
  ] as const)('names the rung and the %s status', (status, text) => {
    expect(formatVerdict(createRungResult({ rung: 'syntax', status, reason: 'one query', details: null }))).toBe(text);
  });
});

describe('describeValue', () => {
  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [42, 'a number (42)'],
    [true, 'a boolean (true)'],
    ['SELECT 1', 'a string ("SELECT 1")'],
    [[1, 2], 'an array ([1,2])'],
    [{ a: 1 }, 'an object'],
    [5n, 'a bigint (5n)'],
  ])('describes %o as %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });
});
