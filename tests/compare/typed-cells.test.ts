import { describe, expect, it } from 'vitest';
import { cellKey, cellsEqual, doubleOfCell, isFractional } from '../../src/compare/cell-key.js';
import { CellInterner } from '../../src/compare/column-overlap.js';
import { decimalText, exactDouble, parseDecimal } from '../../src/compare/exact-decimal.js';
import { canonicalJson } from '../../src/compare/json-key.js';
import { temporalKey } from '../../src/compare/temporal-key.js';
import { ArrayCell, DecimalCell, JsonCell, TemporalCell, type Cell } from '../../src/engine/engine.js';
import { formatCell } from '../../src/format.js';
import { toJsonSafe } from '../../src/report/ladder-record.js';

const exact = { kind: 'absolute', value: 0 } as const;
const relative = { kind: 'relative', value: 1e-6 } as const;
const d = (text: string): DecimalCell => new DecimalCell(text);

describe('exact decimals', () => {
  it.each([
    ['12.50', '12.5'],
    ['-0.0100', '-0.01'],
    ['007', '7'],
    ['1e3', '1000'],
    ['.5', '0.5'],
    ['-0.000', '0'],
  ])('%s normalizes to %s', (text, canonical) => {
    expect(decimalText(parseDecimal(text)!)).toBe(canonical);
  });

  it.each<[string, number | undefined]>([
    ['0.5', 0.5],
    ['2.75', 2.75],
    ['0.1', undefined],
    ['9007199254740993', undefined],
    ['9007199254740992', 2 ** 53],
  ])('the double exactly equal to %s is %s', (text, double) => {
    expect(exactDouble(parseDecimal(text)!)).toBe(double);
  });
});

describe('cellKey of typed cells', () => {
  it.each<[string, Cell, string]>([
    ['integral numeric = integer', d('175.00'), 'I175'],
    ['numeric beyond 2^53 keeps its digits', d('9007199254740993.000'), 'I9007199254740993'],
    ['numeric equal to a double', d('0.50'), 'F0.5'],
    ['numeric not equal to any double', d('0.10'), 'D0.1'],
    ['numeric NaN as the double', d('NaN'), 'FNaN'],
    ['boolean', true, 'b1'],
    ['false', false, 'b0'],
    ['array', new ArrayCell([1, null, 'a']), 'A["I1","N","Sa"]'],
    ['nested array', new ArrayCell([new ArrayCell([1]), new ArrayCell([2])]), 'A["A[\\"I1\\"]","A[\\"I2\\"]"]'],
    ['json, keys sorted, numbers canonical', new JsonCell('{"b": 1.0, "a": [true, null]}', true), 'J{"a":[true,null],"b":1}'],
  ])('%s', (_name, cell, key) => {
    expect(cellKey(cell)).toBe(key);
  });

  it('numeric and double equal only when the double is the value (as Python compares Decimal and float)', () => {
    expect(cellsEqual(d('0.5'), 0.5, exact)).toBe(true);
    expect(cellsEqual(d('0.1'), 0.1, exact)).toBe(false);
    expect(cellsEqual(d('0.1'), 0.1, relative)).toBe(true);
    expect(cellsEqual(d('12.50'), d('12.5'), exact)).toBe(true);
    expect(cellsEqual(d('175'), 175, exact)).toBe(true);
    expect(cellsEqual(d('9007199254740993'), 2n ** 53n + 1n, exact)).toBe(true);
    expect(cellsEqual(d('9007199254740993'), 2n ** 53n, exact)).toBe(false);
  });

  it('applies the tolerance to two decimals in exact arithmetic', () => {
    // 1e-7 apart at 1e20: a double cannot tell them apart, exact arithmetic can.
    expect(cellsEqual(d('100000000000000000000.00000001'), d('100000000000000000000.00000002'), { kind: 'absolute', value: 1e-9 })).toBe(false);
    expect(cellsEqual(d('100000000000000000000.00000001'), d('100000000000000000000.00000002'), { kind: 'absolute', value: 1e-8 })).toBe(true);
    expect(cellsEqual(d('1.0000001'), d('1.0000002'), relative)).toBe(true);
    expect(cellsEqual(d('1.001'), d('1.002'), relative)).toBe(false);
  });

  it('never equates a boolean with a number, nor a date with its text', () => {
    expect(cellsEqual(true, 1, relative)).toBe(false);
    expect(cellsEqual(new TemporalCell('date', '2024-03-01'), '2024-03-01', relative)).toBe(false);
  });

  it('compares arrays element by element under the tolerance', () => {
    expect(cellsEqual(new ArrayCell([1.0000001, 2]), new ArrayCell([1.0000002, 2]), relative)).toBe(true);
    expect(cellsEqual(new ArrayCell([1, 2]), new ArrayCell([2, 1]), relative)).toBe(false);
  });

  it('counts non-integral decimals as fractional', () => {
    expect(isFractional(d('1.5'))).toBe(true);
    expect(isFractional(d('2.000'))).toBe(false);
  });

  it('interns equal numbers of every kind to one id', () => {
    const interner = new CellInterner();
    expect(new Set([interner.id(0.5), interner.id(d('0.50'))]).size).toBe(1);
    expect(new Set([interner.id(7), interner.id(7n), interner.id(d('7.0'))]).size).toBe(1);
    expect(interner.id(d('0.1'))).not.toBe(interner.id(0.1));
    expect(doubleOfCell(d('7.0'))).toBe(7);
  });
});

describe('temporalKey', () => {
  const key = (type: ConstructorParameters<typeof TemporalCell>[0], text: string): string => temporalKey(new TemporalCell(type, text));

  it('puts dates, timestamps and timestamptz on one time line (UTC)', () => {
    expect(key('date', '2024-03-01')).toBe(key('timestamp', '2024-03-01 00:00:00'));
    expect(key('timestamptz', '2024-03-01 01:00:00+01')).toBe(key('timestamp', '2024-03-01 00:00:00'));
    expect(key('timestamptz', '2024-03-01 05:30:00+05:30')).toBe(key('timestamptz', '2024-03-01 00:00:00+00'));
    expect(key('timestamptz', '2024-03-01 00:30:00+01')).toBe(key('timestamp', '2024-02-29 23:30:00'));
    expect(key('timestamp', '2024-03-01 00:00:00.5')).not.toBe(key('timestamp', '2024-03-01 00:00:00'));
    expect(key('timestamp', '2024-03-01 00:00:00.500000')).toBe(key('timestamp', '2024-03-01 00:00:00.5'));
    expect(key('date', 'infinity')).toBe(key('timestamptz', 'infinity'));
    expect(key('date', '0044-03-15 BC')).not.toBe(key('date', '0044-03-15'));
  });

  it('keeps a text that is not in the pinned format apart', () => {
    expect(key('date', '03/01/2024')).toBe('Xdate:03/01/2024');
  });

  it('compares intervals by their fields (a month is not 30 days)', () => {
    expect(key('interval', '1 mon')).not.toBe(key('interval', '30 days'));
    expect(key('interval', '1 mon 2 days')).toBe(key('interval', '1 mon 2 days'));
  });

  it('compares timetz by instant and offset', () => {
    expect(key('timetz', '12:00:00+01')).not.toBe(key('timetz', '11:00:00+00'));
    expect(key('time', '12:00:00.250')).toBe(key('time', '12:00:00.25'));
  });
});

describe('canonicalJson', () => {
  it.each([
    ['{"a":1,"a":2}', '{"a":2}'],
    ['[1, 2.50, -0.0, 1E2]', '[1,2.5,0,100]'],
    ['"\\u00e9"', '"é"'],
    ['  null ', 'null'],
  ])('%s → %s', (text, canonical) => {
    expect(canonicalJson(text)).toBe(canonical);
  });

  it('returns undefined for text that is not JSON', () => {
    expect(canonicalJson('{a:1}')).toBeUndefined();
    expect(canonicalJson('[1,]')).toBeUndefined();
  });
});

describe('typed cells in text and JSON', () => {
  it('formats as SQL literals', () => {
    expect([d('12.50'), new TemporalCell('date', '2024-03-01'), new JsonCell('{"a":1}', true), new ArrayCell([1, 'x', null]), true].map(formatCell)).toEqual([
      '12.50::numeric',
      "DATE '2024-03-01'",
      `'{"a":1}'::jsonb`,
      "ARRAY[1, 'x', NULL]",
      'TRUE',
    ]);
  });

  it('serializes as tagged JSON', () => {
    expect(toJsonSafe([d('1.50'), new TemporalCell('timestamptz', '2024-03-01 00:00:00+00'), new ArrayCell([2n ** 60n])])).toEqual([
      { $decimal: '1.50' },
      { $timestamptz: '2024-03-01 00:00:00+00' },
      { $array: ['1152921504606846976'] },
    ]);
  });
});
