/**
 * The trajectory's part of one item's verdict: its process metrics (metrics.ts), the probes' cost
 * measured on the item's fixture (probe-cost.ts) and the budgets it went over (budgets.ts). The
 * ladder runs it after the rungs, when the `trajectory` option is on; safety of every step is the
 * gates' (L3 judges every `sql` step), and only steps that passed L1–L3 are re-run for their cost.
 * A step that runs the final answer's own SQL is an execution but not a probe: the final query's
 * cost is L6's to judge, so probe cost measures what the agent spent exploring.
 */
import type { DoubleQuoteMode, Engine } from '../engine/engine.js';
import type { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import { checkBudgets, type BudgetBreach, type TrajectoryOptions } from './budgets.js';
import { measureTrajectory, type TrajectoryMetrics } from './metrics.js';
import { measureProbeCosts, type ProbeCost } from './probe-cost.js';
import { sqlSteps, type Trajectory } from './steps.js';

/** A SQL text as compared with the final answer's: whitespace runs collapsed, trailing semicolons dropped. */
function sameText(sql: string): string {
  return sql.replace(/\s+/g, ' ').replace(/[\s;]+$/, '').trim();
}

/** The trajectory's verdict on one item. */
export interface TrajectoryJudgement {
  readonly metrics: TrajectoryMetrics;
  /**
   * One per probe (a `sql` step that does not run the final answer's SQL), in order; empty when
   * probe cost is off or the item has no snapshot.
   */
  readonly costs: readonly ProbeCost[];
  /** The budgets it went over (empty: within every budget). */
  readonly breaches: readonly BudgetBreach[];
}

/** What {@link judgeTrajectory} reads. */
export interface JudgeTrajectoryInput {
  readonly trajectory: Trajectory | undefined;
  /** The final output is a clarifying question. */
  readonly finalClarifies: boolean;
  /** The final answer's SQL: a step that runs it is not a probe, and its cost is L6's, not the trajectory's. */
  readonly finalSql?: string;
  /** Step index → true when that `sql` step passed L1, L2 and L3 (absent: not judged, not run). */
  readonly gatesOpen: ReadonlyMap<number, boolean>;
  readonly engine: Engine;
  /** The item's first snapshot; without one the probes' cost is not measured. */
  readonly db?: string;
  readonly efficiencyCache: EfficiencyCache;
  readonly doubleQuotes?: DoubleQuoteMode;
  readonly timeoutMs?: number;
  readonly options: TrajectoryOptions;
}

/**
 * Measures and judges one trajectory (see the module doc).
 * @throws only the engine's infrastructure faults; a probe's own failure is an unmeasured cost.
 */
export async function judgeTrajectory(input: JudgeTrajectoryInput): Promise<TrajectoryJudgement> {
  const final = input.finalSql === undefined ? undefined : sameText(input.finalSql);
  const probes = sqlSteps(input.trajectory)
    .filter((probe) => sameText(probe.sql) !== final)
    .map((probe) => ({ ...probe, gatesOpen: input.gatesOpen.get(probe.step) === true }));
  const costs =
    input.options.probeCost && input.db !== undefined && probes.length > 0
      ? await measureProbeCosts({
          engine: input.engine,
          db: input.db,
          probes,
          efficiencyCache: input.efficiencyCache,
          ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
          ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
        })
      : [];
  const measuredCosts = input.options.probeCost && input.db !== undefined ? costs : undefined;
  return {
    metrics: measureTrajectory(input.trajectory, input.finalClarifies, measuredCosts),
    costs,
    breaches: checkBudgets(input.trajectory, costs, input.options.budgets),
  };
}
