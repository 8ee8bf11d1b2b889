import { describe, expect, it } from 'vitest';
import { groundNumbers } from '../../src/answer/ground.js';
import type { GroundingInput } from '../../src/answer/ground.js';

const ungrounded = (input: GroundingInput) => groundNumbers(input).ungrounded.map((n) => n.text);
const matchOf = (input: GroundingInput) => groundNumbers(input).numbers.map((n) => [n.text, n.status, n.match?.kind ?? null]);

describe('Text-to-SQL Evals §9 examples (exact)', () => {
  it('"EMEA revenue was $4.12M in Q3." with ("EMEA", 4_118_530.0) → []', () => {
    expect(ungrounded({ answer: 'EMEA revenue was $4.12M in Q3.', rows: [['EMEA', 4_118_530.0]] })).toEqual([]);
  });
  it('"EMEA revenue was $5.2M in Q3." with ("EMEA", 4_118_530.0) → [\'$5.2M\']', () => {
    expect(ungrounded({ answer: 'EMEA revenue was $5.2M in Q3.', rows: [['EMEA', 4_118_530.0]] })).toEqual(['$5.2M']);
  });
  it('"EMEA revenue was 4.12 million." with ("EMEA", Decimal("4118530.00")) → [] (DECIMAL as decimal text)', () => {
    expect(ungrounded({ answer: 'EMEA revenue was 4.12 million.', rows: [['EMEA', '4118530.00']] })).toEqual([]);
  });
});

describe('tolerance follows the stated precision (both sides of the boundary)', () => {
  it.each([
    // 4.12M: unit 10 000, half-unit 5 000 → [4 115 000, 4 125 000]
    ['$4.12M', 4_115_000, true],
    ['$4.12M', 4_114_999, false],
    ['$4.12M', 4_125_000, true],
    ['$4.12M', 4_125_001, false],
    // 4.1M: half-unit 50 000
    ['$4.1M', 4_118_530, true],
    ['$4.1M', 4_150_001, false],
    // 1,200: an integer as written, ± 0.5
    ['1,200', 1200.5, true],
    ['1,200', 1187, false],
    ['1.2k', 1187, true],
    ['1.2k', 1149, false],
    ['12k', 12_499, true],
    ['12k', 12_501, false],
    ['3.75', 3.754, true],
    ['3.75', 3.7551, false],
  ])('%s vs cell %s → grounded %s', (stated, cell, grounded) => {
    expect(ungrounded({ answer: `The value is ${stated}.`, rows: [[cell]] })).toEqual(grounded ? [] : [stated]);
  });

  it('relativeTolerance widens the window (Text-to-SQL Evals §9 used rel_tol = 0.01)', () => {
    expect(ungrounded({ answer: 'We had 1,200 orders.', rows: [[1190]], options: { relativeTolerance: 0.01 } })).toEqual([]); // |1200 − 1190| = 10 ≤ 11.9
    expect(ungrounded({ answer: 'We had 1,200 orders.', rows: [[1180]], options: { relativeTolerance: 0.01 } })).toEqual(['1,200']); // 20 > 11.8
  });
});

describe('signs', () => {
  it('an unsigned number matches by magnitude; a written minus needs a negative cell', () => {
    expect(ungrounded({ answer: 'a loss of $4.5M', rows: [[-4_500_000]] })).toEqual([]);
    expect(ungrounded({ answer: 'a change of -4.5', rows: [[-4.5]] })).toEqual([]);
    expect(ungrounded({ answer: 'a change of -4.5', rows: [[4.5]] })).toEqual(['-4.5']);
  });
});

describe('percentages', () => {
  it('87.3% matches a fraction cell 0.873, and a cell 87.3 only in a column in percent units', () => {
    expect(matchOf({ answer: '87.3% of orders shipped', rows: [[0.873]] })).toEqual([['87.3%', 'grounded', 'fraction']]);
    expect(matchOf({ answer: '87.3% of orders shipped', rows: [[87.3]], columns: ['shipped_pct'] })).toEqual([['87.3%', 'grounded', 'cell']]);
    expect(ungrounded({ answer: '87.3% of orders shipped', rows: [[87.3]] })).toEqual(['87.3%']);
    expect(ungrounded({ answer: '87.3% of orders shipped', rows: [[0.8736]] })).toEqual(['87.3%']);
  });

  describe('a 100× error is never grounded: one reading per cell (fraction, or percent units on evidence)', () => {
    const fraction = [[0.8519]];
    it.each([
      ['85%', [], 'no evidence: 100·v'],
      ['85.2%', [], 'no evidence: 100·v'],
      ['0.85%', ['0.85%'], 'the numeral is the cell, but a percent means 100·v'],
      ['1%', ['1%'], 'the numeral rounds to the cell'],
    ])('%s against the fraction 0.8519 → ungrounded %j (%s)', (stated, expected) => {
      expect(ungrounded({ answer: `The rate was ${stated}.`, rows: fraction, columns: ['rate'], sql: 'SELECT avg(shipped) AS rate FROM orders' })).toEqual(expected);
    });

    it.each([
      ['name: rate_pct', ['rate_pct'], 'SELECT rate_pct FROM stats'],
      ['name: percent_shipped', ['percent_shipped'], 'SELECT percent_shipped FROM stats'],
      ['name: pctShipped', ['pctShipped'], 'SELECT pctShipped FROM stats'],
      ['name with %', ['% shipped'], 'SELECT x AS "% shipped" FROM stats'],
      ['expression: 100.0 * a / b', ['share'], 'SELECT 100.0 * shipped / total AS share FROM stats'],
      ['expression: ROUND(x * 100, 2)', ['round(x * 100, 2)'], 'SELECT ROUND(x * 100, 2) FROM stats'],
      ['expression through a CTE', ['share'], 'WITH s AS (SELECT 100.0 * shipped / total AS share FROM stats) SELECT share FROM s'],
      ['expression through a derived table', ['share'], 'SELECT d.share FROM (SELECT shipped * 100 / total AS share FROM stats) AS d'],
    ])('percent units by %s: 85.19 grounds 85.2%%, not 8519%% nor 0.85%%', (_name, columns, sql) => {
      const input = { rows: [[85.19]], columns, sql };
      expect(matchOf({ ...input, answer: 'The rate was 85.2%.' })).toEqual([['85.2%', 'grounded', 'cell']]);
      expect(ungrounded({ ...input, answer: 'The rate was 8519%.' })).toEqual(['8519%']);
      expect(ungrounded({ ...input, answer: 'The rate was 0.85%.' })).toEqual(['0.85%']);
    });

    it('a percent column beside a fraction column: each cell read in its own unit', () => {
      const input = { rows: [[0.5, 12.5]], columns: ['share', 'growth_pct'], sql: 'SELECT share, growth_pct FROM t' };
      expect(matchOf({ ...input, answer: 'a 50% share, up 12.5%' })).toEqual([['50%', 'grounded', 'fraction'], ['12.5%', 'grounded', 'cell']]);
      expect(ungrounded({ ...input, answer: 'a 0.5% share, up 1250%' })).toEqual(['0.5%', '1250%']);
    });

    it('percentile is not a percent name; the column units are reported', () => {
      expect(groundNumbers({ answer: '90%', rows: [[90, 0.9]], columns: ['p90_percentile', 'rate_pct'] }).columnUnits).toEqual([1, 100]);
      expect(ungrounded({ answer: 'The 90% mark', rows: [[90]], columns: ['percentile'] })).toEqual(['90%']);
    });
  });

  describe('per mille and multipliers', () => {
    it('5‰ matches 1000·v of a fraction, or v in a per-mille column', () => {
      expect(matchOf({ answer: 'a defect rate of 5‰', rows: [[0.005]] })).toEqual([['5‰', 'grounded', 'fraction']]);
      expect(ungrounded({ answer: 'a defect rate of 5‰', rows: [[5]] })).toEqual(['5‰']);
      expect(matchOf({ answer: 'a defect rate of 5 per mille', rows: [[5]], columns: ['defects_permille'] })).toEqual([['5 per mille', 'grounded', 'cell']]);
      expect(ungrounded({ answer: 'a defect rate of 0.005‰', rows: [[0.005]] })).toEqual(['0.005‰']);
    });

    it('a multiplier matches a cell, or the ratio of two cells in one row or column', () => {
      expect(matchOf({ answer: 'orders grew 3.2x', rows: [['2023', 100], ['2024', 320]] })).toEqual([['3.2x', 'grounded', 'ratio']]);
      expect(matchOf({ answer: 'orders grew 3.2 times', rows: [[3.2]] })).toEqual([['3.2 times', 'grounded', 'cell']]);
      expect(ungrounded({ answer: 'orders grew 4x', rows: [['2023', 100], ['2024', 320]] })).toEqual(['4x']);
      expect(matchOf({ answer: 'a 3-fold rise', rows: [[100, 320]] })).toEqual([['3-fold', 'grounded', 'ratio']]); // 3.2 is 3 at the stated precision
      expect(ungrounded({ answer: 'a 5-fold rise', rows: [[100, 320]] })).toEqual(['5-fold']);
    });
  });
  it('percent change between two cells of one column (Q2 → Q3)', () => {
    const rows = [['Q2', 1_000_000], ['Q3', 1_080_000]];
    const report = groundNumbers({ answer: 'Revenue rose 8% quarter over quarter.', rows });
    expect(report.numbers[0]?.match).toEqual({ kind: 'percent-change', a: { row: 1, column: 1, cell: 1_080_000 }, b: { row: 0, column: 1, cell: 1_000_000 }, derived: 8 });
    expect(ungrounded({ answer: 'Revenue rose 9% quarter over quarter.', rows })).toEqual(['9%']);
    expect(ungrounded({ answer: 'Revenue changed by -8%.', rows })).toEqual(['-8%']);
    expect(ungrounded({ answer: 'Revenue fell 7.4%.', rows })).toEqual([]); // 100·(1.00M − 1.08M)/1.08M = −7.41, by magnitude
  });
  it('ratio of two cells in one row (share of a total)', () => {
    expect(matchOf({ answer: 'EMEA was 25% of revenue.', rows: [['EMEA', 250, 1000]] })).toEqual([['25%', 'grounded', 'ratio']]);
  });
  it('does not pair cells across both rows and columns, and can be switched off', () => {
    expect(ungrounded({ answer: 'a 25% share', rows: [[250, 7], [3, 1000]] })).toEqual(['25%']);
    expect(ungrounded({ answer: 'a 25% share', rows: [[250, 1000]], options: { derivations: false } })).toEqual(['25%']);
    expect(groundNumbers({ answer: 'a 25% share', rows: [[250, 1000]], options: { maxDerivationCells: 1 } }).derivationsTried).toBe(false);
  });
  it('a percentage never matches a non-percent number by scale', () => {
    expect(ungrounded({ answer: 'we had 87 orders', rows: [[0.87]] })).toEqual(['87']);
  });
});

describe('the substring trap', () => {
  it('50 is not in 1500, in a numeric cell or a text cell', () => {
    expect(ungrounded({ answer: 'We sold 50 units.', rows: [[1500]] })).toEqual(['50']);
    expect(ungrounded({ answer: 'We sold 50 units.', rows: [['SKU 1500']] })).toEqual(['50']);
    expect(ungrounded({ answer: 'Store 150 sold 1,500 units.', rows: [['Store 150', 1500]] })).toEqual([]);
  });
});

describe('the year rule', () => {
  const rows = [['EMEA', 4_118_530]];
  it('a year from the question is context, not a claim', () => {
    expect(matchOf({ answer: 'In 2024, EMEA revenue was $4.12M.', rows, question: 'What was EMEA revenue in Q3 2024?' })).toEqual([
      ['2024', 'context', 'context'],
      ['$4.12M', 'grounded', 'cell'],
    ]);
  });
  it('without the question (and not in the SQL or rows) the same year is ungrounded', () => {
    const report = groundNumbers({ answer: 'In 2024, EMEA revenue was $4.12M.', rows });
    expect(report.ungrounded.map((n) => [n.text, n.yearLike, n.start])).toEqual([['2024', true, 3]]);
  });
  it('a year from the SQL is context; a year in a text cell is grounded', () => {
    expect(matchOf({ answer: 'In 2024 revenue was $4.12M.', rows, sql: "SELECT region, sum(amount) FROM orders WHERE order_date >= '2024-01-01'" })[0]).toEqual(['2024', 'context', 'context']);
    expect(matchOf({ answer: 'In 2024 revenue was $4.12M.', rows: [['2024-07', 4_118_530]] })[0]).toEqual(['2024', 'grounded', 'text-cell']);
  });
  it('a different year than the question is a claim, and ungrounded', () => {
    expect(ungrounded({ answer: 'In 2023, EMEA revenue was $4.12M.', rows, question: 'What was EMEA revenue in Q3 2024?' })).toEqual(['2023']);
  });
  it('the quarter number of the question ("Q3") is context when the answer writes it as a number', () => {
    expect(matchOf({ answer: 'Quarter 3 revenue was $4.12M.', rows, question: 'EMEA revenue in Q3?' })[0]).toEqual(['3', 'context', 'context']);
  });
});

describe('cells', () => {
  it('reads bigint cells and ignores NULL and blobs', () => {
    expect(ungrounded({ answer: 'There are 9007199254740993 rows.', rows: [[9007199254740993n, null, new Uint8Array([1])]] })).toEqual([]);
  });
  it('decimalText: false leaves decimal text to exact text matching only', () => {
    expect(ungrounded({ answer: 'Revenue was 4.12 million.', rows: [['4118530.00']], options: { decimalText: false } })).toEqual(['4.12 million']);
  });
});
