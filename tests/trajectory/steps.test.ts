import { describe, expect, it } from 'vitest';
import { readTrajectory, sqlSteps } from '../../src/trajectory/steps.js';

const where = 'item wh-003';
const read = (steps: unknown) => readTrajectory({ sql: 'SELECT 1', steps }, where);
const message = (steps: unknown): string => {
  try {
    read(steps);
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('readTrajectory', () => {
  it('reads every step kind from an object or a JSON string, keeping only the given fields', () => {
    const steps = [
      { kind: 'schema', call: 'describe orders' },
      { kind: 'sql', sql: 'SELECT * FROM orders', rowCount: 3 },
      { kind: 'sql', sql: 'SELECT totl FROM orders', error: 'no such column: totl' },
      { kind: 'clarify', message: 'Which year?' },
      { kind: 'answer', sql: 'SELECT 1' },
    ];
    const expected = { source: 'steps', steps };
    expect(read(steps)).toEqual(expected);
    expect(readTrajectory(JSON.stringify({ sql: 'SELECT 1', steps }), where)).toEqual(expected);
    expect(readTrajectory('```json\n' + JSON.stringify({ action: 'clarify', message: 'Which?', steps: [{ kind: 'schema' }] }) + '\n```', where)).toEqual({ source: 'steps', steps: [{ kind: 'schema' }] });
  });

  it('reads the legacy probes as sql steps, and nothing from an output without either', () => {
    expect(readTrajectory({ sql: 'SELECT 1', probes: ['SELECT 2', 'SELECT 3'] }, where)).toEqual({ source: 'probes', steps: [{ kind: 'sql', sql: 'SELECT 2' }, { kind: 'sql', sql: 'SELECT 3' }] });
    expect(readTrajectory({ sql: 'SELECT 1' }, where)).toBeUndefined();
    expect(readTrajectory('SELECT 1', where)).toBeUndefined();
    expect(readTrajectory('{"sql": "SELECT 1", "steps": [', where)).toBeUndefined();
    expect(read([])).toEqual({ source: 'steps', steps: [] });
  });

  it('names the item, the step and the field of a bad step', () => {
    expect(message({ kind: 'sql' })).toBe('item wh-003: trajectory: "steps" must be a list of steps; received an object');
    expect(message(['SELECT 1'])).toBe('item wh-003: trajectory: step 1: must be an object with a "kind"; received a string ("SELECT 1")');
    expect(message([{ kind: 'schema' }, { kind: 'query', sql: 'SELECT 1' }])).toBe('item wh-003: trajectory: step 2: "kind" must be one of schema, sql, clarify, answer; received a string ("query")');
    expect(message([{ kind: 'sqll', sql: 'SELECT 1' }])).toBe('item wh-003: trajectory: step 1: "kind" must be one of schema, sql, clarify, answer (did you mean sql?); received a string ("sqll")');
    expect(message([{ kind: 'sql', sql: 'SELECT 1', rowcount: 2 }])).toBe('item wh-003: trajectory: step 1 (sql): "rowcount" is not a field of a sql step (did you mean "rowCount"?); fields: sql, error, rowCount');
    expect(message([{ kind: 'sql', sql: '  ' }])).toBe('item wh-003: trajectory: step 1 (sql): "sql" must be a non-empty string; received a string ("  ")');
    expect(message([{ kind: 'sql', sql: 'SELECT 1', rowCount: -1 }])).toBe('item wh-003: trajectory: step 1 (sql): "rowCount" must be an integer ≥ 0; received a number (-1)');
    expect(message([{ kind: 'sql', sql: 'SELECT 1', rowCount: 1, error: 'x' }])).toBe('item wh-003: trajectory: step 1 (sql): "error" and "rowCount" are both given; a failed execution returns no rows');
    expect(message([{ kind: 'clarify' }])).toBe('item wh-003: trajectory: step 1 (clarify): "message" must be a non-empty string; received undefined');
    expect(message([{ kind: 'answer' }, { kind: 'sql', sql: 'SELECT 1' }])).toBe('item wh-003: trajectory: step 1 (answer): the answer step must be the last; 1 more follow');
    expect(message(Array.from({ length: 1001 }, () => ({ kind: 'schema' })))).toBe('item wh-003: trajectory: "steps" holds 1001 steps; at most 1000 are read');
    expect(() => readTrajectory({ sql: 'SELECT 1', steps: [], probes: [] }, where)).toThrow('item wh-003: trajectory: "steps" and "probes" are both given; give the probes as sql steps');
    expect(() => readTrajectory({ sql: 'SELECT 1', probes: ['SELECT 1', 2] }, where)).toThrow('item wh-003: trajectory: probe 2: must be a SQL string; received a number (2)');
  });

  it('lists the sql steps with their 1-based step index', () => {
    expect(sqlSteps(read([{ kind: 'schema' }, { kind: 'sql', sql: 'SELECT 2' }, { kind: 'clarify', message: '?' }, { kind: 'sql', sql: 'SELECT 3' }]))).toEqual([
      { step: 2, sql: 'SELECT 2' },
      { step: 4, sql: 'SELECT 3' },
    ]);
    expect(sqlSteps(undefined)).toEqual([]);
  });
});
