import { describe, expect, it } from 'vitest';
import { buildFaithfulnessPrompt, parseFaithfulnessVerdict, runFaithfulnessJudge } from '../../src/judge/faithfulness.js';
import type { JudgeProvider } from '../../src/judge/faithfulness.js';

const input = {
  question: 'EMEA revenue in Q3 vs Q2?',
  sql: "SELECT quarter, revenue FROM r WHERE region = 'EMEA'",
  columns: ['quarter', 'revenue'],
  rows: [['Q2', 1_080_000], ['Q3', 1_000_000], ['Q4', null]],
  answer: 'EMEA revenue rose 7.4% to $1.0M in Q3.',
  ungroundedNumbers: [],
};

describe('buildFaithfulnessPrompt', () => {
  it('shows the question, SQL, rows (cut at maxRows, with the cut stated) and the answer', () => {
    const prompt = buildFaithfulnessPrompt(input, 2);
    expect(prompt).toContain('Question: EMEA revenue in Q3 vs Q2?');
    expect(prompt).toContain("SQL: SELECT quarter, revenue FROM r WHERE region = 'EMEA'");
    expect(prompt).toContain('Result (3 rows):\nquarter | revenue\nQ2 | 1080000\nQ3 | 1000000\n(1 more rows not shown; 3 in total)');
    expect(prompt).toContain('Answer: EMEA revenue rose 7.4% to $1.0M in Q3.');
    expect(prompt).toContain('Numbers already flagged as not found in the result: none');
    expect(prompt).not.toContain('Q4 | NULL');
    expect(buildFaithfulnessPrompt(input)).toContain('Q4 | NULL');
  });
});

describe('parseFaithfulnessVerdict', () => {
  it.each([
    ['{"faithful": true, "score": 0.9, "reasons": ["matches"]}', { ok: true, faithful: true, score: 0.9, reasons: ['matches'] }],
    ['Sure!\n```json\n{"faithful": false, "reasons": "says rose; rows fell {sic}"}\n```', { ok: true, faithful: false, score: 0, reasons: ['says rose; rows fell {sic}'] }],
    ['{"faithful": true}', { ok: true, faithful: true, score: 1, reasons: [] }],
    ['no json here', { ok: false, error: 'judge reply holds no JSON object: no json here' }],
    ['{"faithful": "yes"}', { ok: false, error: 'judge reply: "faithful" must be true or false, received "yes"' }],
    ['{"faithful": true, "score": 3}', { ok: false, error: 'judge reply: "score" must be a number in [0, 1], received 3' }],
    ['{"faithful": true, "reasons": [1]}', { ok: false, error: 'judge reply: "reasons" must be a list of strings' }],
    ['[1, 2]', { ok: false, error: 'judge reply holds no JSON object: [1, 2]' }],
  ])('%s', (reply, verdict) => {
    expect(parseFaithfulnessVerdict(reply)).toEqual(verdict);
  });
});

describe('runFaithfulnessJudge', () => {
  it('calls the provider once with the prompt and reads the verdict', async () => {
    const prompts: string[] = [];
    const provider: JudgeProvider = {
      id: () => 'fake:judge',
      callApi: async (prompt) => {
        prompts.push(prompt);
        return { output: '{"faithful": false, "score": 0.1, "reasons": ["revenue fell from Q2 to Q3; the answer says it rose"]}' };
      },
    };
    const judgement = await runFaithfulnessJudge(provider, input);
    expect(prompts).toEqual([buildFaithfulnessPrompt(input)]);
    expect(judgement.provider).toBe('fake:judge');
    expect(judgement.verdict).toEqual({ ok: true, faithful: false, score: 0.1, reasons: ['revenue fell from Q2 to Q3; the answer says it rose'] });
  });
  it('turns a provider error or throw into an unreadable verdict', async () => {
    const erroring: JudgeProvider = { id: () => 'x', callApi: async () => ({ error: 'rate limited' }) };
    const throwing: JudgeProvider = {
      id: () => 'y',
      callApi: async () => {
        throw new Error('socket hang up');
      },
    };
    expect((await runFaithfulnessJudge(erroring, input)).verdict).toEqual({ ok: false, error: 'judge provider error: rate limited' });
    expect((await runFaithfulnessJudge(throwing, input)).verdict).toEqual({ ok: false, error: 'judge provider threw: socket hang up' });
  });
});
