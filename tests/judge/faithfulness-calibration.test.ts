/**
 * The faithfulness judge under the calibration rule: the labelled answers on the warehouse fixture
 * (datasets/faithfulness-labels.jsonl) are what their rules give; a scripted judge wrong on an
 * exact set of answers gives exact figures; and in the answerGrounding assertion its verdict moves
 * the score only with a passing calibration record for that provider, model and prompt.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerGrounding } from '../../assertions/answer-grounding.js';
import { readLabelledAnswers, type LabelledAnswer } from '../../src/dataset/labelled-answers.js';
import { calibrateFaithfulnessJudge } from '../../src/judge/faithfulness-calibration.js';
import { FAITHFULNESS_PROMPT_HASH, FAITHFULNESS_PROMPT_VERSION, type JudgeProvider } from '../../src/judge/faithfulness.js';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { buildFaithfulnessLabels } from '../../scripts/faithfulness-label-rules.js';

const LABELS = path.resolve(import.meta.dirname, '../../datasets/faithfulness-labels.jsonl');
const answers = readLabelledAnswers(LABELS);

/** A judge that answers every labelled answer right, except those whose ids it is given. */
function scriptedJudge(wrong: ReadonlySet<string>, byText: ReadonlyMap<string, LabelledAnswer>, id = 'openai:chat:gpt-4.1-mini'): JudgeProvider {
  return {
    id: () => id,
    callApi: async (prompt) => {
      const question = /^Question: (.*)$/m.exec(prompt)?.[1] ?? '';
      const answer = /^Answer: (.*)$/m.exec(prompt)?.[1] ?? '';
      const labelled = byText.get(`${question}\n${answer}`);
      if (labelled === undefined) return { output: '{"faithful": true, "score": 1, "reasons": ["not a labelled answer"]}' };
      const faithful = (labelled.label === 'grounded') !== wrong.has(labelled.id);
      return { output: JSON.stringify({ faithful, score: faithful ? 1 : 0, reasons: [] }), tokenUsage: { total: 10 } };
    },
  };
}

const byText = new Map(answers.map((answer) => [`${answer.question}\n${answer.answer}`, answer]));
const grounded = answers.filter((answer) => answer.label === 'grounded');
const ungrounded = answers.filter((answer) => answer.label === 'not_grounded');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'faithfulness-calibration-'));
});
afterEach(() => {
  for (const name of ['passing.json', 'failing.json']) rmSync(path.join(dir, name), { force: true });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await closeSharedEngine();
});

describe('the labelled answers', () => {
  it('are what their rules write from the fixture: 104 answers, 50 grounded and 54 not', async () => {
    expect(await buildFaithfulnessLabels()).toBe(readFileSync(LABELS, 'utf8'));
    expect([answers.length, grounded.length, ungrounded.length]).toEqual([104, 50, 54]);
    expect(new Set(ungrounded.map((answer) => answer.category))).toEqual(new Set(['wrong_number', 'wrong_entity', 'invented_trend', 'wrong_direction', 'swapped_values', 'wrong_comparison', 'wrong_peak']));
  });
});

describe('calibrating the faithfulness judge', () => {
  it('a judge wrong on 4 of 50 grounded and 3 of 54 ungrounded answers reads TPR 0.920, TNR 0.944 and passes', async () => {
    const wrong = new Set([...grounded.slice(0, 4), ...ungrounded.slice(0, 3)].map((answer) => answer.id));
    const record = await calibrateFaithfulnessJudge(scriptedJudge(wrong, byText), answers, { labelsFile: LABELS, now: () => new Date('2026-12-06T10:00:00Z') });
    expect(record.statistics.counts).toEqual({ tp: 46, fn: 4, fp: 3, tn: 51 });
    expect([record.statistics.tpr.value!.toFixed(3), record.statistics.tnr.value!.toFixed(3), record.statistics.accuracy.value!.toFixed(3)]).toEqual(['0.920', '0.944', '0.933']);
    expect(record.judge).toEqual({ task: 'faithfulness', provider: 'openai:chat:gpt-4.1-mini', model: 'gpt-4.1-mini', promptVersion: FAITHFULNESS_PROMPT_VERSION, promptHash: FAITHFULNESS_PROMPT_HASH });
    expect([record.passed, record.failures, record.wrong.length, record.cost]).toEqual([true, [], 7, { calls: 104, cacheHits: 0, tokens: 1040 }]);
  });

  it('a judge wrong on 6 grounded answers fails the TPR threshold, and says so', async () => {
    const wrong = new Set(grounded.slice(0, 6).map((answer) => answer.id));
    const record = await calibrateFaithfulnessJudge(scriptedJudge(wrong, byText), answers, { labelsFile: LABELS });
    expect([record.passed, record.failures]).toEqual([false, ['TPR 0.880 < 0.9']]);
  });
});

describe('the judge in answerGrounding counts only under a passing calibration', () => {
  // Warehouse base snapshot: 68 orders in March 2025; the answer calls them customers.
  const SQL = "SELECT count(*) AS orders FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
  const unfaithful = (): JudgeProvider => ({ id: () => 'openai:chat:gpt-4.1-mini', callApi: async () => ({ output: '{"faithful": false, "score": 0.2, "reasons": ["the rows count orders, the answer says customers"]}' }) });
  const context = (judge: Record<string, unknown>): AssertionContext => ({
    vars: { id: 'wh-l7', db: 'warehouse', expected_behavior: 'answer', gold_sql: SQL, question: 'How many orders were placed in March 2025?' },
    test: { metadata: { id: 'wh-l7' } } as AssertionContext['test'],
    config: { judge: { provider: unfaithful(), ...judge } },
    providerResponse: { metadata: {} },
  });
  const output = JSON.stringify({ sql: SQL, answer: '68 customers ordered in March 2025.' });

  async function writeRecord(name: string, wrongGrounded: number): Promise<string> {
    const wrong = new Set(grounded.slice(0, wrongGrounded).map((answer) => answer.id));
    const record = await calibrateFaithfulnessJudge(scriptedJudge(wrong, byText), answers, { labelsFile: LABELS });
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(record));
    return file;
  }

  it('with a passing record: the unfaithful verdict fails the row and scores L7_judge', async () => {
    const file = await writeRecord('passing.json', 2);
    const result = await answerGrounding(output, context({ calibration: dir }));
    expect([result.pass, result.namedScores]).toEqual([false, { L7_answer: 0, L7_judge: 0.2 }]);
    expect(result.reason).toBe('all 2 numbers grounded (1 in the rows, 1 from the question or SQL); judge (openai:chat:gpt-4.1-mini): unfaithful: the rows count orders, the answer says customers');
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({ details: { judge: { ran: true, calibrated: true, calibration: file } } });
  });

  it('without a record: advisory, the pass and the scores untouched, the reason says why', async () => {
    const result = await answerGrounding(output, context({}));
    expect([result.pass, result.namedScores]).toEqual([true, { L7_answer: 1 }]);
    expect(result.reason).toBe(
      `all 2 numbers grounded (1 in the rows, 1 from the question or SQL); judge (openai:chat:gpt-4.1-mini) advisory, no calibration record for the faithfulness judge openai:chat:gpt-4.1-mini (model gpt-4.1-mini, prompt ${FAITHFULNESS_PROMPT_VERSION} ${FAITHFULNESS_PROMPT_HASH.slice(0, 12)}); run \`text2sql-ladder judge calibrate\`: unfaithful: the rows count orders, the answer says customers`,
    );
  });

  it('with a failing record, or one of another prompt: advisory', async () => {
    const file = await writeRecord('failing.json', 6);
    const failing = await answerGrounding(output, context({ calibration: file }));
    expect([failing.pass, failing.namedScores]).toEqual([true, { L7_answer: 1 }]);
    expect(failing.reason).toContain(`advisory, no passing calibration for the faithfulness judge openai:chat:gpt-4.1-mini (model gpt-4.1-mini, prompt ${FAITHFULNESS_PROMPT_VERSION} ${FAITHFULNESS_PROMPT_HASH.slice(0, 12)}): ${file}: TPR 0.880 < 0.9`);
    const other = JSON.parse(JSON.stringify(await calibrateFaithfulnessJudge(scriptedJudge(new Set(), byText), answers, { labelsFile: LABELS }))) as { judge: { promptHash: string } };
    other.judge.promptHash = '1'.repeat(64);
    writeFileSync(file, JSON.stringify(other));
    expect((await answerGrounding(output, context({ calibration: file }))).pass).toBe(true);
  });
});
