import { describe, expect, it } from 'vitest';
import { cellKey, cellsEqual, coerceNumericText } from '../../src/compare/cell-key.js';
import type { Cell } from '../../src/engine/engine.js';

const exact = { kind: 'absolute', value: 0 } as const;

describe('cellKey', () => {
  it.each<[Cell, string]>([
    [null, 'N'],
    [175, 'I175'],
    [175.0, 'I175'],
    [-0, 'I0'],
    [1.5, 'F1.5'],
    [2 ** 60, `I${2n ** 60n}`],
    [2n ** 60n, `I${2n ** 60n}`],
    ['175', 'S175'],
    ['', 'S'],
    [new Uint8Array([0, 255]), 'B00ff'],
  ])('%s → %s', (cell, key) => {
    expect(cellKey(cell)).toBe(key);
  });
});

describe('cellsEqual', () => {
  it.each<[string, Cell, Cell, boolean]>([
    ['int = same double', 3, 3.0, true],
    ['exact floats differ', 0.1 + 0.2, 0.3, false],
    ['bigint vs unsafe double, exact', 2n ** 53n + 1n, 2 ** 53, false],
    ['text vs number', '3', 3, false],
    ['null vs null', null, null, true],
  ])('%s', (_name, a, b, expected) => {
    expect(cellsEqual(a, b, exact)).toBe(expected);
  });

  it('relative tolerance applies once one side is fractional', () => {
    const relative = { kind: 'relative', value: 1e-6 } as const;
    expect(cellsEqual(0.1 + 0.2, 0.3, relative)).toBe(true);
    expect(cellsEqual(1_000_000, 1_000_000.5, relative)).toBe(true);
    expect(cellsEqual(1_000_000, 1_000_002, relative)).toBe(false);
  });
});

describe('coerceNumericText', () => {
  it.each<[Cell, Cell]>([
    ['175', 175],
    [' -1.5e2 ', -150],
    ['9007199254740993', 9007199254740993n],
    ['12abc', '12abc'],
    ['', ''],
    [7, 7],
  ])('%s → %s', (input, output) => {
    expect(coerceNumericText(input)).toEqual(output);
  });
});
