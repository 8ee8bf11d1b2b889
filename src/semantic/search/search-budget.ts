/**
 * Budgets of the counterexample search: databases drawn, seconds, shrinking trials, and the size
 * tiers the draws go through (tiny databases first: in SpotIt, "Evaluating Text-to-SQL Evaluation
 * with Formal Verification", 2025, most differences show with 2–3 rows per table).
 */
import { invalidValue, isPlainRecord, rejectUnknownKeys } from '../../options.js';
import type { RowRange } from '../generation/table-filler.js';

/** Bounds of one search. */
export interface SearchBudget {
  /** Most databases drawn (integer ≥ 1; default 100). */
  readonly maxDatabases?: number;
  /**
   * Most seconds for the whole call, search and shrinking (number > 0; default 60). The final
   * re-run is not cut short. A net against a search that runs away, not what normally stops one:
   * the database budget counts work, so the verdict is the same at any load and can be cached; a
   * search the clock stopped is neither reproducible nor cached.
   */
  readonly maxSeconds?: number;
  /** Most edited databases tried while shrinking one witness (integer ≥ 0; default 150; 0 = no shrinking). */
  readonly maxShrinkTrials?: number;
}

/** {@link SearchBudget} with defaults applied. */
export interface ResolvedSearchBudget {
  readonly maxDatabases: number;
  readonly maxSeconds: number;
  readonly maxShrinkTrials: number;
}

/** Defaults of {@link SearchBudget}. */
export const DEFAULT_SEARCH_BUDGET: ResolvedSearchBudget = Object.freeze({ maxDatabases: 100, maxSeconds: 60, maxShrinkTrials: 150 });

/**
 * Database sizes in the order they are drawn, with the share of `maxDatabases` each gets: tiny
 * databases first (most differences show with 2–3 rows per table), then larger ones.
 */
export const SEARCH_TIERS: readonly { readonly name: string; readonly rows: RowRange; readonly share: number }[] = Object.freeze([
  { name: 'tiny', rows: { min: 1, max: 3 }, share: 0.6 },
  { name: 'small', rows: { min: 2, max: 10 }, share: 0.25 },
  { name: 'medium', rows: { min: 8, max: 40 }, share: 0.15 },
]);

/** Default deadline per statement during the search, ms: queries on a few dozen rows take milliseconds. */
export const SEARCH_TIMEOUT_MS = 2000;

/**
 * Applies defaults and validates a budget.
 * @throws LadderError `invalid_option` naming the field for an unknown field or a bad value.
 */
export function resolveSearchBudget(budget: SearchBudget = {}): ResolvedSearchBudget {
  if (!isPlainRecord(budget)) throw invalidValue('budget', 'an object { maxDatabases?, maxSeconds?, maxShrinkTrials? }', budget);
  rejectUnknownKeys(budget, Object.keys(DEFAULT_SEARCH_BUDGET), { prefix: 'budget.' });
  const out = { ...DEFAULT_SEARCH_BUDGET, ...Object.fromEntries(Object.entries(budget).filter(([, v]) => v !== undefined)) } as ResolvedSearchBudget;
  if (!Number.isInteger(out.maxDatabases) || out.maxDatabases < 1) throw invalidValue('budget.maxDatabases', 'an integer ≥ 1', out.maxDatabases);
  if (typeof out.maxSeconds !== 'number' || !(out.maxSeconds > 0) || !Number.isFinite(out.maxSeconds)) throw invalidValue('budget.maxSeconds', 'a finite number > 0 (seconds)', out.maxSeconds);
  if (!Number.isInteger(out.maxShrinkTrials) || out.maxShrinkTrials < 0) throw invalidValue('budget.maxShrinkTrials', 'an integer ≥ 0', out.maxShrinkTrials);
  return out;
}

/** The size tier of draw `index` under a budget. */
export function tierOfDraw(index: number, maxDatabases: number): (typeof SEARCH_TIERS)[number] {
  let end = 0;
  for (const tier of SEARCH_TIERS) {
    end += Math.round(tier.share * maxDatabases);
    if (index < end) return tier;
  }
  return SEARCH_TIERS[SEARCH_TIERS.length - 1]!;
}
