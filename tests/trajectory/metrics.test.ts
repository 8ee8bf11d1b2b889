import { describe, expect, it } from 'vitest';
import { checkBudgets, readTrajectoryOptions } from '../../src/trajectory/budgets.js';
import { measureTrajectory } from '../../src/trajectory/metrics.js';
import type { ProbeCost } from '../../src/trajectory/probe-cost.js';
import type { Trajectory, TrajectoryStep } from '../../src/trajectory/steps.js';

const of = (...steps: TrajectoryStep[]): Trajectory => ({ source: 'steps', steps });
const zero = { steps: 0, executions: 0, schemaCalls: 0, failedExecutions: 0, clarifications: 0, initialError: 0 };

describe('measureTrajectory', () => {
  it('no steps: every count 0 (an output without a trajectory too)', () => {
    expect(measureTrajectory(of(), false)).toEqual(zero);
    expect(measureTrajectory(undefined, false)).toEqual(zero);
  });

  it('only a clarification: the final question counts, nothing else', () => {
    expect(measureTrajectory(undefined, true)).toEqual({ ...zero, clarifications: 1 });
    expect(measureTrajectory(of({ kind: 'clarify', message: 'Which year?' }), true)).toEqual({ ...zero, steps: 1, clarifications: 2 });
  });

  it('an error on the last step: a failed execution, and not an initial error when an earlier one ran', () => {
    const trajectory = of({ kind: 'schema' }, { kind: 'sql', sql: 'SELECT 1', rowCount: 1 }, { kind: 'sql', sql: 'SELECT x FROM t', error: 'no such column: x' });
    expect(measureTrajectory(trajectory, false)).toEqual({ ...zero, steps: 3, executions: 2, schemaCalls: 1, failedExecutions: 1 });
  });

  it('a retry that succeeds: an initial error, one failed of two executions; the answer step is not a step', () => {
    const trajectory = of({ kind: 'sql', sql: 'SELECT totl FROM orders', error: 'no such column: totl' }, { kind: 'sql', sql: 'SELECT total FROM orders', rowCount: 5 }, { kind: 'answer' });
    expect(measureTrajectory(trajectory, false)).toEqual({ ...zero, steps: 2, executions: 2, failedExecutions: 1, initialError: 1 });
  });

  it('adds the measured probes’ rows and bytes, and counts the unmeasured ones', () => {
    const trajectory = of({ kind: 'sql', sql: 'SELECT 1' }, { kind: 'sql', sql: 'SELECT 2' }, { kind: 'sql', sql: 'DROP TABLE t' });
    const costs: ProbeCost[] = [
      { step: 1, measured: true, method: 'estimate', rowsScanned: 200, bytesScanned: 4096 },
      { step: 2, measured: true, method: 'estimate', rowsScanned: 20, bytesScanned: 410 },
      { step: 3, measured: false, reason: 'did not pass L1–L3: not run' },
    ];
    expect(measureTrajectory(trajectory, false, costs)).toEqual({ ...zero, steps: 3, executions: 3, rowsScanned: 220, bytesScanned: 4506, unmeasured: 1 });
    // Bytes of one measured probe unknown: the total would undercount, so it is left out.
    expect(measureTrajectory(trajectory, false, [costs[0]!, { step: 2, measured: true, rowsScanned: 5 }])).toEqual({ ...zero, steps: 3, executions: 3, rowsScanned: 205, unmeasured: 0 });
    expect(measureTrajectory(trajectory, false, [])).toEqual({ ...zero, steps: 3, executions: 3, unmeasured: 0 });
  });
});

describe('trajectory budgets', () => {
  const trajectory = of(
    { kind: 'schema', call: 'list_tables' },
    { kind: 'sql', sql: 'SELECT * FROM order_lines', rowCount: 5000 },
    { kind: 'schema', call: 'describe orders' },
    { kind: 'sql', sql: 'SELECT totl FROM orders', error: 'no such column: totl' },
    { kind: 'sql', sql: 'SELECT total FROM orders', rowCount: 10 },
  );
  const costs: ProbeCost[] = [
    { step: 2, measured: true, rowsScanned: 5000, bytesScanned: 120000 },
    { step: 5, measured: true, rowsScanned: 10, bytesScanned: 300 },
  ];

  it('names the step at which each running total first went over its limit', () => {
    expect(checkBudgets(trajectory, costs, { maxExecutions: 2, maxSchemaCalls: 1, maxFailedExecutions: 0, maxRowsScanned: 1000, maxBytesScanned: 120000 })).toEqual([
      { budget: 'maxExecutions', limit: 2, value: 3, step: 5, reason: 'maxExecutions 2 exceeded at step 5 (execution 3: SELECT total FROM orders); total 3 executions' },
      { budget: 'maxSchemaCalls', limit: 1, value: 2, step: 3, reason: 'maxSchemaCalls 1 exceeded at step 3 (schema call 2: describe orders); total 2 schema calls' },
      { budget: 'maxFailedExecutions', limit: 0, value: 1, step: 4, reason: 'maxFailedExecutions 0 exceeded at step 4 (failed execution 1: SELECT totl FROM orders); total 1 failed executions' },
      { budget: 'maxRowsScanned', limit: 1000, value: 5010, step: 2, reason: 'maxRowsScanned 1000 exceeded at step 2 (5000 rows: SELECT * FROM order_lines); total 5010 rows scanned' },
      { budget: 'maxBytesScanned', limit: 120000, value: 120300, step: 5, reason: 'maxBytesScanned 120000 exceeded at step 5 (300 bytes: SELECT total FROM orders); total 120300 bytes scanned' },
    ]);
  });

  it('a trajectory at its limits, or without steps, is within budget', () => {
    expect(checkBudgets(trajectory, costs, { maxExecutions: 3, maxSchemaCalls: 2, maxFailedExecutions: 1, maxRowsScanned: 5010 })).toEqual([]);
    expect(checkBudgets(undefined, [], { maxExecutions: 0, maxSchemaCalls: 0 })).toEqual([]);
  });

  it('reads the option: true, false, budgets; refuses a bad one naming it', () => {
    expect(readTrajectoryOptions(true, 'config.trajectory')).toEqual({ budgets: {}, probeCost: true });
    expect(readTrajectoryOptions(false, 'config.trajectory')).toBeUndefined();
    expect(readTrajectoryOptions(undefined, 'config.trajectory')).toBeUndefined();
    expect(readTrajectoryOptions({ maxExecutions: 4, probeCost: false }, 'config.trajectory')).toEqual({ budgets: { maxExecutions: 4 }, probeCost: false });
    expect(() => readTrajectoryOptions({ maxExecution: 4 }, 'config.trajectory')).toThrow('config.trajectory.maxExecution is not an option (did you mean config.trajectory.maxExecutions?)');
    expect(() => readTrajectoryOptions({ maxRowsScanned: 1.5 }, 'config.trajectory')).toThrow('config.trajectory.maxRowsScanned must be an integer ≥ 0; received a number (1.5)');
    expect(() => readTrajectoryOptions('yes', 'config.trajectory')).toThrow('config.trajectory must be true, false or { maxExecutions, maxSchemaCalls, maxFailedExecutions, maxRowsScanned, maxBytesScanned, probeCost }; received a string ("yes")');
  });
});
