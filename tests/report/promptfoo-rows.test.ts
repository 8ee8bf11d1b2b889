import { describe, expect, it } from 'vitest';
import { findStoredVerdicts, movedLadderOf } from '../../src/report/promptfoo-rows.js';

const verdict = { kind: 'ladder', verdict: 'fail', endToEnd: 0, reason: 'L2_schema fail: no such column: totl', rungs: [{ rung: 'schema', status: 'fail', reason: 'no such column: totl' }] };

describe('movedLadderOf', () => {
  it('parses the verdict afterEach moved into the row metadata, once per metadata object', () => {
    const row = { metadata: { id: 'q1', ladder: JSON.stringify(verdict) } };
    const first = movedLadderOf(row);
    expect(first).toEqual(verdict);
    expect(movedLadderOf(row)).toBe(first);
    expect(movedLadderOf({ metadata: { ...row.metadata } })).not.toBe(first);
  });

  it('is undefined without the string, for text that is not JSON, and for JSON that is not a ladder verdict', () => {
    expect(movedLadderOf({})).toBeUndefined();
    expect(movedLadderOf({ metadata: { ladder: verdict } })).toBeUndefined();
    expect(movedLadderOf({ metadata: { ladder: '{"kind": "ladder", ' } })).toBeUndefined();
    expect(movedLadderOf({ metadata: { ladder: JSON.stringify({ ...verdict, kind: 'rung' }) } })).toBeUndefined();
    expect(movedLadderOf({ metadata: { ladder: JSON.stringify({ ...verdict, rungs: [{ rung: 'schema' }] }) } })).toBeUndefined();
  });
});

describe('findStoredVerdicts', () => {
  it('reads the grading result first, the moved verdict when the grading result has none', () => {
    const inResult = { ...verdict, reason: 'from the grading result' };
    const both = { gradingResult: { componentResults: [{ metadata: { text2sqlLadder: inResult } }] }, metadata: { ladder: JSON.stringify(verdict) } };
    expect(findStoredVerdicts(both)).toEqual({ ladder: inResult, rungs: [] });
    const moved = { gradingResult: { componentResults: [{ metadata: { graderOutputs: [] } }] }, metadata: { ladder: JSON.stringify(verdict) } };
    expect(findStoredVerdicts(moved)).toEqual({ ladder: verdict, rungs: [] });
  });
});
