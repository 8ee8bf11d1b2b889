/**
 * Predicted vs gold: which proxies the predicted plan adds, and the efficiency budget
 * (*Text-to-SQL Evals* §7: "track efficiency as a guardrail metric with a strict budget").
 */
import type { PlanAnalysis } from './plan-analysis.js';

/** Proxy kinds that can be counted on both plans and compared. */
export type ProxyKind =
  | 'fullScans'
  | 'scansWhereGoldUsesIndex'
  | 'tempBTrees'
  | 'automaticIndexes'
  | 'correlatedSubqueries';

/** Every {@link ProxyKind}, for option validation. */
export const PROXY_KINDS: readonly ProxyKind[] = ['fullScans', 'scansWhereGoldUsesIndex', 'tempBTrees', 'automaticIndexes', 'correlatedSubqueries'];

/** Counts of one plan's proxies. */
export type ProxyCounts = Readonly<Record<ProxyKind, number>>;

/** A base table the predicted query reads in full while the gold searches it through an index. */
export interface ScanWhereGoldUsesIndex {
  readonly table: string;
  /** The predicted plan's step, e.g. `SCAN orders`. */
  readonly predictedStepId: number;
  /** The index (or `rowid`) the gold searches, with its constraint. */
  readonly goldIndex: string;
  readonly goldConstraint: string;
}

/** The predicted-vs-gold comparison. */
export interface PlanComparison {
  readonly predicted: ProxyCounts;
  readonly gold: ProxyCounts;
  readonly scansWhereGoldUsesIndex: readonly ScanWhereGoldUsesIndex[];
  /** Estimated costs (row visits). */
  readonly predictedCost: number;
  readonly goldCost: number;
  /** predictedCost / max(goldCost, 1). */
  readonly costRatio: number;
}

/**
 * Compares two analyzed plans of the same question on the same snapshot.
 *
 * A "scan where the gold uses an index" is a base table that the predicted plan reads in full
 * (any `SCAN` of it, and no `SEARCH` of it) while the gold plan has no full scan of it and
 * searches it at least once.
 */
export function comparePlans(predicted: PlanAnalysis, gold: PlanAnalysis): PlanComparison {
  const scansWhereGoldUsesIndex: ScanWhereGoldUsesIndex[] = [];
  const predictedSearched = new Set(predicted.proxies.searches.map((search) => search.table));
  const goldScanned = new Set(gold.proxies.fullScans.map((scan) => scan.table));
  const reported = new Set<string>();
  for (const scan of predicted.proxies.fullScans) {
    if (predictedSearched.has(scan.table) || goldScanned.has(scan.table) || reported.has(scan.table)) continue;
    const goldSearch = gold.proxies.searches.find((search) => search.table === scan.table);
    if (!goldSearch) continue;
    reported.add(scan.table);
    scansWhereGoldUsesIndex.push({
      table: scan.table,
      predictedStepId: scan.stepId,
      goldIndex: goldSearch.index ?? 'rowid',
      goldConstraint: goldSearch.constraint,
    });
  }
  const predictedCost = predicted.cost.total;
  const goldCost = gold.cost.total;
  return {
    predicted: countProxies(predicted, scansWhereGoldUsesIndex.length),
    gold: countProxies(gold, 0),
    scansWhereGoldUsesIndex,
    predictedCost,
    goldCost,
    costRatio: predictedCost / Math.max(goldCost, 1),
  };
}

function countProxies(analysis: PlanAnalysis, scansWhereGoldUsesIndex: number): ProxyCounts {
  return {
    fullScans: analysis.proxies.fullScans.length,
    scansWhereGoldUsesIndex,
    tempBTrees: analysis.proxies.tempBTrees.length,
    automaticIndexes: analysis.proxies.automaticIndexes.length,
    correlatedSubqueries: analysis.proxies.correlatedSubqueries.length,
  };
}

/** The verdict of the efficiency budget. */
export interface BudgetVerdict {
  readonly withinBudget: boolean;
  /** The allowed maximum: budgetFactor × max(goldCost, 1). */
  readonly allowedCost: number;
  /** Proxy kinds listed in `failOnProxies` where the predicted plan has more than the gold. */
  readonly proxyViolations: readonly ProxyKind[];
}

/**
 * Applies the budget: the predicted estimate may be at most `budgetFactor` times the gold's (a gold
 * estimate below 1 counts as 1, so that a trivial gold does not make every prediction fail), and,
 * for each kind in `failOnProxies`, the predicted plan may not have more of it than the gold.
 *
 * @param budgetFactor - allowed predicted/gold cost ratio (≥ 1).
 * @param failOnProxies - proxy kinds that fail on their own when the predicted plan adds them.
 */
export function applyBudget(comparison: PlanComparison, budgetFactor: number, failOnProxies: readonly ProxyKind[]): BudgetVerdict {
  const allowedCost = budgetFactor * Math.max(comparison.goldCost, 1);
  const proxyViolations = failOnProxies.filter((kind) => comparison.predicted[kind] > comparison.gold[kind]);
  return { withinBudget: comparison.predictedCost <= allowedCost, allowedCost, proxyViolations };
}
