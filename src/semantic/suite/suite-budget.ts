/**
 * Budget of one gold's distillation (distill.ts): databases drawn, seconds spent, and patience, the
 * draws in a row that may cover nothing before the gold stops. Apart from the distiller so that
 * reading L5's options (semantic-options.ts) loads nothing of the generator.
 */

/** Budget per gold. */
export interface SuiteBudget {
  /** Most databases drawn for one gold (integer ≥ 0; default 300). */
  readonly maxDatabases?: number;
  /**
   * Most seconds spent on one gold, wall time of its queries (default 600). A net against a build
   * that runs away: the database budget and the patience count work and normally stop a gold, so
   * the suite is the same at any load and the verdicts judged on it can be cached.
   */
  readonly maxSeconds?: number;
  /** A gold stops after this many draws in a row that covered no new neighbour (integer ≥ 1; default 100). */
  readonly patience?: number;
}

/** {@link SuiteBudget} with defaults applied. */
export interface ResolvedSuiteBudget {
  readonly maxDatabases: number;
  readonly maxSeconds: number;
  readonly patience: number;
}

/** Defaults of {@link SuiteBudget}. */
export const DEFAULT_SUITE_BUDGET: ResolvedSuiteBudget = Object.freeze({ maxDatabases: 300, maxSeconds: 600, patience: 100 });

/**
 * Applies defaults and validates a budget.
 * @throws RangeError naming the field for a non-integer, negative or zero value.
 */
export function resolveSuiteBudget(budget: SuiteBudget = {}): ResolvedSuiteBudget {
  const out = { ...DEFAULT_SUITE_BUDGET, ...Object.fromEntries(Object.entries(budget).filter(([, v]) => v !== undefined)) } as ResolvedSuiteBudget;
  for (const key of Object.keys(budget)) {
    if (!(key in DEFAULT_SUITE_BUDGET)) throw new RangeError(`unknown budget field "${key}" (known: maxDatabases, maxSeconds, patience)`);
  }
  if (!Number.isInteger(out.maxDatabases) || out.maxDatabases < 0) throw new RangeError(`budget.maxDatabases must be an integer ≥ 0; received ${String(out.maxDatabases)}`);
  if (typeof out.maxSeconds !== 'number' || !(out.maxSeconds > 0)) throw new RangeError(`budget.maxSeconds must be a number > 0 (seconds); received ${String(out.maxSeconds)}`);
  if (!Number.isInteger(out.patience) || out.patience < 1) throw new RangeError(`budget.patience must be an integer ≥ 1; received ${String(out.patience)}`);
  return out;
}
