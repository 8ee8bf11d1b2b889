import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach as restore, describe, expect, it, vi } from 'vitest';
import { toGradingResult } from '../../src/promptfoo/adapter.js';
import { toLadderGradingResult } from '../../src/promptfoo/ladder-result.js';
import { afterAll, afterEach, flatExecutionFacts, summarizeRows, toSummaryRecord } from '../../src/promptfoo/summary-hooks.js';
import { ladderSummaryFile } from '../../src/promptfoo/summary-file.js';
import { noteLines } from '../../src/report/render-summary.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { PromptfooRow as ResultRow } from '../../src/report/promptfoo-rows.js';
import type { LadderResult } from '../../src/rungs/ladder.js';
import { createRungResult, createSkippedResult } from '../../src/rungs/rung-result.js';

restore(() => {
  vi.restoreAllMocks();
  delete process.env['LADDER_SUMMARY_JSON'];
});

const failedAtL2: LadderResult = {
  verdict: 'fail',
  endToEnd: 0,
  expectedBehavior: 'answer',
  answer: { kind: 'sql', sql: 'SELECT totl FROM orders', source: 'text' },
  rungs: [
    createRungResult({ rung: 'syntax', status: 'pass', reason: 'SQLite prepared it', details: null }),
    createRungResult({ rung: 'schema', status: 'fail', reason: 'no such column: totl', details: null }),
    createSkippedResult('safety', 'L2_schema fail'),
    createSkippedResult('execution', 'L2_schema fail'),
  ],
  results: {},
  reason: 'L2_schema fail: no such column: totl; skipped: L3_safety, L4_execution',
};

/** A promptfoo row as the evaluator builds it: our result is the first component. */
function row(graded: ReturnType<typeof toGradingResult>, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    provider: { id: 'replay:weak.jsonl', label: 'weak' },
    testCase: { metadata: { id: 'q1', tags: ['difficulty:easy'], expected_behavior: 'answer' } },
    gradingResult: { componentResults: [graded, ...(graded.componentResults ?? [])] },
    failureReason: graded.pass ? 0 : 1,
    metadata: { id: 'q1' },
    ...extra,
  };
}

const ladderRow = () => row(toLadderGradingResult(failedAtL2, { id: 'q1', snapshots: ['base'], facts: { executed: false, goldError: false, emptyGoldMatch: false } }));

describe('afterEach', () => {
  it('copies every rung verdict and the ladder details into the row metadata', async () => {
    const result = ladderRow();
    await afterEach({ result });
    expect(result.metadata).toMatchObject({
      id: 'q1',
      L1_syntax: 'pass: SQLite prepared it',
      L2_schema: 'fail: no such column: totl',
      L3_safety: 'skipped: L2_schema fail',
      L4_execution: 'skipped: L2_schema fail',
      end_to_end: '0',
      ladder_verdict: 'fail',
    });
    expect(JSON.parse(String(result.metadata?.['ladder']))).toMatchObject({ kind: 'ladder', id: 'q1', statuses: { L2_schema: 'fail', L4_execution: 'skipped' } });
  });

  it('moves the ladder details: the stored row holds them once, and the summary reads them there', async () => {
    const before = toSummaryRecord(ladderRow());
    const result = ladderRow();
    await afterEach({ result });
    const components = result.gradingResult?.componentResults ?? [];
    expect(Object.keys(components[0]?.metadata ?? {})).toEqual(['graderOutputs']);
    expect(components.slice(1).map((component) => component?.metadata?.['text2sqlLadder'])).toEqual(components.slice(1).map(() => undefined));
    expect(toSummaryRecord(result)).toEqual(before);
    expect(before?.verdict).toBe('fail');
  });

  it('L4 key facts are flat fields; the policy once per row', () => {
    const details = {
      policy: resolvePolicy(undefined),
      goldIndex: 0,
      firstFailingSnapshot: 'edge',
      flags: ['ordered'],
      snapshots: [
        { snapshot: 'base', verdict: { match: true, firstDifference: null } },
        { snapshot: 'edge', verdict: { match: false, firstDifference: { goldRow: 0, predictedRow: 0, goldColumn: 0, predictedColumn: 0, gold: 415447.25, predicted: 1040070.25 } } },
      ],
    };
    expect(flatExecutionFacts({ kind: 'rung', rung: 'execution', status: 'fail', score: 0, reason: '', issues: [], details })).toEqual({
      L4_snapshot: 'edge',
      L4_gold_index: '0',
      L4_first_difference: 'row 0, column 0: gold 415447.25 vs predicted 1040070.25',
      L4_flags: 'ordered',
      L4_policy: 'default: row order gold-order-by, column order ignore, duplicates multiset, float tolerance relative 0.000001, extra columns not allowed',
    });
  });

  it('leaves rows without ladder metadata alone and never throws', async () => {
    const plain: ResultRow = { metadata: { a: 1 }, gradingResult: null };
    await expect(afterEach({ result: plain })).resolves.toEqual({ result: { metadata: { a: 1 }, gradingResult: null } });
    await expect(afterEach({})).resolves.toEqual({});
  });
});

describe('toSummaryRecord', () => {
  it('reads the ladder metadata', () => {
    expect(toSummaryRecord(ladderRow())).toEqual({
      provider: 'weak',
      id: 'q1',
      tags: ['difficulty:easy'],
      expectedBehavior: 'answer',
      verdict: 'fail',
      endToEnd: 0,
      executed: false,
      rungs: { L1_syntax: 'pass', L2_schema: 'fail', L3_safety: 'skipped', L4_execution: 'skipped' },
      goldError: false,
      emptyGoldMatch: false,
    });
  });

  it('reads a single execution rung (the Spider example) and counts an errored row as an error', () => {
    const execution = toGradingResult(createRungResult({ rung: 'execution', status: 'pass', reason: 'matches', details: { executed: true, goldError: false, emptyGoldMatch: true } }));
    expect(toSummaryRecord(row(execution))).toMatchObject({ verdict: 'pass', endToEnd: 1, executed: true, emptyGoldMatch: true, rungs: { L4_execution: 'pass' } });
    expect(toSummaryRecord({ ...row(execution), failureReason: 2, gradingResult: null })).toMatchObject({ verdict: 'error', executed: false, rungs: {} });
    expect(toSummaryRecord({ provider: { id: 'x' }, gradingResult: { componentResults: [] } })).toBeUndefined();
  });
});

describe('afterAll', () => {
  it('prints the summary and writes LADDER_SUMMARY_JSON', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'summary-'));
    const file = path.join(dir, 'nested', 'summary.json');
    process.env['LADDER_SUMMARY_JSON'] = file;
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await afterAll({ results: [ladderRow()] });
      expect(String(stdout.mock.calls[0]?.[0])).toMatch(/│ end-to-end correct +│ 0\/1 \(0\.0%\) +│/);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject([{ provider: 'weak', items: 1, endToEnd: { passed: 0, n: 1 } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('afterAll: a run that lost rows', () => {
  it('says so on stderr and sets exit code 3 (incomplete); a complete run does not', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const before = process.exitCode;
    try {
      const prompts = [{ provider: 'strong' }, { provider: 'weak' }];
      const suite = { tests: [{}, {}] };
      const rows = (keys: [number, number][]) => keys.map(([testIdx, promptIdx]) => ({ ...ladderRow(), testIdx, promptIdx }));
      await afterAll({ results: rows([[0, 0], [1, 0], [0, 1], [1, 1]]), suite, prompts });
      expect(process.exitCode).toBe(before);
      expect(written.join('')).not.toContain('incomplete run');
      await afterAll({ results: rows([[0, 0], [1, 0], [0, 1]]), suite, prompts });
      expect(process.exitCode).toBe(3);
      expect(written.join('')).toContain('text2sql-ladder: ERROR: incomplete run: 3 of 4 rows (2 items × 2 columns); missing: weak: item 1; the summary does not cover the dataset');
    } finally {
      process.exitCode = before;
    }
  });
});

describe('summarizeRows: one summary per prompt × provider', () => {
  it('a prompt A/B on one provider is two columns, never merged', () => {
    const a = { ...ladderRow(), promptIdx: 0, testIdx: 0 };
    const b = { ...ladderRow(), promptIdx: 1, testIdx: 0 };
    const c = { ...ladderRow(), promptIdx: 1, testIdx: 1 };
    const prompts = [{ provider: 'weak', label: 'prompts/v1.txt' }, { provider: 'weak', label: 'prompts/v2.txt' }];
    const summaries = summarizeRows([c, a, b], prompts);
    expect(summaries.map((summary) => [summary.provider, summary.prompt, summary.column, summary.items])).toEqual([
      ['weak [prompts/v1.txt]', 'prompts/v1.txt', 0, 1],
      ['weak [prompts/v2.txt]', 'prompts/v2.txt', 1, 2],
    ]);
  });

  it('one prompt per provider keeps the provider as the label', () => {
    const summaries = summarizeRows([{ ...ladderRow(), promptIdx: 0 }], [{ provider: 'weak', label: 'p' }]);
    expect(summaries.map((summary) => summary.provider)).toEqual(['weak']);
  });
});

describe('afterAll: errored rows', () => {
  it('an infrastructure fault on a row is an ERROR row: named on stderr with its cause, in no rate, exit code 3', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const before = process.exitCode;
    try {
      const errored: ResultRow = {
        ...ladderRow(),
        testCase: { metadata: { id: 'q2', tags: [], expected_behavior: 'answer' } },
        metadata: { id: 'q2' },
        failureReason: 2,
        gradingResult: null,
        error: 'LadderError: cannot open /app/db/corrupt.sqlite: file is not a database (in assertions/ladder.ts:ladder)\n    at checked (file:///x.js:1:1)',
      };
      await afterAll({ results: [ladderRow(), errored] });
      expect(process.exitCode).toBe(3);
      expect(written.join('')).toBe('text2sql-ladder: ERROR: incomplete run: 1 errored row (not graded, in no rate): weak: q2: cannot open /app/db/corrupt.sqlite: file is not a database (in assertions/ladder.ts:ladder)\n');
      const summary = printed.join('');
      expect(summary).toMatch(/│ errored rows +│ 1 +│/);
      expect(summary).toMatch(/│ scored +│ 1 +│/);
      expect(summary).toMatch(/│ end-to-end correct +│ 0\/1 \(0\.0%\) +│/);
      expect(summary).toContain('errored rows (not graded, in no rate; the run exits 3): weak: q2');
    } finally {
      process.exitCode = before;
    }
  });
});

describe('items without gold SQL', () => {
  const unscored: LadderResult = {
    verdict: 'unscored',
    endToEnd: undefined,
    expectedBehavior: 'answer',
    answer: { kind: 'sql', sql: 'SELECT COUNT(*) FROM t', source: 'text' },
    rungs: [
      createRungResult({ rung: 'syntax', status: 'pass', reason: 'SQLite prepared it', details: null }),
      createRungResult({ rung: 'execution', status: 'unscored', reason: 'no gold SQL: nothing checks the result, so the item is unscored (never counted as 0); add gold_sql to grade it', details: { executedSql: { predicted: 'SELECT COUNT(*) FROM t', golds: [] } } }),
    ],
    results: {},
    reason: 'unscored: no gold SQL',
  };

  it('the row fails (never a green PASS) with score 0 and no end_to_end named score; the summary lists it by id', () => {
    const graded = toLadderGradingResult(unscored, { id: 'q9', snapshots: ['base'], facts: { executed: true, goldError: false, emptyGoldMatch: false } });
    expect([graded.pass, graded.score, graded.namedScores?.['end_to_end']]).toEqual([false, 0, undefined]);
    const noGold = row(graded, { testCase: { vars: { gold_sql: [] }, metadata: { id: 'q9', tags: [], expected_behavior: 'answer' } }, metadata: { id: 'q9' } });
    expect(toSummaryRecord(noGold)).toMatchObject({ id: 'q9', verdict: 'unscored', noGold: true });
    const [summary] = summarizeRows([ladderRow(), noGold]);
    expect([summary?.scored, summary?.unscored, summary?.withoutGold, summary?.endToEnd]).toEqual([1, 1, ['q9'], { passed: 0, n: 1, rate: 0 }]);
    expect(noteLines(summarizeRows([ladderRow(), noGold]))).toEqual(['without gold SQL (unscored, graded by nothing; their rows fail): weak: q9']);
  });
});

describe('ladderSummaryFile', () => {
  it.each([
    [{}, ['node', 'promptfoo', 'eval', '-o', 'out/v2.json'], 'out/v2-summary.json'],
    [{}, ['node', 'promptfoo', 'eval', '-o', 'out/a.json', 'out/a.html'], 'out/a-summary.json'],
    [{}, ['node', 'promptfoo', 'eval', '--output=runs/x.json'], 'runs/x-summary.json'],
    [{}, ['node', 'promptfoo', 'eval', '-o', 'out/a.html'], undefined],
    [{}, ['node', 'promptfoo', 'eval'], undefined],
    [{ LADDER_SUMMARY_JSON: 'mine.json' }, ['node', 'promptfoo', 'eval', '-o', 'out/v2.json'], 'mine.json'],
    [{ LADDER_SUMMARY_JSON: 'off' }, ['node', 'promptfoo', 'eval', '-o', 'out/v2.json'], undefined],
  ])('%j %j → %s', (env, argv, expected) => {
    expect(ladderSummaryFile(env, argv)).toBe(expected);
  });
});
