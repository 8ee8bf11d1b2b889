import { afterAll, describe, expect, it } from 'vitest';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { answerGrounding, readAnswerGroundingConfig } from '../../assertions/answer-grounding.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import type { JudgeProvider } from '../../src/judge/faithfulness.js';

afterAll(() => closeSharedEngine());

// Warehouse base snapshot: 68 orders in March 2025.
const SQL = "SELECT count(*) AS orders FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
const QUESTION = 'How many orders were placed in March 2025?';
const output = (answer?: string) => JSON.stringify({ sql: SQL, ...(answer !== undefined ? { answer } : {}) });

function context(config?: Record<string, unknown>, gradingProvider?: unknown): AssertionContext {
  return {
    vars: { id: 'wh-l7', db: 'warehouse', expected_behavior: 'answer', gold_sql: SQL, question: QUESTION },
    test: { metadata: { id: 'wh-l7' }, ...(gradingProvider !== undefined ? { options: { provider: gradingProvider } } : {}) } as AssertionContext['test'],
    ...(config ? { config } : {}),
    providerResponse: { metadata: {} },
  };
}

function fakeJudge(reply: string, prompts: string[] = []): JudgeProvider {
  return {
    id: () => 'fake:judge',
    callApi: async (prompt) => {
      prompts.push(prompt);
      return { output: reply };
    },
  };
}

describe('answerGrounding assertion', () => {
  it('passes a grounded answer (2025 comes from the question)', async () => {
    const result = await answerGrounding(output('There were 68 orders in March 2025.'), context());
    expect([result.pass, result.score, result.namedScores]).toEqual([true, 1, { L7_answer: 1 }]);
    expect(result.reason).toBe('all 2 numbers grounded (1 in the rows, 1 from the question or SQL)');
  });

  it('fails an ungrounded figure with its position', async () => {
    const result = await answerGrounding(output('There were 72 orders in March 2025.'), context());
    expect([result.pass, result.namedScores]).toEqual([false, { L7_answer: 0 }]);
    expect(result.reason).toBe('1 of 2 numbers ungrounded: 72 (1:12)');
  });

  it('is skipped without a prose answer', async () => {
    const result = await answerGrounding(output(), context());
    expect([result.pass, result.reason, result.namedScores]).toEqual([true, 'skipped: the output has no prose answer', undefined]);
  });

  it('never calls a judge without a configured provider, and says so', async () => {
    const result = await answerGrounding(output('There were 68 orders in March 2025.'), context({ judge: true }));
    expect(result.pass).toBe(true);
    expect(result.reason).toBe('all 2 numbers grounded (1 in the rows, 1 from the question or SQL); judge not run: no grading provider configured (config.judge.provider or the test options.provider)');
  });

  it("uses the test's grading provider; without a calibration record its unfaithful verdict is advisory (reason and metadata only)", async () => {
    const prompts: string[] = [];
    const judge = fakeJudge('{"faithful": false, "score": 0.2, "reasons": ["the rows count orders, the answer says customers"]}', prompts);
    const result = await answerGrounding(output('68 customers ordered in March 2025.'), context({ judge: true }, judge));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('Question: How many orders were placed in March 2025?');
    expect(prompts[0]).toContain('orders\n68');
    expect([result.pass, result.namedScores]).toEqual([true, { L7_answer: 1 }]);
    expect(result.reason).toMatch(/^all 2 numbers grounded \(1 in the rows, 1 from the question or SQL\); judge \(fake:judge\) advisory, no calibration record for the faithfulness judge fake:judge \(model judge, prompt faithfulness-v1 [0-9a-f]{12}\); run `text2sql-ladder judge calibrate`: unfaithful: the rows count orders, the answer says customers$/);
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({
      details: { judge: { ran: true, calibrated: false, provider: 'fake:judge', verdict: { ok: true, faithful: false, score: 0.2, reasons: ['the rows count orders, the answer says customers'] } } },
    });
  });

  it('a faithful verdict keeps the pass; judge off by default never calls the provider', async () => {
    const prompts: string[] = [];
    const judge = fakeJudge('{"faithful": true, "score": 1, "reasons": []}', prompts);
    const judged = await answerGrounding(output('There were 68 orders in March 2025.'), context({ judge: { provider: judge } }));
    expect([judged.pass, judged.namedScores]).toEqual([true, { L7_answer: 1 }]);
    await answerGrounding(output('There were 68 orders in March 2025.'), context(undefined, judge));
    expect(prompts).toHaveLength(1);
  });

  it('reads and checks its options', () => {
    expect(readAnswerGroundingConfig(undefined)).toEqual({ grounding: {}, judge: null });
    expect(readAnswerGroundingConfig({ judge: { maxRows: 5 }, derivations: false })).toEqual({ grounding: { derivations: false }, judge: { maxRows: 5, calibration: [], thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 } } });
    expect(readAnswerGroundingConfig({ judge: { calibration: 'calibrations', thresholds: { minPairs: 200 } } }).judge).toEqual({ maxRows: 20, calibration: ['calibrations'], thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 200, minNegatives: 30 } });
    expect(() => readAnswerGroundingConfig({ judge: { model: 'x' } })).toThrow('config.judge.model is not an option; known options: provider, maxRows, calibration, thresholds');
    expect(() => readAnswerGroundingConfig({ judge: 'yes' })).toThrow('config.judge must be true, false or { provider, maxRows, calibration, thresholds }; received a string ("yes")');
    expect(() => readAnswerGroundingConfig({ judge: { calibration: [1] } })).toThrow('config.judge.calibration must be a calibration record file or folder, or a list of them; received');
    expect(() => readAnswerGroundingConfig({ judge: { thresholds: { minTpr: 2 } } })).toThrow('config.judge.thresholds.minTpr must be a number in [0, 1]; received 2');
    expect(() => readAnswerGroundingConfig({ relativeTolerance: 2 })).toThrow('config.relativeTolerance must be a number in [0, 1) (fraction of the cell); received a number (2)');
  });
});
