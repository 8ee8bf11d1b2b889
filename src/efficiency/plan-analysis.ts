/**
 * Deterministic efficiency proxies and a cost estimate from one statement's `EXPLAIN QUERY PLAN`
 * and the snapshot's `sqlite_stat1` statistics (*Text-to-SQL Evals* §7: prefer deterministic proxies to
 * wall-clock timings). Nothing here runs the query: this better-sqlite3 build exposes no progress
 * callback or statement counters, so these are estimates of work, never counts of work done.
 *
 * ## Cost model (unit: estimated B-tree row visits)
 * The plan is a tree (`parent` ids). Each block's children run in order; its loops nest, outer first
 * (SQLite's nested-loop join). Walking a block with `outer` = product of the loop outputs so far:
 * | step | added cost | rows out per outer row |
 * |---|---|---|
 * | `SCAN t`, `SCAN t USING COVERING INDEX i` | outer × N | N |
 * | `SCAN t USING INDEX i` (not covering) | outer × 2N (entry + table row) | N |
 * | `SEARCH t USING INTEGER PRIMARY KEY` | outer × (r + log2 N) | r = 1 for `rowid=?`, else N / 4^bounds |
 * | `SEARCH t USING [COVERING] INDEX i (k equalities, b bounds)` | outer × (r·(2 if not covering) + log2 N) | r = max(1, a_k / 4^b), a_k from stat1 (a_0 = N) |
 * | `SEARCH t USING AUTOMATIC … INDEX` | N·log2 N once (build) + outer × (r + log2 N) | r = max(1, 10 / 4^b) |
 * | `SCAN name` of a `MATERIALIZE`/`CO-ROUTINE` block | outer × R | R = that block's rows (N = R for searches on it) |
 * | `USE TEMP B-TREE FOR …` | outer·log2(outer) (a sort of the rows so far) | — |
 * | `CORRELATED … SUBQUERY` | outer × (its block's cost) | — |
 * | `SCALAR/LIST SUBQUERY`, `MATERIALIZE`, `CO-ROUTINE` | its block's cost, once | — |
 * | `COMPOUND QUERY`, `MERGE (…)`, `MULTI-INDEX OR` | outer × Σ member costs (+ sort for `… USING TEMP B-TREE`) | Σ member rows |
 * N = the table's rows in sqlite_stat1, or SQLite's own default of 1 048 576 when the table has no
 * statistics (listed in `defaultedTables`). The factor 4 per range bound is SQLite's own estimate
 * without STAT4 (`whereRangeAdjust`, src/where.c: each bound lowers the LogEst by 20, i.e. ÷4); 10
 * rows per equality without statistics is SQLite's default (`sqlite3DefaultRowEst`). WHERE filters
 * that use no index are not modelled (a scan yields N rows), so the estimate is an upper bound on the
 * rows visited, not a prediction of rows returned. The total is rounded to an integer.
 */
import type { PlanStep } from '../engine/engine.js';
import { classifyPlanDetail } from './plan-step.js';
import type { LoopStep, PlanStepKind, TempBTreePurpose } from './plan-step.js';
import { DEFAULT_ROWS_PER_EQUALITY, DEFAULT_TABLE_ROWS } from './statistics.js';
import type { DatabaseStatistics } from './statistics.js';
import type { TableAliases } from './table-aliases.js';

/** A full pass over a base table or one of its indexes. */
export interface FullScan {
  readonly stepId: number;
  /** Name as printed in the plan (alias or table). */
  readonly name: string;
  /** The base table (lower-case). */
  readonly table: string;
  readonly access: 'table-scan' | 'covering-index-scan' | 'index-scan';
  readonly index: string | null;
}

/** An index or rowid search on a base table. */
export interface IndexSearch {
  readonly stepId: number;
  readonly name: string;
  readonly table: string;
  readonly access: 'rowid-search' | 'index-search';
  readonly index: string | null;
  readonly constraint: string;
}

/** The deterministic proxies of one plan. */
export interface PlanProxies {
  /** Full scans of base tables (including full index scans; `access` tells them apart). */
  readonly fullScans: readonly FullScan[];
  /** Index / rowid searches on base tables. */
  readonly searches: readonly IndexSearch[];
  /** Temporary B-trees, by purpose (sorts for ORDER BY, GROUP BY, DISTINCT, UNION/EXCEPT/INTERSECT). */
  readonly tempBTrees: readonly { readonly stepId: number; readonly purpose: TempBTreePurpose }[];
  /** Indexes SQLite builds for this statement only (a missing index). */
  readonly automaticIndexes: readonly { readonly stepId: number; readonly table: string; readonly constraint: string }[];
  /** Subqueries re-run for every outer row. */
  readonly correlatedSubqueries: readonly { readonly stepId: number; readonly form: 'scalar' | 'list' }[];
  /** Bloom filters SQLite adds (informational; they save work). */
  readonly bloomFilters: number;
}

/** Cost of one plan row in the model above. */
export interface StepCost {
  readonly stepId: number;
  readonly detail: string;
  /** How many times the step runs (rows of the enclosing loops). */
  readonly loops: number;
  /** Rows the step yields per run (loops), when it is a loop. */
  readonly rowsPerLoop?: number;
  /** Cost this step adds (row visits, unrounded). */
  readonly cost: number;
}

/** The cost estimate of one plan. */
export interface CostEstimate {
  /** SQLite: estimated B-tree row visits, rounded to an integer. PostgreSQL: the planner's total cost (see `unit`). */
  readonly total: number;
  readonly steps: readonly StepCost[];
  /** Base tables with no sqlite_stat1 row (assumed {@link DEFAULT_TABLE_ROWS} rows), sorted. */
  readonly defaultedTables: readonly string[];
  /** PostgreSQL: the planner's estimate of the rows the statement returns. Absent on SQLite. */
  readonly rows?: number;
  /** The unit of `total` when it is not row visits: `PostgreSQL cost units`. Absent on SQLite. */
  readonly unit?: string;
}

/** Proxies and cost of one statement's plan. */
export interface PlanAnalysis {
  readonly proxies: PlanProxies;
  readonly cost: CostEstimate;
}

/** What {@link analyzePlan} needs besides the plan. */
export interface PlanContext {
  readonly statistics: DatabaseStatistics;
  /** Alias → table of the same statement (see collectTableAliases). */
  readonly aliases: TableAliases;
}

interface BlockOutcome {
  cost: number;
  rows: number;
}

/**
 * Reads proxies and a cost estimate from a plan (model in the module doc).
 *
 * @param plan - `EXPLAIN QUERY PLAN` rows in SQLite's order (Engine.explain).
 * @param context - statistics of the snapshot and the statement's aliases.
 * @example
 * // orders: 2000 rows, idx_orders_date stat '2000 6'
 * analyzePlan([{ id: 3, parent: 0, detail: 'SCAN orders' }], ctx).cost.total // 2000
 */
export function analyzePlan(plan: readonly PlanStep[], context: PlanContext): PlanAnalysis {
  const children = new Map<number, { step: PlanStep; kind: PlanStepKind }[]>();
  for (const step of plan) {
    const list = children.get(step.parent) ?? [];
    list.push({ step, kind: classifyPlanDetail(step.detail) });
    children.set(step.parent, list);
  }
  const materialized = new Map<string, number>();
  const defaulted = new Set<string>();
  const steps: StepCost[] = [];
  const fullScans: FullScan[] = [];
  const searches: IndexSearch[] = [];
  const tempBTrees: { stepId: number; purpose: TempBTreePurpose }[] = [];
  const automaticIndexes: { stepId: number; table: string; constraint: string }[] = [];
  const correlatedSubqueries: { stepId: number; form: 'scalar' | 'list' }[] = [];
  let bloomFilters = 0;

  const tableOf = (name: string): string => {
    const key = name.toLowerCase();
    return context.aliases.byName.get(key) ?? key;
  };
  const rowsOf = (table: string): number => {
    const rows = context.statistics.tables.get(table);
    if (rows !== undefined) return rows;
    defaulted.add(table);
    return DEFAULT_TABLE_ROWS;
  };

  const loop = (id: number, detail: string, step: LoopStep, outer: number): BlockOutcome => {
    if (step.access === 'constant-row') {
      steps.push({ stepId: id, detail, loops: outer, rowsPerLoop: 1, cost: 0 });
      return { cost: 0, rows: 1 };
    }
    // A name MATERIALIZE / CO-ROUTINE produced is not a base table: its rows are that block's.
    // Also through an alias (`FROM per_customer p` prints `SCAN p`).
    const fromBlock = materialized.get(step.name.toLowerCase()) ?? materialized.get(tableOf(step.name));
    const isSubquery = fromBlock !== undefined || step.access === 'subquery-scan';
    const table = isSubquery ? step.name.toLowerCase() : tableOf(step.name);
    const n = isSubquery ? (fromBlock ?? 1) : rowsOf(table);
    const seek = Math.log2(Math.max(n, 2));
    const bounds = 4 ** (step.constraint?.rangeBounds ?? 0);
    const equalities = step.constraint?.equalities ?? 0;
    let rows: number;
    let perLoop: number;
    let once = 0;
    switch (step.access) {
      case 'table-scan':
      case 'covering-index-scan':
      case 'index-scan':
        if (!isSubquery) fullScans.push({ stepId: id, name: step.name, table, access: step.access, index: step.index });
        rows = n;
        perLoop = step.tableLookups ? 2 * n : n;
        break;
      case 'rowid-search':
        if (!isSubquery) searches.push({ stepId: id, name: step.name, table, access: step.access, index: null, constraint: step.constraint?.text ?? '' });
        rows = equalities > 0 ? 1 : Math.max(1, n / bounds);
        perLoop = rows + seek;
        break;
      case 'index-search': {
        if (!isSubquery) searches.push({ stepId: id, name: step.name, table, access: step.access, index: step.index, constraint: step.constraint?.text ?? '' });
        const stats = step.index === null ? undefined : context.statistics.indexes.get(step.index.toLowerCase());
        const base = equalities === 0 ? (stats?.rows ?? n) : (stats?.rowsPerKey[equalities - 1] ?? DEFAULT_ROWS_PER_EQUALITY);
        rows = Math.max(1, base / bounds);
        perLoop = (step.tableLookups ? 2 * rows : rows) + seek;
        break;
      }
      case 'subquery-scan':
        rows = n;
        perLoop = n;
        break;
      case 'automatic-index-search':
        automaticIndexes.push({ stepId: id, table, constraint: step.constraint?.text ?? '' });
        once = n * seek;
        rows = Math.max(1, DEFAULT_ROWS_PER_EQUALITY / bounds);
        perLoop = rows + seek;
        break;
    }
    const cost = once + outer * perLoop;
    steps.push({ stepId: id, detail, loops: outer, rowsPerLoop: rows, cost });
    return { cost, rows };
  };

  const block = (parent: number): BlockOutcome => {
    let outer = 1;
    let cost = 0;
    for (const { step, kind } of children.get(parent) ?? []) {
      switch (kind.kind) {
        case 'loop': {
          const result = loop(step.id, step.detail, kind, outer);
          cost += result.cost;
          outer *= result.rows;
          break;
        }
        case 'temp-b-tree': {
          tempBTrees.push({ stepId: step.id, purpose: kind.purpose });
          const sort = sortCost(outer);
          steps.push({ stepId: step.id, detail: step.detail, loops: 1, cost: sort });
          cost += sort;
          break;
        }
        case 'subquery': {
          if (kind.correlated) correlatedSubqueries.push({ stepId: step.id, form: kind.form });
          const body = block(step.id);
          const added = (kind.correlated ? outer : 1) * body.cost;
          steps.push({ stepId: step.id, detail: step.detail, loops: kind.correlated ? outer : 1, cost: added });
          cost += added;
          break;
        }
        case 'materialize': {
          const body = block(step.id);
          materialized.set(kind.name.toLowerCase(), body.rows);
          steps.push({ stepId: step.id, detail: step.detail, loops: 1, rowsPerLoop: body.rows, cost: body.cost });
          cost += body.cost;
          break;
        }
        case 'bloom-filter':
          bloomFilters += 1;
          break;
        case 'compound': {
          const members = compound(step.id);
          cost += outer * members.cost;
          steps.push({ stepId: step.id, detail: step.detail, loops: outer, rowsPerLoop: members.rows, cost: outer * members.cost });
          outer *= Math.max(1, members.rows);
          break;
        }
        case 'block': {
          const body = block(step.id);
          cost += outer * body.cost;
          if (body.cost > 0) outer *= body.rows;
          break;
        }
      }
    }
    return { cost, rows: outer };
  };

  const compound = (parent: number): BlockOutcome => {
    let cost = 0;
    let rows = 0;
    for (const { step, kind } of children.get(parent) ?? []) {
      const member = block(step.id);
      cost += member.cost;
      rows += member.rows;
      if (kind.kind === 'temp-b-tree') {
        tempBTrees.push({ stepId: step.id, purpose: kind.purpose });
        const sort = sortCost(member.rows);
        steps.push({ stepId: step.id, detail: step.detail, loops: 1, cost: sort });
        cost += sort;
      }
    }
    return { cost, rows };
  };

  const top = block(0);
  return {
    proxies: { fullScans, searches, tempBTrees, automaticIndexes, correlatedSubqueries, bloomFilters },
    cost: { total: Math.round(top.cost), steps, defaultedTables: [...defaulted].sort() },
  };
}

/** Comparisons to sort n rows: n·log2 n (0 for n ≤ 1). */
export function sortCost(rows: number): number {
  return rows > 1 ? rows * Math.log2(rows) : 0;
}
