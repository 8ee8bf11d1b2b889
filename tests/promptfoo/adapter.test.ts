import { describe, expect, it } from 'vitest';
import { guardAssertion, toGradingResult, withFile } from '../../src/promptfoo/adapter.js';
import { toJsonSafe } from '../../src/report/ladder-record.js';
import { LadderError } from '../../src/errors.js';
import { createRungResult, createSkippedResult } from '../../src/rungs/rung-result.js';

describe('toGradingResult', () => {
  it('maps a failing ladder rung to its L-name, one child with its own assertion, details in metadata', () => {
    const result = createRungResult({
      rung: 'schema',
      status: 'fail',
      reason: 'no such column: orders.totl\n(did you mean total?)',
      issues: [{ kind: 'unknown_column', message: 'no such column: orders.totl', line: 1, column: 8, suggestion: 'total' }],
      details: { unknown: ['orders.totl'] },
    });
    expect(toGradingResult(result, { assertionValue: 'assertions/schema.ts:schema' })).toMatchInlineSnapshot(`
      {
        "componentResults": [
          {
            "assertion": {
              "type": "javascript",
              "value": "assertions/schema.ts:schema",
            },
            "pass": false,
            "reason": "no such column: orders.totl (did you mean total?)",
            "score": 0,
          },
        ],
        "metadata": {
          "graderOutputs": {
            "L2_schema": "fail: no such column: orders.totl (did you mean total?)",
          },
          "text2sqlLadder": {
            "details": {
              "unknown": [
                "orders.totl",
              ],
            },
            "issues": [
              {
                "column": 8,
                "kind": "unknown_column",
                "line": 1,
                "message": "no such column: orders.totl",
                "suggestion": "total",
              },
            ],
            "kind": "rung",
            "reason": "no such column: orders.totl
      (did you mean total?)",
            "rung": "schema",
            "score": 0,
            "status": "fail",
          },
        },
        "namedScores": {
          "L2_schema": 0,
        },
        "pass": false,
        "reason": "no such column: orders.totl (did you mean total?)",
        "score": 0,
      }
    `);
  });

  it('keeps a diagnostic rung under its id and merges its extra named scores', () => {
    const result = createRungResult({ rung: 'astDistance', status: 'pass', score: 0.75, reason: 'distance 2', details: null, namedScores: { ast_similarity: 0.75, bad: Number.NaN } });
    const graded = toGradingResult(result);
    expect(graded.namedScores).toEqual({ astDistance: 0.75, ast_similarity: 0.75 });
    expect(graded.componentResults?.[0]?.assertion).toEqual({ type: 'javascript', value: 'text2sql-ladder:astDistance' });
  });

  it.each([
    ['skipped', createSkippedResult('efficiency', 'L4 execution failed'), true, 'skipped: L4 execution failed'],
    // Unscored judged nothing: never a green PASS, and still no named score (no 0 in any rate).
    ['unscored', createRungResult({ rung: 'execution', status: 'unscored', reason: 'no gold SQL', details: null }), false, 'unscored: no gold SQL'],
  ])('a %s rung: pass %s, score 0 and no named score', (_status, result, pass, reason) => {
    const graded = toGradingResult(result);
    expect([graded.pass, graded.score, graded.reason, graded.namedScores]).toEqual([pass, 0, reason, undefined]);
  });
});

describe('guardAssertion', () => {
  it('turns an unexpected throw into a failing result naming the file', async () => {
    const graded = await guardAssertion('assertions/x.ts:x', async () => {
      throw new Error('boom');
    });
    expect(graded).toEqual({ pass: false, score: 0, reason: 'assertions/x.ts:x: internal error: boom', metadata: { error: 'boom' } });
  });

  it('rethrows misuse with the file named, keeping the code', async () => {
    const run = guardAssertion('assertions/x.ts:x', async () => {
      throw new LadderError('invalid_option', 'config.preset must be one of "spider", received "spyder"');
    });
    await expect(run).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'config.preset must be one of "spider", received "spyder" (in assertions/x.ts:x)',
    });
  });

  it('does not name the file twice', () => {
    const once = withFile('f.ts', new TypeError('config.x bad'));
    expect(withFile('f.ts', once).message).toBe('config.x bad (in f.ts)');
    expect(once).toBeInstanceOf(TypeError);
  });
});

describe('toJsonSafe', () => {
  it('keeps big integers exact and blobs readable', () => {
    expect(toJsonSafe({ rows: [[9007199254740993n, new Uint8Array([1, 255]), undefined, Number.POSITIVE_INFINITY]] })).toEqual({
      rows: [['9007199254740993', "x'01ff'", undefined, 'Infinity']],
    });
  });
});
