import { describe, expect, it } from 'vitest';
import { checkAnswerGrounding, readGroundingOptions } from '../../src/rungs/answer.js';
import type { GroundingOptions } from '../../src/answer/ground.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { createLadderRungs } from '../../src/rungs/ladder-rungs.js';
import type { Engine, ExecuteRequest } from '../../src/engine/engine.js';
import { isLadderError } from '../../src/errors.js';

describe('checkAnswerGrounding: options', () => {
  it.each([
    [{ relativeTolerance: -0.1 }, 'answer.relativeTolerance must be a number in [0, 1) (fraction of the cell); received a number (-0.1)'],
    [{ relativeTolerance: 1 }, 'answer.relativeTolerance must be a number in [0, 1) (fraction of the cell); received a number (1)'],
    [{ maxDerivationCells: 1.5 }, 'answer.maxDerivationCells must be a non-negative integer; received a number (1.5)'],
    [{ derivations: 'yes' as unknown as boolean }, 'answer.derivations must be true or false; received a string ("yes")'],
  ])('%j', (options, message) => {
    let thrown: unknown;
    try {
      checkAnswerGrounding({ answer: 'x', rows: [], options });
    } catch (error) {
      thrown = error;
    }
    expect(isLadderError(thrown, 'invalid_option')).toBe(true);
    expect((thrown as Error).message).toBe(message);
  });
});

describe('checkAnswerGrounding', () => {
  it('is skipped without a prose answer', () => {
    expect(checkAnswerGrounding({ answer: undefined, rows: [[1]] })).toMatchObject({ rung: 'answer', status: 'skipped', reason: 'no prose answer to ground' });
    expect(checkAnswerGrounding({ answer: '   ', rows: [[1]] }).status).toBe('skipped');
  });

  it('passes when every number is grounded or context', () => {
    const result = checkAnswerGrounding({
      answer: 'EMEA revenue was $4.12M in Q3 2024, 87.3% of the target.',
      rows: [['EMEA', 4_118_530, 0.873]],
      columns: ['region', 'revenue', 'share_of_target'],
      question: 'What was EMEA revenue in Q3 2024 and how does it compare with the target?',
    });
    expect(result.status).toBe('pass');
    expect(result.score).toBe(1);
    expect(result.reason).toBe('all 3 numbers grounded (2 in the rows, 1 from the question or SQL)');
    expect(result.details?.counts).toEqual({ numbers: 3, grounded: 2, context: 1, ungrounded: 0 });
    expect(result.details?.columns).toEqual(['region', 'revenue', 'share_of_target']);
  });

  it('fails with one positioned issue per ungrounded number', () => {
    const result = checkAnswerGrounding({
      answer: 'EMEA revenue was $5.2M in Q3.\nThat is 12% above 2023.',
      rows: [['EMEA', 4_118_530]],
      question: 'What was EMEA revenue in Q3?',
    });
    expect(result.status).toBe('fail');
    expect(result.score).toBe(0);
    expect(result.reason).toBe('3 of 3 numbers ungrounded: $5.2M (1:18), 12% (2:9), 2023 (2:19)');
    expect(result.issues).toEqual([
      { kind: 'ungrounded_number', message: '$5.2M matches no cell of the 1-row result (stated precision ±50000)', line: 1, column: 18 },
      { kind: 'ungrounded_number', message: '12% matches no cell of the 1-row result (stated precision ±0.5 points; cells read as fractions, 100·v)', line: 2, column: 9 },
      { kind: 'ungrounded_number', message: 'year-like 2023 is in neither the question, the SQL nor the rows (stated precision ±0.5)', line: 2, column: 19 },
    ]);
  });

  it('passes an answer with no numbers and says so', () => {
    expect(checkAnswerGrounding({ answer: 'EMEA led all regions.', rows: [['EMEA', 1]] })).toMatchObject({ status: 'pass', reason: 'no numbers in the answer to ground' });
  });
});

describe('L7 on the ladder (only: execution, answer): the rows L4 ran the prediction for', () => {
  const rows = [['EMEA', 4_118_530]];
  const snapshots = [{ name: 'base', path: '/db/base.sqlite' }, { name: 'later', path: '/db/later.sqlite' }];
  const grounded = (output: unknown, engine: Engine, options: GroundingOptions = {}) =>
    runLadder({ output, expectedBehavior: 'answer', golds: [], snapshots, dialect: 'sqlite', engine, answerOptions: options, only: ['execution', 'answer'] }, createLadderRungs({ answer: true }));

  it('grounds the prose in the rows of the prediction on the first snapshot, as L4 ran it once per snapshot', async () => {
    const requests: ExecuteRequest[] = [];
    const engine = {
      dialect: 'sqlite',
      execute: async (request: ExecuteRequest) => {
        requests.push(request);
        return { ok: true as const, result: { columns: ['region', 'revenue'], rows, doubleQuoteFallback: false, executedSql: request.sql, elapsedMs: 1 } };
      },
    } as unknown as Engine;
    const result = await grounded({ sql: 'SELECT region, revenue FROM r', answer: 'EMEA revenue was $5.2M.' }, engine);
    expect(requests.map((request) => [request.db, request.sql])).toEqual([
      ['/db/base.sqlite', 'SELECT region, revenue FROM r'],
      ['/db/later.sqlite', 'SELECT region, revenue FROM r'],
    ]);
    expect([result.results.execution?.status, result.results.answer?.reason]).toEqual(['unscored', '1 of 1 numbers ungrounded: $5.2M (1:18)']);
    expect(result.results.answer?.details?.columns).toEqual(['region', 'revenue']);
  });

  it('is skipped when the prediction did not run', async () => {
    const failing = { dialect: 'sqlite', execute: async () => ({ ok: false as const, error: { code: 'unknown_table' as const, message: 'no such table: r' } }) } as unknown as Engine;
    const result = await grounded({ sql: 'SELECT * FROM r', answer: 'It was 5.' }, failing);
    expect([result.results.answer?.status, result.results.answer?.reason]).toEqual(['skipped', 'the predicted SQL did not run on base: unknown_table: no such table: r']);
  });

  it('reads its options as the ladder reads them (misuse throws, naming the option)', () => {
    expect(readGroundingOptions({ relativeTolerance: 0 })).toEqual({ relativeTolerance: 0 });
    expect(() => readGroundingOptions({ tolerance: 1 })).toThrow('answer.tolerance is not an option; known options: relativeTolerance, derivations, maxDerivationCells, decimalText');
  });
});
