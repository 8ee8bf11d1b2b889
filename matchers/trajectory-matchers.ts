/**
 * Matchers for an agent's trajectory (src/trajectory/steps.ts): the provider output
 * `{ sql, steps: [...] }` (or a `probes` list, or `{ steps }` alone).
 *
 * - `toHaveSafeSteps(policy?)` — L3 static safety on every `sql` step, as `toBeSafeSql` judges one
 *   text; the message names each unsafe step with its index, SQL and finding. Synchronous.
 * - `toStayWithinBudget(budgets)` — the trajectory stays within `maxExecutions`, `maxSchemaCalls`,
 *   `maxFailedExecutions`, and, given `db`, `maxRowsScanned` / `maxBytesScanned` (each probe that
 *   passes L1–L3 re-run on that database for its cost: src/trajectory/probe-cost.ts); the message
 *   names each budget gone over and the step that crossed it. **Async: await it.**
 */
import type { MatcherState } from 'vitest';
import { EfficiencyCache } from '../src/efficiency/efficiency-cache.js';
import { judgeSafety, runGates } from '../src/rungs/gates.js';
import type { SafetyPolicy } from '../src/safety/policy.js';
import type { Dialect } from '../src/sql/parse.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import { BUDGET_NAMES, readTrajectoryOptions, type TrajectoryBudgets } from '../src/trajectory/budgets.js';
import { judgeTrajectory } from '../src/trajectory/judge-trajectory.js';
import { readTrajectory, sqlSteps, type Trajectory } from '../src/trajectory/steps.js';
import { oneLine, truncate } from '../src/format.js';
import { argumentTypeError, readDialect, readOptionsObject } from './arguments.js';
import { DATABASE_EXPECTED, resolveMatcherDatabase, type MatcherDatabase } from './database-ref.js';
import { matcherRuntime } from './matcher-engine.js';
import type { MatcherOutcome } from './message.js';
import type { SafeSqlPolicy } from './to-be-safe-sql.js';

/** The budgets of `toStayWithinBudget`, and where to measure the scan budgets. */
export interface TrajectoryBudgetOptions extends TrajectoryBudgets {
  /** The database the probes are re-run on for `maxRowsScanned` / `maxBytesScanned` ({@link DATABASE_EXPECTED}). */
  readonly db?: MatcherDatabase;
  /** The dialect the steps are read in. Default: the database's (`sqlite` without `db`). */
  readonly dialect?: Dialect;
}

const WITHIN = 'toStayWithinBudget';
const SAFE = 'toHaveSafeSteps';
const TRAJECTORY_EXPECTED = 'a trajectory: a provider output { sql, steps: [...] } (a JSON string or object), or { steps }';

/** The received value's trajectory (`{ steps: [] }` counts), or a TypeError naming what was received. */
function readReceived(boundary: (...args: never[]) => unknown, name: string, received: unknown): Trajectory {
  const trajectory = readTrajectory(received, 'received');
  if (trajectory === undefined) throw argumentTypeError(boundary, name, 'received', TRAJECTORY_EXPECTED, received);
  return trajectory;
}

/** One step as the messages show it: `step 3 (sql): SELECT * FROM order_items`. */
function stepLine(trajectory: Trajectory, step: number): string {
  const found = trajectory.steps[step - 1];
  if (found === undefined) return `step ${step}`;
  const text = found.kind === 'sql' ? found.sql : found.kind === 'schema' ? (found.call ?? '') : found.kind === 'clarify' ? found.message : (found.sql ?? found.answer ?? '');
  return `step ${step} (${found.kind})${text === '' ? '' : `: ${truncate(oneLine(text), 160)}`}`;
}

/**
 * Asserts that every `sql` step of the received trajectory passes L3 static safety. Synchronous.
 * @param policy - the safety policy and dialect, as for `toBeSafeSql`.
 * @throws TypeError when `received` holds no trajectory or `policy` is not an object; LadderError
 *   `input_invalid` naming a malformed step, `invalid_option` for a bad policy.
 * @example
 * expect({ sql: 'SELECT 1', steps: [{ kind: 'sql', sql: 'DELETE FROM orders' }] }).not.toHaveSafeSteps();
 */
export function toHaveSafeSteps(this: MatcherState, received: unknown, policy?: SafeSqlPolicy): MatcherOutcome {
  const trajectory = readReceived(toHaveSafeSteps, SAFE, received);
  const { dialect: dialectOption, ...safetyPolicy } = readOptionsObject(toHaveSafeSteps, SAFE, 'policy', policy, 'a policy object');
  const dialect = readDialect(toHaveSafeSteps, SAFE, 'policy.dialect', dialectOption, 'sqlite');
  const steps = sqlSteps(trajectory);
  const unsafe = steps.flatMap(({ step, sql }) => {
    const result = judgeSafety({ sql, dialect, safetyPolicy: safetyPolicy as SafetyPolicy });
    return result.status === 'pass' ? [] : [`  ${stepLine(trajectory, step)}\n    L3 safety failed: ${truncate(oneLine(result.reason), 400)}`];
  });
  return {
    pass: unsafe.length === 0,
    message: () => {
      const hint = this.utils.matcherHint(SAFE, 'trajectory', policy === undefined ? '' : 'policy', { isNot: this.isNot, promise: this.promise });
      const head = `Expected trajectory ${this.isNot ? 'not ' : ''}to have only safe ${dialect} SQL steps (${steps.length} sql ${steps.length === 1 ? 'step' : 'steps'} of ${trajectory.steps.length})`;
      return [hint, head, unsafe.length === 0 ? 'Every sql step passed L3.' : `Unsafe steps:\n${unsafe.join('\n')}`].join('\n\n');
    },
  };
}

/**
 * Asserts that the received trajectory stays within the budgets. **Async: await it.**
 * @param budgets - {@link TrajectoryBudgetOptions}: integers ≥ 0; the scan budgets need `db`.
 * @throws TypeError when `received` holds no trajectory, `budgets` is not an object, a scan budget
 *   is given without `db`, or `db` is not a database; LadderError `invalid_option` naming a bad
 *   budget, `input_invalid` naming a malformed step.
 * @example
 * await expect(output).toStayWithinBudget({ maxExecutions: 3, maxRowsScanned: 10_000, db: 'db/shop.sqlite' });
 */
export async function toStayWithinBudget(this: MatcherState, received: unknown, budgets: TrajectoryBudgetOptions): Promise<MatcherOutcome> {
  const trajectory = readReceived(toStayWithinBudget, WITHIN, received);
  const { db, dialect: dialectOption, ...given } = readOptionsObject(toStayWithinBudget, WITHIN, 'budgets', budgets, `an object of budgets (${BUDGET_NAMES.join(', ')}, db?, dialect?)`);
  const options = readTrajectoryOptions(given, 'budgets')!;
  const scans = options.budgets.maxRowsScanned !== undefined || options.budgets.maxBytesScanned !== undefined;
  if (scans && db === undefined) throw argumentTypeError(toStayWithinBudget, WITHIN, 'budgets.db', `${DATABASE_EXPECTED} to re-run the probes on (maxRowsScanned / maxBytesScanned are measured, never taken from the agent)`, db);
  const database = db === undefined ? undefined : await resolveMatcherDatabase(toStayWithinBudget, WITHIN, 'budgets.db', db, matcherRuntime());
  const dialect = readDialect(toStayWithinBudget, WITHIN, 'budgets.dialect', dialectOption, database?.dialect ?? 'sqlite');
  const first = database?.snapshots[0];
  const gatesOpen = new Map<number, boolean>();
  if (database !== undefined && first !== undefined) {
    for (const { step, sql } of sqlSteps(trajectory)) gatesOpen.set(step, (await runGates({ sql, dialect, engine: database.engine, db: first.path })).open);
  }
  const answer = parseProviderOutput(received);
  const judgement = await judgeTrajectory({
    trajectory,
    finalClarifies: answer.kind === 'declined' && answer.action === 'clarify',
    ...(answer.kind === 'sql' ? { finalSql: answer.sql } : {}),
    gatesOpen,
    engine: database?.engine ?? matcherRuntime().engine(),
    ...(first !== undefined ? { db: first.path } : {}),
    efficiencyCache: new EfficiencyCache(),
    options: { ...options, probeCost: database !== undefined },
  });
  const { metrics, breaches } = judgement;
  return {
    pass: breaches.length === 0,
    message: () => {
      const hint = this.utils.matcherHint(WITHIN, 'trajectory', 'budgets', { isNot: this.isNot, promise: this.promise, isDirectExpectCall: false });
      const limits = Object.entries(options.budgets).map(([name, limit]) => `${name} ${limit}`).join(', ');
      const scanned = metrics.rowsScanned !== undefined ? `, ${metrics.rowsScanned} rows / ${metrics.bytesScanned ?? '?'} bytes scanned by probes` : '';
      const head = `Expected trajectory ${this.isNot ? 'not ' : ''}to stay within ${limits || 'no budget'}\nIt has ${trajectory.steps.length} steps: ${metrics.executions} executions (${metrics.failedExecutions} failed), ${metrics.schemaCalls} schema calls${scanned}`;
      const over = breaches.map((breach) => `  ${breach.reason}\n    ${stepLine(trajectory, breach.step)}`);
      return [hint, head, over.length === 0 ? 'Within every budget.' : `Over budget:\n${over.join('\n')}`].join('\n\n');
    },
  };
}
