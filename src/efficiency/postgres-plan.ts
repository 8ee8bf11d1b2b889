/**
 * L6's proxies and cost on PostgreSQL, from `EXPLAIN (FORMAT JSON)` as the engine returns it
 * (`PlanStep`s with the node's text, relation, index, subplan and estimates; engine/postgres). The
 * planner already estimates: the cost is the top node's `Total Cost` (PostgreSQL's own units,
 * `seq_page_cost` = 1 by default) and the rows its `Plan Rows`, under the statistics `ANALYZE`
 * gathered when the fixture was built. Nothing is run. (PostgreSQL 15 manual, "Using EXPLAIN".)
 *
 * Proxies, in the shape SQLite's analysis gives (plan-analysis.ts), so the comparison and the
 * budget are the same code:
 * | PostgreSQL node | proxy |
 * |---|---|
 * | `Seq Scan on t` | a full scan of `t` |
 * | `Index Scan` / `Index Only Scan using i on t`, `Bitmap Heap Scan on t` (its `Bitmap Index Scan on i`) | a search of `t` through `i` |
 * | `Sort` | a sort ("temp B-tree"): for DISTINCT under `Unique`, GROUP BY under `GroupAggregate`, else ORDER BY |
 * | a node that is a `SubPlan` | a correlated subquery (run again per outer row; an `InitPlan` runs once) |
 * PostgreSQL builds no automatic indexes; that proxy is always 0.
 */
import type { PlanStep } from '../engine/engine.js';
import type { FullScan, IndexSearch, PlanAnalysis, StepCost } from './plan-analysis.js';
import type { TempBTreePurpose } from './plan-step.js';

/** The cost unit of a PostgreSQL estimate, as reasons name it. */
export const POSTGRES_COST_UNIT = 'PostgreSQL cost units';

/**
 * Reads proxies and the planner's estimates from a PostgreSQL plan.
 * @param plan - the engine's plan steps (a tree by `parent`, top node `parent: 0`).
 * @returns the analysis; `cost.total` is the top node's total cost rounded to 2 decimals,
 *   `cost.rows` its estimated rows, `cost.unit` {@link POSTGRES_COST_UNIT}.
 * @example
 * analyzePostgresPlan([{ id: 1, parent: 0, detail: 'Seq Scan on orders', relation: 'orders', estimate: { rows: 12, cost: 25.5 } }])
 * // { proxies: { fullScans: [{ stepId: 1, name: 'orders', table: 'orders', access: 'table-scan', index: null }], … }, cost: { total: 25.5, rows: 12, … } }
 */
export function analyzePostgresPlan(plan: readonly PlanStep[]): PlanAnalysis {
  const byId = new Map(plan.map((step) => [step.id, step]));
  const fullScans: FullScan[] = [];
  const searches: IndexSearch[] = [];
  const tempBTrees: { stepId: number; purpose: TempBTreePurpose }[] = [];
  const correlatedSubqueries: { stepId: number; form: 'scalar' | 'list' }[] = [];
  const steps: StepCost[] = [];
  for (const step of plan) {
    const type = nodeType(step.detail);
    const name = aliasOf(step);
    const table = step.relation?.toLowerCase();
    if (type === 'Seq Scan' && table !== undefined) fullScans.push({ stepId: step.id, name, table, access: 'table-scan', index: null });
    else if ((type === 'Index Scan' || type === 'Index Only Scan') && table !== undefined) {
      searches.push({ stepId: step.id, name, table, access: 'index-search', index: step.index ?? null, constraint: '' });
    } else if (type === 'Bitmap Heap Scan' && table !== undefined) {
      const bitmap = plan.find((child) => child.parent === step.id && nodeType(child.detail) === 'Bitmap Index Scan');
      searches.push({ stepId: step.id, name, table, access: 'index-search', index: bitmap?.index ?? null, constraint: '' });
    } else if (type === 'Sort' || type === 'Incremental Sort') {
      const parent = byId.get(step.parent);
      const above = parent === undefined ? '' : nodeType(parent.detail);
      tempBTrees.push({ stepId: step.id, purpose: above === 'Unique' ? 'DISTINCT' : above === 'GroupAggregate' ? 'GROUP BY' : 'ORDER BY' });
    }
    if (step.subplan?.startsWith('SubPlan') === true) correlatedSubqueries.push({ stepId: step.id, form: 'scalar' });
    steps.push({ stepId: step.id, detail: step.detail, loops: 1, ...(step.estimate !== undefined ? { rowsPerLoop: step.estimate.rows } : {}), cost: step.estimate?.cost ?? 0 });
  }
  const top = plan.find((step) => step.parent === 0);
  return {
    proxies: { fullScans, searches, tempBTrees, automaticIndexes: [], correlatedSubqueries, bloomFilters: 0 },
    cost: { total: Math.round((top?.estimate?.cost ?? 0) * 100) / 100, steps, defaultedTables: [], rows: top?.estimate?.rows ?? 0, unit: POSTGRES_COST_UNIT },
  };
}

/** `Index Scan using i on t o` → `Index Scan`; `Hash Left Join` stays. */
function nodeType(detail: string): string {
  return detail.replace(/ (using|on) .*$/, '');
}

/** The name the plan prints for the relation: its alias when the query gave one. */
function aliasOf(step: PlanStep): string {
  const match = / on (\S+)(?: (\S+))?$/.exec(step.detail);
  return match?.[2] ?? match?.[1] ?? step.relation ?? '';
}
