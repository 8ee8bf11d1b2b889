/**
 * Trajectory budgets: limits on what an agent may spend on one question, given as the ladder's
 * `trajectory` option (`trajectory: { maxExecutions: 4, maxSchemaCalls: 3, maxRowsScanned: 50000 }`).
 * A trajectory over a budget fails the item's row — like an L6 budget, it never changes
 * `end_to_end`, which judges the final answer — and the reason names the budget and the step that
 * crossed it (the first step at which the running total exceeds the limit).
 */
import { invalidValue, optionReader } from '../options.js';
import type { ProbeCost } from './probe-cost.js';
import type { Trajectory } from './steps.js';
import { oneLine, truncate } from '../format.js';

/** The budgets; each is an integer ≥ 0, absent = no limit. */
export interface TrajectoryBudgets {
  /** Most `sql` steps. */
  readonly maxExecutions?: number;
  /** Most `schema` steps. */
  readonly maxSchemaCalls?: number;
  /** Most `sql` steps that failed (as the agent saw them). */
  readonly maxFailedExecutions?: number;
  /** Most rows scanned across the probes (measured, see probe-cost.ts). */
  readonly maxRowsScanned?: number;
  /** Most bytes scanned across the probes (measured, see probe-cost.ts). */
  readonly maxBytesScanned?: number;
}

/** The ladder's `trajectory` option, read. */
export interface TrajectoryOptions {
  readonly budgets: TrajectoryBudgets;
  /** Measure the probes' cost on the fixture (default true). */
  readonly probeCost: boolean;
}

/** Every budget name, in the order reasons list them. */
export const BUDGET_NAMES = ['maxExecutions', 'maxSchemaCalls', 'maxFailedExecutions', 'maxRowsScanned', 'maxBytesScanned'] as const;

/** One budget a trajectory went over. */
export interface BudgetBreach {
  readonly budget: (typeof BUDGET_NAMES)[number];
  readonly limit: number;
  /** The trajectory's total. */
  readonly value: number;
  /** The 1-based step at which the running total first exceeded the limit. */
  readonly step: number;
  /** One line: `maxExecutions 3 exceeded at step 6 (execution 4: SELECT * FROM order_lines); total 5`. */
  readonly reason: string;
}

/**
 * Reads the `trajectory` option: `true` (metrics, no budgets) or `{ <budgets>, probeCost? }`.
 * @param name - how messages name it (`config.trajectory`).
 * @returns `undefined` for `false` or absent (trajectory metrics off).
 * @throws LadderError('invalid_option') naming `<name>.<key>` for an unknown key or a value that
 *   is not an integer ≥ 0.
 */
export function readTrajectoryOptions(raw: unknown, name: string): TrajectoryOptions | undefined {
  if (raw === undefined || raw === false) return undefined;
  if (raw === true) return { budgets: {}, probeCost: true };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidValue(name, `true, false or { ${BUDGET_NAMES.join(', ')}, probeCost }`, raw);
  const read = optionReader(raw, { prefix: `${name}.` });
  read.unknownKeys([...BUDGET_NAMES, 'probeCost']);
  const budgets: Record<string, number> = {};
  for (const budget of BUDGET_NAMES) {
    const value = read.raw(budget);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidValue(`${name}.${budget}`, 'an integer ≥ 0', value);
    budgets[budget] = value;
  }
  return { budgets, probeCost: read.boolean('probeCost') ?? true };
}

/**
 * The budgets a trajectory went over, in {@link BUDGET_NAMES} order.
 * @param costs - the probes' costs, one per `sql` step in order (needed for the scan budgets;
 *   unmeasured probes add nothing).
 * @example
 * checkBudgets(trajectory, [], { maxExecutions: 1 })
 * // [{ budget: 'maxExecutions', limit: 1, value: 2, step: 3, reason: 'maxExecutions 1 exceeded at step 3 (execution 2: SELECT 2); total 2' }]
 */
export function checkBudgets(trajectory: Trajectory | undefined, costs: readonly ProbeCost[], budgets: TrajectoryBudgets): BudgetBreach[] {
  const steps = trajectory?.steps ?? [];
  const breaches: BudgetBreach[] = [];
  const count = (budget: BudgetBreach['budget'], what: string, counts: (index: number) => number, label: (index: number, total: number) => string): void => {
    const limit = budgets[budget];
    if (limit === undefined) return;
    let total = 0;
    let crossed: { step: number; label: string } | undefined;
    steps.forEach((_step, index) => {
      const added = counts(index);
      if (added === 0) return;
      total += added;
      if (crossed === undefined && total > limit) crossed = { step: index + 1, label: label(index, total) };
    });
    if (crossed === undefined) return;
    breaches.push({ budget, limit, value: total, step: crossed.step, reason: `${budget} ${limit} exceeded at step ${crossed.step} (${crossed.label}); total ${total} ${what}` });
  };
  const sqlOf = (index: number): string => {
    const step = steps[index]!;
    return step.kind === 'sql' ? truncate(oneLine(step.sql), 60) : step.kind;
  };
  const costAt = new Map(costs.map((cost) => [cost.step, cost]));
  count('maxExecutions', 'executions', (i) => (steps[i]!.kind === 'sql' ? 1 : 0), (i, n) => `execution ${n}: ${sqlOf(i)}`);
  count('maxSchemaCalls', 'schema calls', (i) => (steps[i]!.kind === 'schema' ? 1 : 0), (i, n) => {
    const step = steps[i]!;
    return `schema call ${n}${step.kind === 'schema' && step.call !== undefined ? `: ${truncate(oneLine(step.call), 60)}` : ''}`;
  });
  count('maxFailedExecutions', 'failed executions', (i) => {
    const step = steps[i]!;
    return step.kind === 'sql' && step.error !== undefined ? 1 : 0;
  }, (i, n) => `failed execution ${n}: ${sqlOf(i)}`);
  count('maxRowsScanned', 'rows scanned', (i) => costAt.get(i + 1)?.rowsScanned ?? 0, (i) => `${costAt.get(i + 1)!.rowsScanned} rows: ${sqlOf(i)}`);
  count('maxBytesScanned', 'bytes scanned', (i) => costAt.get(i + 1)?.bytesScanned ?? 0, (i) => `${costAt.get(i + 1)!.bytesScanned} bytes: ${sqlOf(i)}`);
  return breaches;
}
