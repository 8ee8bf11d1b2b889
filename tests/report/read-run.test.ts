import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toGradingResult } from '../../src/promptfoo/adapter.js';
import { toLadderGradingResult } from '../../src/promptfoo/ladder-result.js';
import { metricsOf } from '../../src/report/read-promptfoo-run.js';
import { parseRunSpec, readRun } from '../../src/report/read-run.js';
import type { PromptfooRow } from '../../src/report/promptfoo-rows.js';
import { createRungResult, createSkippedResult } from '../../src/rungs/rung-result.js';
import type { LadderResult } from '../../src/rungs/ladder.js';

const dir = mkdtempSync(path.join(tmpdir(), 'read-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

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
const passed: LadderResult = {
  verdict: 'pass',
  endToEnd: 1,
  expectedBehavior: 'answer',
  answer: { kind: 'sql', sql: 'SELECT total FROM orders', source: 'text' },
  rungs: [
    createRungResult({ rung: 'syntax', status: 'pass', reason: 'SQLite prepared it', details: null }),
    createRungResult({ rung: 'schema', status: 'pass', reason: 'every name resolves', details: null }),
    createRungResult({ rung: 'safety', status: 'pass', reason: 'read-only', details: null }),
    createRungResult({ rung: 'execution', status: 'pass', reason: 'matches on 1 snapshot', details: { policy: { preset: 'default' } } }),
  ],
  results: {},
  reason: 'L4_execution pass: matches on 1 snapshot',
};

function ladderRow(id: string, result: LadderResult, promptIdx: number, label: string, extra: Partial<PromptfooRow> = {}): PromptfooRow {
  const graded = toLadderGradingResult(result, { id, snapshots: ['base'], facts: { executed: result.verdict === 'pass', goldError: false, emptyGoldMatch: false } });
  return {
    promptIdx,
    provider: { id: `replay:${label}.jsonl`, label },
    testCase: { vars: { id, question: `q ${id}`, db: 'warehouse' }, metadata: { id, tags: ['difficulty:easy'] } },
    gradingResult: { componentResults: [graded as never, ...((graded.componentResults ?? []) as never[])] },
    failureReason: graded.pass ? 0 : 1,
    ...extra,
  };
}

const twoColumns = write(
  'eval.json',
  JSON.stringify({
    results: {
      prompts: [{ provider: 'weak', label: 'text2sql', id: 'x' }, { provider: 'strong', label: 'text2sql', id: 'x' }],
      results: [ladderRow('q1', failedAtL2, 0, 'weak'), ladderRow('q2', passed, 0, 'weak'), ladderRow('q1', passed, 1, 'strong'), ladderRow('q2', passed, 1, 'strong')],
    },
    config: {},
  }),
);

describe('parseRunSpec', () => {
  it('splits FILE#COLUMN at the last # unless the whole path exists', () => {
    expect(parseRunSpec('out/eval.json#weak')).toEqual({ file: 'out/eval.json', selector: 'weak' });
    expect(parseRunSpec('a#b.json#openai:chat:gpt-4')).toEqual({ file: 'a#b.json', selector: 'openai:chat:gpt-4' });
    const hashName = write('run#1.jsonl', '{"i":0,"db_id":"x","exec":1,"error":null,"flags":[],"goldIndex":0,"hardness":"easy"}\n');
    expect(parseRunSpec(hashName)).toEqual({ file: hashName, selector: undefined });
  });
});

describe('readRun: promptfoo result files', () => {
  it('reads a column by provider label, with each rung that ran and end_to_end', () => {
    const weak = readRun(`${twoColumns}#weak`);
    expect({ label: weak.label, format: weak.format, identity: weak.identity }).toEqual({ label: 'weak', format: 'promptfoo', identity: undefined });
    expect(weak.items).toEqual([
      {
        id: 'q1',
        tags: ['difficulty:easy'],
        metrics: {
          L1_syntax: { status: 'pass', reason: 'SQLite prepared it' },
          L2_schema: { status: 'fail', reason: 'no such column: totl' },
          end_to_end: { status: 'fail', reason: 'L2_schema fail: no such column: totl; skipped: L3_safety, L4_execution' },
        },
      },
      {
        id: 'q2',
        tags: ['difficulty:easy'],
        metrics: {
          L1_syntax: { status: 'pass', reason: 'SQLite prepared it' },
          L2_schema: { status: 'pass', reason: 'every name resolves' },
          L3_safety: { status: 'pass', reason: 'read-only' },
          L4_execution: { status: 'pass', reason: 'matches on 1 snapshot' },
          end_to_end: { status: 'pass', reason: 'L4_execution pass: matches on 1 snapshot' },
        },
      },
    ]);
    expect(weak.derived.policies).toEqual([{ preset: 'default' }]);
    expect(weak.derived.datasetContentHash).toBe(readRun(`${twoColumns}#strong`).derived.datasetContentHash);
    expect(readRun(`${twoColumns}#1`).label).toBe('strong');
    expect(readRun(`${twoColumns}#replay:strong.jsonl`).label).toBe('strong');
  });

  it.each([
    ['no selector on two columns', '', 'eval.json has 2 columns; name one: '],
    ['an unknown column', '#medium', 'eval.json has no column "medium"; its columns: #weak, #strong'],
  ])('misuse: %s', (_name, suffix, message) => {
    expect(() => readRun(`${twoColumns}${suffix}`)).toThrow(message);
  });

  it('a provider with two prompts: columns are named label/prompt', () => {
    const file = write(
      'prompts.json',
      JSON.stringify({ results: { prompts: [{ provider: 'gpt', label: 'short' }, { provider: 'gpt', label: 'long' }], results: [ladderRow('q1', passed, 0, 'gpt'), ladderRow('q1', passed, 1, 'gpt')] } }),
    );
    expect(() => readRun(`${file}#gpt`)).toThrow(`${file}#gpt names 2 columns (#gpt/short, #gpt/long); use one of those`);
    expect(readRun(`${file}#gpt/long`).label).toBe('gpt/long');
    // The ladder summary's label for the same column picks it too.
    expect(readRun(`${file}#gpt [long]`).label).toBe('gpt/long');
    expect(readRun(`${file}#gpt [short]`).label).toBe('gpt/short');
  });

  it('a repeated item id in one column is an error naming the rows (promptfoo --repeat)', () => {
    const file = write('repeat.json', JSON.stringify({ results: { prompts: [{ provider: 'weak' }], results: [ladderRow('q1', passed, 0, 'weak'), ladderRow('q1', passed, 0, 'weak')] } }));
    expect(() => readRun(file)).toThrow(`${file}#weak: item id "q1" appears in two rows (1 and 2 of the column); compare needs one row per item (was the eval run with --repeat?)`);
  });

  it('promptfoo JSONL rows are read too', () => {
    const file = write('rows.jsonl', [ladderRow('q1', passed, 0, 'weak'), ladderRow('q2', failedAtL2, 0, 'weak')].map((row) => JSON.stringify(row)).join('\n'));
    expect(readRun(file).items.map((item) => [item.id, item.metrics['end_to_end']?.status])).toEqual([['q1', 'pass'], ['q2', 'fail']]);
  });
});

describe('metricsOf: rows without the ladder assertion', () => {
  it('an errored row fails end_to_end with the error, and nothing else', () => {
    expect(metricsOf({ failureReason: 2, error: 'Error: unknown fixture "warehous"\n    at …' })).toEqual({ end_to_end: { status: 'fail', reason: 'error: Error: unknown fixture "warehous" at …' } });
  });

  it('single-rung assertions (the Spider example): the rungs, and end_to_end from them', () => {
    const execution = (status: 'pass' | 'fail' | 'unscored') => toGradingResult(createRungResult({ rung: 'execution', status, reason: `exec ${status}`, details: null }));
    const row = (graded: ReturnType<typeof execution>): PromptfooRow => ({ gradingResult: { componentResults: [graded as never] } });
    expect(metricsOf(row(execution('pass')))).toEqual({ L4_execution: { status: 'pass', reason: 'exec pass' }, end_to_end: { status: 'pass', reason: 'L4_execution pass: exec pass' } });
    expect(metricsOf(row(execution('fail')))).toEqual({ L4_execution: { status: 'fail', reason: 'exec fail' }, end_to_end: { status: 'fail', reason: 'L4_execution fail: exec fail' } });
    expect(metricsOf(row(execution('unscored')))).toEqual({});
  });

  it('other assertions: their 0/1 named scores', () => {
    expect(metricsOf({ namedScores: { exec_match: 1, similarity: 0.4, valid: 0 }, gradingResult: { reason: 'ok' } })).toEqual({ exec_match: { status: 'pass', reason: 'ok' }, valid: { status: 'fail', reason: 'ok' } });
  });
});

describe('readRun: text2sql-ladder spider JSONL', () => {
  const lines = [
    { i: 0, db_id: 'concert_singer', exec: 1, error: null, flags: [], goldIndex: 0, hardness: 'easy' },
    { i: 1, db_id: 'concert_singer', exec: 0, error: 'snapshot concert_singer: 1 missing row', flags: [], goldIndex: 0, hardness: 'medium' },
    { i: 2, db_id: 'nowhere', exec: null, error: 'unknown db_id "nowhere"', flags: ['gold_error', 'unknown_db'], goldIndex: null, hardness: null },
  ];
  const file = write('verdicts.jsonl', `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

  it('one item per line: id = i, tags db_id and hardness, end_to_end from exec (null leaves it out)', () => {
    const runRecord = readRun(file);
    expect({ ...runRecord, spec: undefined }).toEqual({
      spec: undefined,
      label: 'verdicts',
      format: 'spider-jsonl',
      identity: undefined,
      derived: {},
      items: [
        { id: '0', tags: ['db_id:concert_singer', 'hardness:easy'], metrics: { end_to_end: { status: 'pass', reason: 'execution match' } } },
        { id: '1', tags: ['db_id:concert_singer', 'hardness:medium'], metrics: { end_to_end: { status: 'fail', reason: 'snapshot concert_singer: 1 missing row' } } },
        { id: '2', tags: ['db_id:nowhere'], metrics: {} },
      ],
    });
  });

  it.each([
    ['a selector', `#weak`, undefined, 'is a Spider JSONL with one run; drop "#weak"'],
    ['a line that is not JSON', '', '{"i":0,"exec":1}\nnot json\n', ':2: not JSON'],
    ['a bad exec', '', '{"i":0,"exec":2}\n', ':1: "exec" must be 1, 0 or null; received 2'],
    ['a repeated i', '', '{"i":0,"exec":1}\n{"i":0,"exec":0}\n', ':2: item 0 already appears at line 1'],
    ['a line without i', '', '{"i":0,"exec":1}\n{"exec":0}\n', ':2: expected a Spider verdict object with "i" and "exec" (text2sql-ladder spider --out)'],
  ])('misuse: %s', (_name, suffix, text, message) => {
    const target = text === undefined ? file : write(`bad-${Math.random().toString(36).slice(2)}.jsonl`, text);
    expect(() => readRun(`${target}${suffix}`)).toThrow(message);
  });

  it('a malformed run file beside it is an error naming it', () => {
    const other = write('withrun.jsonl', '{"i":0,"exec":1}\n');
    write('withrun.jsonl.run.json', '{"format": "something else"}');
    expect(() => readRun(other)).toThrow(`${other}.run.json: run identity field format must be "text2sql-ladder.run-identity/1" (received "something else")`);
  });
});

describe('readRun: unreadable and unknown files', () => {
  it.each([
    ['a missing file', path.join(dir, 'nope.json'), 'cannot read run file'],
    ['a folder', dir, 'it is a folder'],
    ['an empty file', write('empty.json', '  \n'), 'is empty'],
    ['CSV', write('eval.csv', 'a,b\n1,2\n'), 'not a run file'],
    ['other JSON lines', write('other.jsonl', '{"a":1}\n'), 'not a run file'],
    ['JSON that is not a promptfoo result', write('other.json', '{"results": []}'), 'not a promptfoo result file'],
  ])('%s', (_name, file, message) => {
    expect(() => readRun(file)).toThrow(message);
  });
});
