import { describe, expect, it } from 'vitest';
import { constantsFor } from '../../src/semantic/generation/constant-neighbours.js';
import { isDate, isTimestamp, kindOf } from '../../src/semantic/model/value-kind.js';
import { equivalentOverDomain } from '../../src/semantic/neighbours/domain-equivalence.js';
import type { ColumnSchema } from '../../src/semantic/model/schema-reader.js';

const column = (declaredType: string, affinity: ColumnSchema['affinity']): ColumnSchema => ({ name: 'c', declaredType, affinity, notNull: false, defaultSql: null, primaryKeyPosition: 0, generated: false });

describe('constantsFor: a gold constant and the values next to it', () => {
  it.each([
    [30n, '>', 'integer', [29n, 30n, 31n]],
    ['12', '=', 'integer', [11n, 12n, 13n]],
    [2.5, '=', 'real', [2.5, 2.4, 2.6, 1.5, 3.5]],
    ['2024-03-01', '=', 'date', ['2024-02-29', '2024-03-01', '2024-03-02']],
    ['2024', '=', 'date', ['2023-12-31', '2024-01-01', '2024-12-31', '2025-01-01']],
    ['2024-02', '=', 'date', ['2024-01-31', '2024-02-01', '2024-02-29', '2024-03-01']],
    ['2024-03-01 10:00:00', '=', 'timestamp', ['2024-03-01 09:59:59', '2024-03-01 10:00:00', '2024-03-01 10:00:01']],
    ['Res%', 'like', 'text', ['Res', 'Resab', 'Res ', 'Res', 'xRes', 'Resx', 'RES', 'res', 'es', 'Re']],
    ['Bob', '=', 'text', ['Bob', 'BOB', 'bob', 'Bob', 'Bob ', 'Bobx', 'xBob', 'Bo', 'ob']],
    [7n, '=', 'text', ['7', '7', '7', '7', '7 ', '7x', 'x7', '6', '8']],
  ] as const)('constant case %#', (value, operator, kind, expected) => {
    expect(constantsFor({ value, operator }, kind)).toEqual(expected);
  });

  it('puts a date compared with a timestamp column at the ends and middle of the day before, of and after', () => {
    expect(constantsFor({ value: '2024-03-01', operator: '<' }, 'timestamp')).toEqual([
      '2024-02-29 00:00:00', '2024-02-29 23:59:59', '2024-02-29 12:00:00',
      '2024-03-01 00:00:00', '2024-03-01 23:59:59', '2024-03-01 12:00:00',
      '2024-03-02 00:00:00', '2024-03-02 23:59:59', '2024-03-02 12:00:00',
    ]);
  });
});

describe('kindOf: what a column holds', () => {
  it.each([
    [['2024-01-01', '2023-12-31'], 'TEXT', 'TEXT', 'date'],
    [['2024-01-01 10:00:00'], '', 'BLOB', 'timestamp'],
    [[1n, 2n], '', 'BLOB', 'integer'],
    [[1.5, 2n], 'NUMERIC', 'NUMERIC', 'real'],
    [['APG', 'CVO'], 'TEXT', 'TEXT', 'text'],
    [[], 'DATETIME', 'NUMERIC', 'timestamp'],
    [[], 'varchar(20)', 'TEXT', 'text'],
    [[], 'int', 'INTEGER', 'integer'],
    [[], 'bool', 'NUMERIC', 'integer'],
  ] as const)('column case %#', (values, type, affinity, kind) => {
    expect(kindOf(column(type, affinity), { values })).toBe(kind);
  });

  it('knows SQLite date and timestamp texts', () => {
    expect([isDate('2024-02-29'), isDate('2023-02-29'), isDate('2024-2-01'), isTimestamp('2024-01-01 23:59:59'), isTimestamp('2024-01-01T23:59:59')]).toEqual([true, false, false, true, false]);
  });
});

describe('equivalentOverDomain: a comparison edit that keeps its truth over the declared domain', () => {
  const statuses = ['COMPLETED', 'SHIPPED', 'PENDING', 'CANCELLED'];
  const gold = "status <> 'CANCELLED'";
  const comparison = { start: 0, end: gold.length, columnStart: 0, columnEnd: 6, domain: statuses };
  it.each([
    ['>', true],
    ['<', false],
    ['=', false],
  ])('status <> CANCELLED → status %s CANCELLED: %s', (op, expected) => {
    expect(equivalentOverDomain(gold, comparison, { start: 7, end: 9, replacement: op })).toBe(expected);
  });

  it('counts NULL when the column may hold it', () => {
    expect(equivalentOverDomain(gold, { ...comparison, domain: [...statuses, null] }, { start: 7, end: 9, replacement: '>' })).toBe(true);
    const isNull = 'x IS NULL';
    expect(equivalentOverDomain(isNull, { start: 0, end: isNull.length, columnStart: 0, columnEnd: 1, domain: [0n, 1n, null] }, { start: 2, end: 4, replacement: 'IS NOT' })).toBe(false);
  });

  it.each([
    ["'2024-01-01'", "'2024-01-0'", true],
    ["'2024-01-01'", "'2024-'", true],
    ["'2024-12-31'", "'2024-12-31%'", true],
    ["'2024-01-01'", "'024-01-01'", false],
    ["'2024-12-31'", "'2024-12-3'", false],
    ["'2024-01-01'", "''", false],
  ])('over every valid date, BETWEEN bound %s → %s: %s', (from, to, expected) => {
    const between = "order_date BETWEEN '2024-01-01' AND '2024-12-31'";
    const start = between.indexOf(from);
    expect(equivalentOverDomain(between, { start: 0, end: between.length, columnStart: 0, columnEnd: 10, domain: { format: 'date', nullable: false } }, { start, end: start + from.length, replacement: to })).toBe(expected);
  });

  it('never evaluates anything but operators and literals', () => {
    const g = "name = 'a'";
    expect(equivalentOverDomain(g, { start: 0, end: g.length, columnStart: 0, columnEnd: 4, domain: ['a', 'b'] }, { start: 7, end: 10, replacement: "load_extension('x')" })).toBe(false);
  });
});
