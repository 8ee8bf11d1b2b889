import { describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { LadderError } from '../../src/errors.js';
import { failureOf } from './helpers.js';

const REVENUE_ROWS = [
  ['EMEA', 4118530],
  ['APAC', 2950000],
];

describe('toHaveGroundedNumbers: arguments', () => {
  it('throws a TypeError naming received for a non-string, whose stack starts at the caller', () => {
    let caught: unknown;
    try {
      expect(4118530).toHaveGroundedNumbers(REVENUE_ROWS);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect((caught as TypeError).message).toBe('toHaveGroundedNumbers: received must be an answer string; received a number (4118530)');
    expect((caught as TypeError).stack).not.toContain('to-have-grounded-numbers.ts');
  });

  it.each([
    [undefined, 'toHaveGroundedNumbers: rows must be rows by position (an array of arrays) or { columns, rows }; received undefined'],
    [
      [{ region: 'EMEA', revenue: 4118530 }],
      'toHaveGroundedNumbers: rows[0] must be a row by position (an array of cells; read rows with .raw() or pass { columns, rows }); received an object',
    ],
    [{ columns: ['region', 7], rows: [] }, 'toHaveGroundedNumbers: rows.columns[1] must be a column name (string); received a number (7)'],
  ])('throws a TypeError for rows %o', (rows, message) => {
    // @ts-expect-error -- wrong rows on purpose
    expect(() => expect('EMEA made $4.12M.').toHaveGroundedNumbers(rows)).toThrow(new TypeError(message));
  });

  it('throws a TypeError for a non-string question', () => {
    // @ts-expect-error -- wrong question on purpose
    expect(() => expect('EMEA made $4.12M.').toHaveGroundedNumbers(REVENUE_ROWS, { question: 3 })).toThrow(
      new TypeError('toHaveGroundedNumbers: options.question must be a string; received a number (3)'),
    );
  });

  it('throws LadderError for an unknown option and for a bad grounding option', () => {
    // @ts-expect-error -- misspelt option on purpose
    expect(() => expect('x').toHaveGroundedNumbers(REVENUE_ROWS, { questions: 'q' })).toThrow(
      new LadderError('invalid_option', 'toHaveGroundedNumbers: options.questions is not an option (did you mean options.question?); known options: question, sql, grounding'),
    );
    expect(() => expect('x').not.toHaveGroundedNumbers(REVENUE_ROWS, { grounding: { relativeTolerance: 2 } })).toThrow(
      new LadderError('invalid_option', 'answer.relativeTolerance must be a number in [0, 1) (fraction of the cell); received a number (2)'),
    );
  });
});

describe('toHaveGroundedNumbers: passing', () => {
  it.each([
    'EMEA revenue was $4.12M.',
    'EMEA brought in 4.1 million and APAC 2.95 million.',
    'EMEA: 4,118,530.',
    'Two regions reported revenue.',
  ])('grounds %s', (answer) => {
    expect(answer).toHaveGroundedNumbers(REVENUE_ROWS);
  });

  it('takes numbers from the question and the SQL as context', () => {
    expect('In 2024 EMEA revenue was $4.12M, the top 1 region.').toHaveGroundedNumbers(REVENUE_ROWS, {
      question: 'Which region had the highest revenue in 2024?',
      sql: 'SELECT region, revenue FROM sales ORDER BY revenue DESC LIMIT 1',
    });
  });

  it('accepts { columns, rows }', () => {
    expect('EMEA revenue was $4.12M.').toHaveGroundedNumbers({ columns: ['region', 'revenue'], rows: REVENUE_ROWS });
  });
});

describe('toHaveGroundedNumbers: failing', () => {
  it('reports a number outside the stated precision, with its position', async () => {
    const message = await failureOf(() =>
      expect('EMEA revenue was $5.2M in Q3,\nahead of APAC at $2.95M.').toHaveGroundedNumbers(
        { columns: ['region', 'revenue'], rows: REVENUE_ROWS },
        { question: 'Revenue by region in Q3?' },
      ),
    );
    expect(message).toMatchInlineSnapshot(`
      "expect(answer).toHaveGroundedNumbers(rows)

      Expected answer to have every number grounded in the 2-row result (or in the question or SQL)
      Received: "EMEA revenue was $5.2M in Q3,
      ahead of APAC at $2.95M."

      L7 answer grounding failed: 1 of 2 numbers ungrounded: $5.2M (1:18)

      Issues:
        line 1, column 18  ungrounded_number  $5.2M matches no cell of the 2-row result (stated precision ±50000)
          EMEA revenue was $5.2M in Q3,
                           ^

      Numbers:
        $5.2M (1:18)  ungrounded
        $2.95M (2:18)  grounded: row 2, revenue = 2950000

      Rows (2):
        | region | revenue |
        |--------|---------|
        | 'EMEA' | 4118530 |
        | 'APAC' | 2950000 |"
    `);
  });

  it('never grounds a number by substring', async () => {
    const message = await failureOf(() => expect('We sold 50 units.').toHaveGroundedNumbers([[1500]]));
    expect(message).toMatchInlineSnapshot(`
      "expect(answer).toHaveGroundedNumbers(rows)

      Expected answer to have every number grounded in the 1-row result
      Received: "We sold 50 units."

      L7 answer grounding failed: 1 of 1 numbers ungrounded: 50 (1:9)

      Issues:
        line 1, column 9  ungrounded_number  50 matches no cell of the 1-row result (stated precision ±0.5)
          We sold 50 units.
                  ^

      Numbers:
        50 (1:9)  ungrounded

      Rows (1):
        | #1   |
        |------|
        | 1500 |"
    `);
  });
});

describe('toHaveGroundedNumbers: negated', () => {
  it('passes when a number is ungrounded', () => {
    expect('EMEA revenue was $5.2M.').not.toHaveGroundedNumbers(REVENUE_ROWS);
  });

  it('fails when every number is grounded', async () => {
    const message = await failureOf(() => expect('EMEA revenue was $4.12M.').not.toHaveGroundedNumbers(REVENUE_ROWS));
    expect(message).toMatchInlineSnapshot(`
      "expect(answer).not.toHaveGroundedNumbers(rows)

      Expected answer not to have every number grounded in the 2-row result
      Received: "EMEA revenue was $4.12M."

      L7 answer grounding passed: all 1 numbers grounded (1 in the rows, 0 from the question or SQL)

      Numbers:
        $4.12M (1:18)  grounded: row 1, #2 = 4118530

      Rows (2):
        | #1     | #2      |
        |--------|---------|
        | 'EMEA' | 4118530 |
        | 'APAC' | 2950000 |"
    `);
  });

  it('fails both ways for a blank answer (the rung skips)', async () => {
    const positive = await failureOf(() => expect('  ').toHaveGroundedNumbers(REVENUE_ROWS));
    const negated = await failureOf(() => expect('  ').not.toHaveGroundedNumbers(REVENUE_ROWS));
    expect(positive).toContain('L7 answer grounding skipped: no prose answer to ground');
    expect(negated).toContain('The rung did not decide (skipped), so neither toHaveGroundedNumbers nor its negation holds.');
  });
});
