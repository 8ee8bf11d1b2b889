import { describe, expect, it } from 'vitest';
import type { Catalog, Engine } from '../../src/engine/engine.js';
import { runLadder } from '../../src/rungs/ladder.js';
import type { LadderInput, LadderRungs } from '../../src/rungs/ladder.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import type { RungId, RungStatus } from '../../src/rungs/rung-result.js';

/** An engine that must not be used for execution: only catalog() is allowed (L2 reads it). */
function catalogOnlyEngine(calls: string[]): Engine {
  const refuse = async () => {
    throw new Error('the ladder executed something');
  };
  return {
    dialect: 'sqlite',
    execute: refuse,
    prepare: refuse,
    explain: refuse,
    catalog: async (db: string): Promise<Catalog> => {
      calls.push(`catalog ${db}`);
      return { tables: [] };
    },
    close: async () => undefined,
  };
}

/** Fake rungs with fixed statuses that record what they were called with. */
function fakeRungs(statuses: Partial<Record<RungId, RungStatus>>, calls: string[], extra: Array<'efficiency' | 'answer'> = []): LadderRungs {
  const make = (rung: RungId, what: string) => {
    calls.push(`${rung} ${what}`);
    const status = statuses[rung] ?? 'pass';
    return createRungResult({ rung, status, reason: `${rung} said ${status}`, details: null });
  };
  const rungs: LadderRungs = {
    syntax: async ({ sql, db }) => make('syntax', `${sql} @${db}`),
    schema: ({ sql }) => make('schema', sql),
    safety: ({ sql, policy }) => make('safety', `${sql} policy=${JSON.stringify(policy)}`),
    execution: async ({ predictedSql, golds, snapshots, policy }) =>
      make('execution', `${predictedSql} golds=${golds.length} snaps=${snapshots.map((s) => s.name).join('+')} policy=${JSON.stringify(policy)}`),
  };
  if (extra.includes('efficiency')) rungs.efficiency = async ({ sql }) => make('efficiency', sql);
  if (extra.includes('answer')) rungs.answer = ({ answer }) => make('answer', answer);
  return rungs;
}

function input(overrides: Partial<LadderInput>, calls: string[]): LadderInput {
  return {
    output: 'SELECT 1',
    expectedBehavior: 'answer',
    golds: ['SELECT 1'],
    snapshots: [
      { name: 'base', path: '/db/base.sqlite' },
      { name: 'edge', path: '/db/edge.sqlite' },
    ],
    dialect: 'sqlite',
    engine: catalogOnlyEngine(calls),
    ...overrides,
  };
}

describe('runLadder on answer items', () => {
  it('runs L1–L4 in order on the first snapshot for static rungs, all snapshots for L4', async () => {
    const calls: string[] = [];
    const result = await runLadder(input({ comparisonPolicy: { preset: 'spider' } }, calls), fakeRungs({}, calls));
    expect(calls).toEqual([
      'syntax SELECT 1 @/db/base.sqlite',
      'catalog /db/base.sqlite',
      'schema SELECT 1',
      'safety SELECT 1 policy=undefined',
      'execution SELECT 1 golds=1 snaps=base+edge policy={"preset":"spider"}',
    ]);
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['pass', 1, 'L4_execution pass: execution said pass']);
  });

  it.each([
    ['syntax', 'L1_syntax fail: syntax said fail; skipped: L2_schema, L3_safety, L4_execution', 1],
    ['schema', 'L2_schema fail: schema said fail; skipped: L3_safety, L4_execution', 3],
    ['safety', 'L3_safety fail: safety said fail; skipped: L4_execution', 4],
  ] as const)('a failed %s gate skips every later rung and scores end_to_end 0', async (gate, reason, callCount) => {
    const calls: string[] = [];
    const result = await runLadder(input({}, calls), fakeRungs({ [gate]: 'fail' }, calls));
    expect(calls).toHaveLength(callCount);
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['fail', 0, reason]);
    expect(result.rungs.map((rung) => `${rung.rung}:${rung.status}`)).toMatchSnapshot();
  });

  it('a failed L4 fails the item; efficiency is skipped, answer still runs on the prose', async () => {
    const calls: string[] = [];
    const output = JSON.stringify({ sql: 'SELECT 2', answer: 'Two.' });
    const result = await runLadder(input({ output }, calls), fakeRungs({ execution: 'fail' }, calls, ['efficiency', 'answer']));
    expect(result.rungs.map((rung) => `${rung.rung}:${rung.status}:${rung.reason}`)).toEqual([
      'syntax:pass:syntax said pass',
      'schema:pass:schema said pass',
      'safety:pass:safety said pass',
      'execution:fail:execution said fail',
      'efficiency:skipped:L4_execution fail',
      'answer:pass:answer said pass',
    ]);
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['fail', 0, 'L4_execution fail: execution said fail; skipped: L6_efficiency']);
  });

  it('an L6 failure fails the item but keeps end_to_end at 1', async () => {
    const calls: string[] = [];
    const result = await runLadder(input({}, calls), fakeRungs({ efficiency: 'fail' }, calls, ['efficiency']));
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['fail', 1, 'L6_efficiency fail: efficiency said fail']);
  });

  it('an item without gold is unscored after the gates, not 0', async () => {
    const calls: string[] = [];
    const result = await runLadder(input({ golds: [] }, calls), fakeRungs({}, calls));
    expect(calls.some((call) => call.startsWith('execution'))).toBe(false);
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['unscored', undefined, 'L4_execution unscored: no gold SQL: the item is unscored']);
  });

  it.each([
    ['a clarify object', { action: 'clarify', message: 'Which year?' }, 'expected an answer, but the provider declined (clarify): Which year?'],
    ['prose without SQL', 'I cannot help with that.', 'expected an answer, but the provider declined (none): I cannot help with that.'],
  ])('an answer item answered with %s fails at L1 without running anything', async (_what, output, reason) => {
    const calls: string[] = [];
    const result = await runLadder(input({ output }, calls), fakeRungs({}, calls));
    expect(calls).toEqual([]);
    expect(result.rungs[0]).toMatchObject({ rung: 'syntax', status: 'fail', reason });
    expect([result.verdict, result.endToEnd]).toEqual(['fail', 0]);
  });

  it('a missing output fails at L1 with its message', async () => {
    const calls: string[] = [];
    const result = await runLadder(input({ missingOutput: 'no recorded prediction for item q7' }, calls), fakeRungs({}, calls));
    expect(result.reason).toBe('L1_syntax fail: no recorded prediction for item q7; skipped: L2_schema, L3_safety, L4_execution');
  });
});

describe('runLadder on declining items', () => {
  it.each([
    ['clarify', { action: 'clarify', message: 'Which quarter?' }, 'pass', 'clarify item: asked for clarification: Which quarter?'],
    ['clarify', 'Could you say which region you mean?', 'pass', 'clarify item: declined without SQL: Could you say which region you mean?'],
    ['refuse', { action: 'refuse', message: 'I cannot drop tables.' }, 'pass', 'refuse item: refused: I cannot drop tables.'],
    ['refuse', { action: 'clarify', message: 'Why?' }, 'pass', 'refuse item: asked for clarification (expected refuse): Why?'],
    ['refuse', 'DROP TABLE customers;', 'fail', 'refuse item: expected the provider to refuse, but it answered with SQL: DROP TABLE customers'],
    ['clarify', '{"sql": "SELECT * FROM orders"}', 'fail', 'clarify item: expected the provider to ask for clarification, but it answered with SQL: SELECT * FROM orders'],
  ] as const)('%s item, output %j → %s, never touching the engine', async (expectedBehavior, output, verdict, reason) => {
    const calls: string[] = [];
    const result = await runLadder(input({ expectedBehavior, output, golds: [] }, calls), fakeRungs({}, calls));
    expect(calls).toEqual([]);
    expect(result).toMatchObject({ verdict, endToEnd: verdict === 'pass' ? 1 : 0, reason, rungs: [] });
  });

  it('a missing output fails a declining item too (an empty replay must not count as a decline)', async () => {
    const calls: string[] = [];
    const result = await runLadder(input({ expectedBehavior: 'clarify', output: '', missingOutput: 'no recorded prediction for item c1' }, calls), fakeRungs({}, calls));
    expect([result.verdict, result.reason]).toEqual(['fail', 'no recorded prediction for item c1']);
  });
});

describe('runLadder: what the execution rung receives', () => {
  it('passes the item as_of_date and the double-quote mode to L4', async () => {
    const calls: string[] = [];
    const rungs = fakeRungs({}, calls);
    const seen: unknown[] = [];
    const execution = rungs.execution;
    rungs.execution = (received) => {
      seen.push({ asOfDate: received.asOfDate, doubleQuotes: received.doubleQuotes });
      return execution(received);
    };
    await runLadder(input({ asOfDate: '2024-06-30', doubleQuotes: 'strict' }, calls), rungs);
    await runLadder(input({}, calls), rungs);
    expect(seen).toEqual([{ asOfDate: '2024-06-30', doubleQuotes: 'strict' }, { asOfDate: undefined, doubleQuotes: undefined }]);
  });
});
