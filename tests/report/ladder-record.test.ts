import { describe, expect, it } from 'vitest';
import { LADDER_RECORD_VERSION, findLadderRecords, movedLadderRecordOf, readLadderRecord, readRungRecord, storedExecutionFacts, toLadderRecord, toRungRecord } from '../../src/report/ladder-record.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import type { LadderResult } from '../../src/rungs/ladder.js';

/** A ladder record as 0.2.0 wrote it: no `version`. */
const stored020 = {
  kind: 'ladder',
  id: 'q1',
  verdict: 'fail',
  endToEnd: 0,
  expectedBehavior: 'answer',
  output: 'sql',
  reason: 'L2_schema fail: no such column: totl',
  snapshots: ['base'],
  rungs: [{ kind: 'rung', rung: 'schema', status: 'fail', score: 0, reason: 'no such column: totl', issues: [], details: null }],
  statuses: { L2_schema: 'fail' },
  probes: { checked: 0, refused: 0 },
  executed: false,
  goldError: false,
  emptyGoldMatch: false,
};

describe('readLadderRecord (the one guard)', () => {
  it('reads a 0.2.0 record as it is, and a written one with its version', () => {
    expect(readLadderRecord(stored020)).toEqual(stored020);
    const written = toLadderRecord(
      { verdict: 'pass', endToEnd: 1, expectedBehavior: 'answer', answer: { kind: 'sql', sql: 'SELECT 1', source: 'text' }, rungs: [createRungResult({ rung: 'syntax', status: 'pass', reason: 'one query', details: null })], results: {}, reason: 'L1_syntax pass: one query' } satisfies LadderResult,
      { id: 'q2', snapshots: ['base'], facts: { executed: true, goldError: false, emptyGoldMatch: false }, statuses: { L1_syntax: 'pass' }, role: 'analyst' },
    );
    expect(written).toMatchObject({ kind: 'ladder', version: LADDER_RECORD_VERSION, id: 'q2', verdict: 'pass', endToEnd: 1, output: 'sql', role: 'analyst', probes: { checked: 0, refused: 0 } });
    expect(readLadderRecord(JSON.parse(JSON.stringify(written)))).toEqual(written);
  });

  it('fills what a record written before a field existed lacks, and keeps fields it does not know', () => {
    const { statuses: _s, probes: _p, executed: _e, goldError: _g, emptyGoldMatch: _m, ...older } = stored020;
    expect(readLadderRecord({ ...older, trajectory: { steps: 3 }, later: 'kept' })).toEqual({ ...stored020, trajectory: { steps: 3 }, later: 'kept' });
  });

  it('reads an equivalence judge record and drops a judge record it cannot read', () => {
    const judge = {
      judge: 'openai:chat:gpt-4.1', verdict: 'fail', score: null, reason: 'uncalibrated: the judge says not equivalent (lucky_match)',
      task: 'equivalence', state: 'uncalibrated', outcome: 'lucky_match', route: 'possible_lucky_match', asked: true, model: 'gpt-4.1',
      promptVersion: 'equivalence-v1', promptHash: 'a'.repeat(64), differences: ['LEFT JOIN keeps orders without a customer'], equivalent: false,
      witnessOverruled: false, calibrated: false, calibration: 'no calibration record', calls: 1, cached: false, tokens: 812,
    };
    expect(readLadderRecord({ ...stored020, judge })).toEqual({ ...stored020, judge });
    expect(readLadderRecord({ ...stored020, judge: { ...judge, state: 'maybe' } })).toEqual(stored020);
    expect(readLadderRecord({ ...stored020, judge: { judge: 'x', verdict: 'pass', reason: 'ok' } })).toEqual({ ...stored020, judge: { judge: 'x', verdict: 'pass', reason: 'ok', score: null } });
  });

  it.each([
    ['not an object', 'ladder'],
    ['another kind', { ...stored020, kind: 'rung' }],
    ['an unknown verdict', { ...stored020, verdict: 'error' }],
    ['an end_to_end that is no number', { ...stored020, endToEnd: '1' }],
    ['a rung without a status', { ...stored020, rungs: [{ rung: 'schema', reason: 'x' }] }],
    ['a rung with an unknown status', { ...stored020, rungs: [{ rung: 'schema', status: 'maybe', reason: 'x' }] }],
  ])('is undefined for %s', (_case, value) => {
    expect(readLadderRecord(value)).toBeUndefined();
  });
});

describe('toRungRecord / readRungRecord', () => {
  it("keeps L4's predicted row counts, not the rows, and states the policy once", () => {
    const record = toRungRecord(createRungResult({ rung: 'execution', status: 'pass', reason: 'ok', details: { policy: { preset: 'default' }, snapshots: [{ snapshot: 'base', verdict: { match: true, policy: { preset: 'default' } } }], predictedRuns: [{ snapshot: 'base', ok: true, columns: ['n'], rows: [[1n], [2n]] }] } }));
    expect(record.details).toEqual({ policy: { preset: 'default' }, snapshots: [{ snapshot: 'base', verdict: { match: true } }], predictedRuns: [{ snapshot: 'base', ok: true, columns: ['n'], rowCount: 2 }] });
    expect(readRungRecord(JSON.parse(JSON.stringify(record)))).toEqual(record);
    expect(readRungRecord({ kind: 'rung', rung: 'schema', status: 'pass', reason: 'ok' })).toEqual({ kind: 'rung', rung: 'schema', status: 'pass', score: 1, reason: 'ok', issues: [], details: null });
    expect(readRungRecord({ kind: 'ladder' })).toBeUndefined();
  });
});

describe('storedExecutionFacts', () => {
  it("derives L4's facts from its details, and reads the facts a 0.2.0 single-rung record carried", () => {
    const details = { snapshots: [{ snapshot: 'base' }, { snapshot: 'edge' }], goldErrors: [], flags: ['empty_gold'] };
    expect(storedExecutionFacts(readRungRecord({ kind: 'rung', rung: 'execution', status: 'pass', reason: 'ok', details }))).toEqual({ executed: true, goldError: false, emptyGoldMatch: true });
    const failedOnEdge = { ...details, snapshots: [{ snapshot: 'base' }, { snapshot: 'edge', predictedError: { code: 'sqlite_error' } }] };
    expect(storedExecutionFacts(readRungRecord({ kind: 'rung', rung: 'execution', status: 'fail', reason: 'x', details: failedOnEdge }))).toEqual({ executed: false, goldError: false, emptyGoldMatch: false });
    expect(storedExecutionFacts(readRungRecord({ kind: 'rung', rung: 'execution', status: 'unscored', reason: 'no gold SQL: the item is unscored', details: { executed: false, goldError: false, emptyGoldMatch: false } }))).toEqual({ executed: false, goldError: false, emptyGoldMatch: false });
    expect(storedExecutionFacts(undefined)).toEqual({ executed: false, goldError: false, emptyGoldMatch: false });
  });
});

describe('movedLadderRecordOf', () => {
  it('parses the record afterEach moved into the row metadata, once per metadata object', () => {
    const row = { metadata: { id: 'q1', ladder: JSON.stringify(stored020) } };
    const first = movedLadderRecordOf(row);
    expect(first).toEqual(stored020);
    expect(movedLadderRecordOf(row)).toBe(first);
    expect(movedLadderRecordOf({ metadata: { ...row.metadata } })).not.toBe(first);
  });

  it('is undefined without the string, for text that is not JSON, and for JSON that is not a ladder record', () => {
    expect(movedLadderRecordOf({})).toBeUndefined();
    expect(movedLadderRecordOf({ metadata: { ladder: stored020 } })).toBeUndefined();
    expect(movedLadderRecordOf({ metadata: { ladder: '{"kind": "ladder", ' } })).toBeUndefined();
    expect(movedLadderRecordOf({ metadata: { ladder: JSON.stringify({ ...stored020, kind: 'rung' }) } })).toBeUndefined();
    expect(movedLadderRecordOf({ metadata: { ladder: JSON.stringify({ ...stored020, rungs: [{ rung: 'schema' }] }) } })).toBeUndefined();
  });
});

describe('findLadderRecords (the one finder)', () => {
  it('reads the grading result first, the moved record when the grading result has none', () => {
    const inResult = { ...stored020, reason: 'from the grading result' };
    const both = { gradingResult: { componentResults: [{ metadata: { text2sqlLadder: inResult } }] }, metadata: { ladder: JSON.stringify(stored020) } };
    expect(findLadderRecords(both)).toEqual({ ladder: inResult, rungs: [], ladderEntry: inResult });
    const moved = { gradingResult: { componentResults: [{ metadata: { graderOutputs: [] } }] }, metadata: { ladder: JSON.stringify(stored020) } };
    expect(findLadderRecords(moved)).toEqual({ ladder: stored020, rungs: [], ladderEntry: undefined });
  });

  it('collects single-rung records and passes over entries that are no record', () => {
    const rung = { kind: 'rung', rung: 'execution', status: 'pass', score: 1, reason: 'ok', issues: [], details: null };
    const row = { gradingResult: { metadata: { text2sqlLadder: rung }, componentResults: [{ metadata: { text2sqlLadder: rung } }, { metadata: { text2sqlLadder: { kind: 'rung', rung: 'x' } } }, null] } };
    expect(findLadderRecords(row)).toEqual({ ladder: undefined, rungs: [rung], ladderEntry: undefined });
  });
});
