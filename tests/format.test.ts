import { describe, expect, it } from 'vitest';
import { errorText, escapeControls, formatCell, formatPipeTable, formatRow, oneLine, plainCell, truncate, truncateCounted } from '../src/format.js';

describe('format: the one place text, cells and rows are written', () => {
  it('oneLine folds whitespace runs and keeps one-line text as it is', () => {
    expect(oneLine(' SELECT a\n\t FROM t ')).toBe('SELECT a FROM t');
    const text = 'already one line';
    expect(oneLine(text)).toBe(text);
  });
  it('escapeControls writes every control character as its JSON escape; oneLine and errorText apply it', () => {
    expect(escapeControls('\u001b]0;PWNED\u0007\u001b[2J')).toBe('\\u001b]0;PWNED\\u0007\\u001b[2J');
    expect(escapeControls('a\u009b2Jb\u007f\u202e')).toBe('a\\u009b2Jb\\u007f\\u202e');
    expect(escapeControls('line 1\nline 2\tx', { keepNewlines: true })).toBe('line 1\nline 2\\u0009x');
    expect(JSON.parse(`"${escapeControls('\u001b[2J')}"`)).toBe('\u001b[2J');
    const clean = 'no control here: é, 漢字';
    expect(escapeControls(clean)).toBe(clean);
    expect(oneLine('near "\u001b[2J":\n syntax error')).toBe('near "\\u001b[2J": syntax error');
    expect(errorText(new Error('unrecognized token: "\u009b"'))).toBe('unrecognized token: "\\u009b"');
  });
  it('truncate ends a cut in …; truncateCounted says how much was cut', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(truncateCounted('abcdef', 4)).toBe('abcd… (+2 characters)');
  });
  it('errorText is one line, with the name when asked', () => {
    expect(errorText(new TypeError('bad\n  value'), { withName: true })).toBe('TypeError: bad value');
    expect(errorText('plain')).toBe('plain');
  });
  it.each<[unknown, string]>([
    [null, 'NULL'],
    ["it's", "'it''s'"],
    [42, '42'],
    [1.5, '1.5'],
    [2n ** 53n + 1n, '9007199254740993'],
    [new Uint8Array([10, 27]), "x'0a1b'"],
  ])('formatCell(%s) = %s', (cell, text) => {
    expect(formatCell(cell)).toBe(text);
  });
  it('formatRow, plainCell, formatPipeTable', () => {
    expect(formatRow([1, 'a', null])).toBe("(1, 'a', NULL)");
    expect(plainCell('a b')).toBe('a b');
    expect(formatPipeTable(['id', 'name'], [[1, 'Ada']], { indent: 0 })).toBe("| id | name  |\n|----|-------|\n| 1  | 'Ada' |");
  });
});
