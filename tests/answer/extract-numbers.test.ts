import { describe, expect, it } from 'vitest';
import { extractContextNumbers, extractNumbers } from '../../src/answer/extract-numbers.js';

const brief = (text: string) => extractNumbers(text).map((m) => [m.text, m.value, m.tolerance]);

describe('extractNumbers: formats', () => {
  it.each([
    ['revenue was $4.12M', [['$4.12M', 4_120_000, 5_000]]],
    ['revenue was 4.12 million', [['4.12 million', 4_120_000, 5_000]]],
    ['we shipped 1,200 orders', [['1,200', 1200, 0.5]]],
    ['about 12k users', [['12k', 12_000, 500]]],
    ['1.2k users', [['1.2k', 1200, 50]]],
    ['a $2bn deal', [['$2bn', 2e9, 5e8]]],
    ['3 billion rows', [['3 billion', 3e9, 5e8]]],
    ['average 3.75', [['3.75', 3.75, 0.005]]],
    ['a change of -3.5', [['-3.5', -3.5, 0.05]]],
    ['a change of \u22123.5', [['\u22123.5', -3.5, 0.05]]],
    ['a loss of -$1,250.50', [['-$1,250.50', -1250.5, 0.005]]],
    ['87.3% of orders', [['87.3%', 87.3, 0.05]]],
    ['87.3 percent of orders', [['87.3 percent', 87.3, 0.05]]],
    ['down 8 %', [['8 %', 8, 0.5]]],
    ['€950 and £12', [['€950', 950, 0.5], ['£12', 12, 0.5]]],
    ['EMEA revenue was $4.12M in Q3, up 8%.', [['$4.12M', 4_120_000, 5_000], ['8%', 8, 0.5]]],
    ['1\u00A0200 orders, 3\u202F450\u202F000 rows, 1\u2009200.5 units', [['1\u00A0200', 1200, 0.5], ['3\u202F450\u202F000', 3_450_000, 0.5], ['1\u2009200.5', 1200.5, 0.05]]],
    ['in 3 200 stores', [['3', 3, 0.5], ['200', 200, 0.5]]],
    ['a defect rate of 5‰ or 4.5 per mille', [['5‰', 5, 0.5], ['4.5 per mille', 4.5, 0.05]]],
    ['grew 3.2x, 2×, 4 times and 3-fold', [['3.2x', 3.2, 0.05], ['2×', 2, 0.5], ['4 times', 4, 0.5], ['3-fold', 3, 0.5]]],
    ['hex 0x1F and a 2x4 board', []],
  ])('%s', (text, expected) => {
    expect(brief(text)).toEqual(expected);
  });

  it('records offsets, sign, currency, scale, decimals and percent', () => {
    expect(extractNumbers('Loss: -$4.12M')).toEqual([
      { text: '-$4.12M', start: 6, end: 13, value: -4_120_000, percent: false, perMille: false, multiplier: false, currency: '$', scale: 1e6, decimals: 2, negative: true, tolerance: 5000, yearLike: false },
    ]);
  });
});

describe('extractNumbers: what is not a standalone number', () => {
  it.each([
    ['in Q3 and H1 of FY2024', []],
    ['version v1.2 shipped', []],
    ['she came 3rd', []],
    ['our #1 customer', []],
    ['12kg of flour', []],
    ['on 2024-09-30 at 10:30', []],
    ['between 10-20 units, or 1/2 of them', []],
  ])('%s', (text, expected) => {
    expect(brief(text)).toEqual(expected);
  });
  it('skips numbered-list markers but not numbers after them', () => {
    expect(brief('Top customers:\n1. Litware Inc: $214,134\n 2) Coho Winery: 3 orders')).toEqual([['$214,134', 214134, 0.5], ['3', 3, 0.5]]);
    expect(brief('We had 1. Then 2.')).toEqual([['1', 1, 0.5], ['2', 2, 0.5]]);
  });
  it('ends a number at sentence punctuation', () => {
    expect(brief('Total: 1,200. Next: 7, then 8')).toEqual([['1,200', 1200, 0.5], ['7', 7, 0.5], ['8', 8, 0.5]]);
  });
});

describe('extractNumbers: year-like numbers (1900–2100, bare)', () => {
  it.each([
    ['in 2023', true],
    ['in 1899', false],
    ['$2023', false],
    ['2,023', false],
    ['2023%', false],
  ])('%s → yearLike %s', (text, yearLike) => {
    expect(extractNumbers(text)[0]?.yearLike).toBe(yearLike);
  });
});

describe('extractContextNumbers (question and SQL)', () => {
  it('reads digits inside words and dates, as whole runs', () => {
    expect(extractContextNumbers("Q3 FY2024 revenue since '2024-07-01' over $4M, top 1,500")).toEqual([3, 2024, 2024, 7, 1, 4, 4_000_000, 1500]);
  });
});
