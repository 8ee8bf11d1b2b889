/**
 * Process metrics of one trajectory (the agentic part of *Text-to-SQL Evals*, §10: "SQL executions
 * per question, schema-exploration calls, and total bytes scanned across all probe queries", and
 * the error-recovery rate). Per item:
 *
 * | metric             | definition |
 * |--------------------|------------|
 * | `steps`            | steps before the final output: schema look-ups + SQL executions + clarifying questions (an `answer` step is the final output, not counted) |
 * | `executions`       | `sql` steps |
 * | `schemaCalls`      | `schema` steps |
 * | `failedExecutions` | `sql` steps with an `error` (as the agent saw it) |
 * | `clarifications`   | `clarify` steps, plus 1 when the final output itself asks (`{"action": "clarify"}`) |
 * | `initialError`     | the first `sql` step failed (the run had an initial execution error; 0 without executions) |
 * | `rowsScanned`, `bytesScanned` | the probes' cost, measured by re-running them (probe-cost.ts); absent when not measured. A probe is a `sql` step that does not run the final answer's SQL (that query's cost is L6's) |
 * | `unmeasured`       | probes whose cost could not be measured (unsafe, not valid on the fixture, failed) |
 *
 * The error-recovery rate is a summary figure (process-summary.ts): among the runs with an
 * initial execution error, the share that still finish end-to-end correct.
 */
import type { ProbeCost } from './probe-cost.js';
import type { Trajectory } from './steps.js';

/** One item's process metrics (see the module doc); integers. */
export interface TrajectoryMetrics {
  readonly steps: number;
  readonly executions: number;
  readonly schemaCalls: number;
  readonly failedExecutions: number;
  readonly clarifications: number;
  /** 1 when the first SQL execution failed, else 0. */
  readonly initialError: number;
  /** Rows scanned across the measured probes; absent when none was measured. */
  readonly rowsScanned?: number;
  /** Bytes scanned across the measured probes; absent when none was measured or bytes are unknown. */
  readonly bytesScanned?: number;
  /** SQL steps whose cost was not measured. */
  readonly unmeasured?: number;
}

/**
 * Counts the process metrics of one trajectory.
 *
 * @param trajectory - the validated steps (`undefined`: an output without steps, all counts 0).
 * @param finalClarifies - the final output is a clarifying question (`{"action": "clarify"}`).
 * @param costs - the probes' measured costs, one per probe in order (absent: not measured).
 * @returns the metrics; never throws.
 * @example
 * measureTrajectory({ source: 'steps', steps: [{ kind: 'sql', sql: 'SELEC 1', error: 'syntax error' }, { kind: 'sql', sql: 'SELECT 1' }] }, false)
 * // { steps: 2, executions: 2, schemaCalls: 0, failedExecutions: 1, clarifications: 0, initialError: 1 }
 */
export function measureTrajectory(trajectory: Trajectory | undefined, finalClarifies: boolean, costs?: readonly ProbeCost[]): TrajectoryMetrics {
  const steps = trajectory?.steps ?? [];
  const sql = steps.filter((step) => step.kind === 'sql');
  const counts = {
    steps: steps.filter((step) => step.kind !== 'answer').length,
    executions: sql.length,
    schemaCalls: steps.filter((step) => step.kind === 'schema').length,
    failedExecutions: sql.filter((step) => step.error !== undefined).length,
    clarifications: steps.filter((step) => step.kind === 'clarify').length + (finalClarifies ? 1 : 0),
    initialError: sql[0]?.error !== undefined ? 1 : 0,
  };
  if (costs === undefined) return counts;
  const measured = costs.filter((cost) => cost.measured);
  const bytes = measured.filter((cost) => cost.bytesScanned !== undefined);
  return {
    ...counts,
    ...(measured.length > 0 ? { rowsScanned: measured.reduce((sum, cost) => sum + cost.rowsScanned!, 0) } : {}),
    ...(bytes.length > 0 && bytes.length === measured.length ? { bytesScanned: bytes.reduce((sum, cost) => sum + cost.bytesScanned!, 0) } : {}),
    unmeasured: costs.length - measured.length,
  };
}
