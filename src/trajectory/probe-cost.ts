/**
 * The cost of an agent's probe queries — rows and bytes scanned — measured on the item's fixture
 * by the engine, never taken from the agent's report. Only a probe that passed the gates (L1–L3)
 * is sent to the engine, and it goes through the engine's own read-only path and caps.
 *
 * - **SQLite: an estimate.** better-sqlite3 exposes no statement counters (`sqlite3_stmt_status`
 *   is not bound), so the probe is not timed or counted while it runs; its `EXPLAIN QUERY PLAN` is
 *   read with the snapshot's `sqlite_stat1` through L6's plan model (src/efficiency/plan-analysis.ts):
 *   `rowsScanned` is the rows the plan's base-table loops visit (a full scan of a table visits its
 *   rows, an index search its estimated matches, each times the rows of the loops around it);
 *   `bytesScanned` is each visited row priced at its table's average stored row size (the table's
 *   B-tree pages in `dbstat` divided by its row count). Sorts, seeks and temporary B-trees are not
 *   rows scanned. A table without statistics is assumed to hold SQLite's default (1 048 576 rows),
 *   as L6 does, and named in `defaultedTables`.
 * - **PostgreSQL: measured.** `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` runs the probe inside the
 *   engine's read-only transaction that is rolled back (the engine's `explain` with `analyze`):
 *   `rowsScanned` is the actual rows the plan's scan nodes returned (times their loops), and
 *   `bytesScanned` the shared buffers hit and read (× the 8 kB block size).
 */
import type { Engine, ExplainResult, PlanStep } from '../engine/engine.js';
import { snapshotIdentity } from '../compare/gold-result-cache.js';
import type { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import { analyzePlan } from '../efficiency/plan-analysis.js';
import { collectTableAliases, mergeTableAliases } from '../efficiency/table-aliases.js';
import { snapshotOfFile } from '../fixtures/snapshot.js';
import type { DoubleQuoteMode } from '../engine/engine.js';

/** The measured cost of one `sql` step. */
export interface ProbeCost {
  /** The 1-based step index in the trajectory. */
  readonly step: number;
  /** True when the engine measured (PostgreSQL) or estimated (SQLite) the cost. */
  readonly measured: boolean;
  /** `estimate` on SQLite, `measured` on PostgreSQL; absent when not measured. */
  readonly method?: 'estimate' | 'measured';
  readonly rowsScanned?: number;
  /** Absent when the table sizes are unknown (no `dbstat`). */
  readonly bytesScanned?: number;
  /** Tables without statistics, assumed to hold SQLite's default row count (SQLite). */
  readonly defaultedTables?: readonly string[];
  /** Why the cost was not measured (unsafe, not valid on the fixture, the engine's error). */
  readonly reason?: string;
}

/** What {@link measureProbeCosts} reads. */
export interface ProbeCostInput {
  readonly engine: Engine;
  /** The item's first snapshot (SQLite path or PostgreSQL database). */
  readonly db: string;
  /** The `sql` steps, with their 1-based step index and whether they passed the gates L1–L3. */
  readonly probes: ReadonlyArray<{ readonly step: number; readonly sql: string; readonly gatesOpen: boolean }>;
  /** L6's cache of the snapshot's statistics and view aliases (shared with L6). */
  readonly efficiencyCache: EfficiencyCache;
  readonly doubleQuotes?: DoubleQuoteMode;
  /** The engine's deadline per statement, ms (engine default when absent). */
  readonly timeoutMs?: number;
}

/** PostgreSQL's block size (the default `BLCKSZ`), bytes. */
export const POSTGRES_BLOCK_BYTES = 8192;

/**
 * Measures the cost of every probe (see the module doc).
 * @returns one cost per probe, in order; a probe that did not pass the gates, or that the engine
 *   refuses or fails, is `measured: false` with the reason. Never throws for a probe's own fault;
 *   the engine's infrastructure faults propagate.
 */
export async function measureProbeCosts(input: ProbeCostInput): Promise<ProbeCost[]> {
  const costs: ProbeCost[] = [];
  for (const probe of input.probes) {
    if (!probe.gatesOpen) {
      costs.push({ step: probe.step, measured: false, reason: 'did not pass L1–L3: not run' });
      continue;
    }
    costs.push(input.engine.dialect === 'postgres' ? await postgresCost(input, probe) : await sqliteCost(input, probe));
  }
  return costs;
}

async function sqliteCost(input: ProbeCostInput, probe: { readonly step: number; readonly sql: string }): Promise<ProbeCost> {
  const [plan, facts, sizes] = await Promise.all([
    input.engine.explain({ db: input.db, sql: probe.sql, ...(input.doubleQuotes ? { doubleQuotes: input.doubleQuotes } : {}), ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}) }),
    input.efficiencyCache.snapshotFacts(input.engine, input.db),
    tableBytes(input.engine, input.db),
  ]);
  if (!plan.ok) return { step: probe.step, measured: false, reason: `${plan.error.code}: ${plan.error.message}` };
  const aliases = mergeTableAliases(collectTableAliases(probe.sql), facts.viewAliases);
  const analysis = analyzePlan(plan.result.plan, { statistics: facts.statistics, aliases });
  const visits = new Map(analysis.cost.steps.map((step) => [step.stepId, step.loops * (step.rowsPerLoop ?? 0)]));
  let rows = 0;
  let bytes: number | undefined = sizes === undefined ? undefined : 0;
  for (const access of [...analysis.proxies.fullScans, ...analysis.proxies.searches]) {
    const visited = visits.get(access.stepId) ?? 0;
    rows += visited;
    if (bytes !== undefined) {
      const tableRows = facts.statistics.tables.get(access.table);
      const size = sizes?.get(access.table);
      bytes = size === undefined || tableRows === undefined || tableRows === 0 ? undefined : bytes + visited * (size / tableRows);
    }
  }
  return {
    step: probe.step,
    measured: true,
    method: 'estimate',
    rowsScanned: Math.round(rows),
    ...(bytes !== undefined ? { bytesScanned: Math.round(bytes) } : {}),
    ...(analysis.cost.defaultedTables.length > 0 ? { defaultedTables: analysis.cost.defaultedTables } : {}),
  };
}

/** Table → bytes of its B-tree pages (`dbstat`), per snapshot identity; `undefined` without `dbstat`. */
const tableSizes = new Map<string, Promise<ReadonlyMap<string, number> | undefined>>();

const TABLE_BYTES_SQL = "SELECT lower(name), SUM(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE type = 'table') GROUP BY name";

function tableBytes(engine: Engine, db: string): Promise<ReadonlyMap<string, number> | undefined> {
  let key: string;
  try {
    key = snapshotIdentity(snapshotOfFile(db));
  } catch {
    key = db;
  }
  const found = tableSizes.get(key);
  if (found !== undefined) return found;
  const read = engine.execute({ db, sql: TABLE_BYTES_SQL }).then((outcome) => {
    if (!outcome.ok) {
      tableSizes.delete(key);
      return undefined;
    }
    return new Map(outcome.result.rows.flatMap(([name, size]) => (typeof name === 'string' && typeof size === 'number' ? [[name, size] as const] : [])));
  });
  tableSizes.set(key, read);
  return read;
}

async function postgresCost(input: ProbeCostInput, probe: { readonly step: number; readonly sql: string }): Promise<ProbeCost> {
  const outcome = await input.engine.explain({ db: input.db, sql: probe.sql, analyze: true, ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}) });
  if (!outcome.ok) return { step: probe.step, measured: false, reason: `${outcome.error.code}: ${outcome.error.message}` };
  return { step: probe.step, measured: true, method: 'measured', ...postgresScanned(outcome.result) };
}

/**
 * Rows and bytes an `EXPLAIN (ANALYZE, BUFFERS)` plan scanned: actual rows × loops of its scan
 * nodes (the nodes that read a relation), and the top node's shared blocks hit + read (buffer
 * counts of a node include its children's) × {@link POSTGRES_BLOCK_BYTES}.
 */
export function postgresScanned(result: ExplainResult): { readonly rowsScanned: number; readonly bytesScanned: number } {
  const scans = result.plan.filter((step: PlanStep) => step.relation !== undefined && step.actual !== undefined);
  const rowsScanned = scans.reduce((sum, step) => sum + step.actual!.rows * step.actual!.loops, 0);
  const top = result.plan.filter((step) => step.parent === 0);
  const blocks = top.reduce((sum, step) => sum + (step.actual?.sharedBlocks ?? 0), 0);
  return { rowsScanned: Math.round(rowsScanned), bytesScanned: blocks * POSTGRES_BLOCK_BYTES };
}
