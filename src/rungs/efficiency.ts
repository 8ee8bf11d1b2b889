/**
 * L6 efficiency: is a correct predicted query reasonably cheap compared with the gold?
 * (*Text-to-SQL Evals* §5.3 and §7). Scored only when L4 matched: a wrong query that returns
 * nothing fast must not look efficient.
 *
 * Verdict, decided once: `pass` when the predicted plan's estimated cost is at most
 * `budgetFactor` × the gold's and no proxy kind listed in `failOnProxies` grows; else `fail`.
 * Proxies (full scans, scans where the gold uses an index, temp B-trees, automatic indexes,
 * correlated subqueries) and both estimates are always reported. BIRD timing (VES / R-VES reward)
 * is optional and never decides the verdict: wall-clock timings are not reproducible.
 *
 * The estimates per engine: SQLite — row visits modelled from `EXPLAIN QUERY PLAN` and
 * `sqlite_stat1` (src/efficiency/plan-analysis.ts); PostgreSQL — the planner's own total cost and
 * rows from `EXPLAIN (FORMAT JSON)` under the statistics `ANALYZE` gathered at build
 * (src/efficiency/postgres-plan.ts).
 */
import { LadderError } from '../errors.js';
import { invalidValue, isPlainRecord, optionReader } from '../options.js';
import type { DoubleQuoteMode, Engine, PlanStep } from '../engine/engine.js';
import { analyzePlan } from '../efficiency/plan-analysis.js';
import { analyzePostgresPlan } from '../efficiency/postgres-plan.js';
import type { PlanAnalysis } from '../efficiency/plan-analysis.js';
import { PROXY_KINDS, applyBudget, comparePlans } from '../efficiency/compare-plans.js';
import type { BudgetVerdict, PlanComparison, ProxyKind } from '../efficiency/compare-plans.js';
import { DEFAULT_TABLE_ROWS } from '../efficiency/statistics.js';
import { collectTableAliases, mergeTableAliases, type TableAliases } from '../efficiency/table-aliases.js';
import { parseSqlAhead, whenParsedAhead } from '../sql/parse.js';
import { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import { DEFAULT_TIMING_RUNS, createEngineTimingSource, measureTimeRatio, rvesReward } from '../efficiency/ves.js';
import type { TimingSource } from '../efficiency/ves.js';
import { engineDefaults, type ExecutionDetails } from './execution.js';
import type { ParseMemo } from './parse-memo.js';
import { createRungResult, createSkippedResult } from './rung-result.js';
import type { RungIssue, RungResult, RungStatus } from './rung-result.js';

/** Default allowed predicted/gold estimated-cost ratio. */
export const DEFAULT_BUDGET_FACTOR = 2;

/** Optional BIRD timing of the pair. */
export interface EfficiencyTimingOptions {
  /** Alternating rounds (default 100, BIRD's `iterate_num`). */
  readonly runs?: number;
  /** Where timings come from (default: the engine's `elapsedMs`). Tests inject fixed timings. */
  readonly source?: TimingSource;
  /** Deadline per timed statement, ms (engine default when absent). */
  readonly timeoutMs?: number;
}

/** Options of {@link checkEfficiency}. */
export interface EfficiencyOptions {
  /** Allowed ratio predicted cost / gold cost, a finite number ≥ 1 (default {@link DEFAULT_BUDGET_FACTOR}). */
  readonly budgetFactor?: number;
  /** Proxy kinds that fail the rung when the predicted plan has more of them than the gold (default none). */
  readonly failOnProxies?: readonly ProxyKind[];
  /** BIRD timing; off by default (`false` or absent). `true` = 100 rounds on the engine. */
  readonly timing?: boolean | EfficiencyTimingOptions;
  /** Double-quote handling when explaining (engine default when absent). */
  readonly doubleQuotes?: DoubleQuoteMode;
}

/** Inputs of {@link checkEfficiency}. */
export interface EfficiencyInput {
  readonly predictedSql: string;
  readonly goldSql: string;
  /** Path of the snapshot database on which L4 matched (statistics are read from it). */
  readonly snapshot: string;
  readonly engine: Engine;
  /** The L4 verdict; anything but `pass` skips this rung. */
  readonly execution: { readonly status: RungStatus };
  readonly options?: EfficiencyOptions;
  /** The item's shared parses (SQLite); absent → the rung parses the two texts itself. */
  readonly parses?: ParseMemo;
  /**
   * The front end's L6 cache (the snapshot's statistics and views, the gold's plan), shared across
   * items; absent → a fresh one (nothing shared).
   */
  readonly cache?: EfficiencyCache;
}

/** One side of the comparison. */
export interface PlanSide {
  readonly plan: readonly PlanStep[];
  readonly analysis: PlanAnalysis;
}

/** BIRD timing of the pair, when requested. */
export type EfficiencyTiming =
  | { readonly ok: true; readonly runs: number; readonly ratio: number; readonly removedOutliers: number; readonly vesTerm: number; readonly rvesReward: number }
  | { readonly ok: false; readonly error: string };

/** `details` of an L6 result (scored ones; skipped results carry `null`). */
export interface EfficiencyDetails {
  readonly predicted: PlanSide;
  readonly gold: PlanSide;
  readonly comparison: PlanComparison;
  readonly budget: BudgetVerdict & { readonly factor: number; readonly failOnProxies: readonly ProxyKind[] };
  /**
   * SQLite: `sqlite_stat1` when the snapshot has statistics, `none` when SQLite's defaults were
   * used. PostgreSQL: `pg_statistic` (the planner's statistics, gathered by `ANALYZE` at build).
   */
  readonly statistics: 'sqlite_stat1' | 'none' | 'pg_statistic';
  /** `null` unless timing was requested. */
  readonly timing: EfficiencyTiming | null;
}

interface ResolvedOptions {
  readonly budgetFactor: number;
  readonly failOnProxies: readonly ProxyKind[];
  readonly timing: { readonly runs: number; readonly source?: TimingSource; readonly timeoutMs?: number } | null;
}

/**
 * Runs L6 on one item.
 *
 * @returns `skipped` when L4 did not pass; `unscored` when a plan cannot be read; otherwise
 *   `pass` / `fail` by the budget, with {@link EfficiencyDetails}.
 * @throws LadderError('invalid_option') for bad options (misuse).
 * @example
 * await checkEfficiency({ predictedSql, goldSql, snapshot: '/cache/warehouse.db', engine, execution: l4 })
 * // { status: 'fail', reason: 'estimated cost 2000 vs gold 14 row visits (×142.86, budget ×2); 1 scan where gold uses an index (orders)', … }
 */
export async function checkEfficiency(input: EfficiencyInput): Promise<RungResult<EfficiencyDetails | null>> {
  const options = resolveOptions(input.options ?? {});
  if (input.execution.status !== 'pass') {
    return createSkippedResult('efficiency', `execution did not match (L4 ${input.execution.status}); efficiency is scored only for correct queries`);
  }
  const doubleQuotes = input.options?.doubleQuotes;
  const explain = (sql: string) => input.engine.explain({ db: input.snapshot, sql, ...(doubleQuotes ? { doubleQuotes } : {}) });
  const cache = input.cache ?? new EfficiencyCache();
  if (input.engine.dialect === 'postgres') return postgresVerdict(input, options, cache, explain);
  // The gold's plan and the snapshot's facts are the same for every row that reaches L6 with them.
  const goldMode = doubleQuotes ?? engineDefaults(input.engine).doubleQuotes ?? 'legacy';
  // The two texts' parses (for their aliases) start in the parser thread before the engine is
  // asked, and are read once both have answered: a parse read at once would block this thread.
  const parseAhead = input.parses ? (sql: string) => input.parses!.parseAhead(sql) : parseSqlAhead;
  parseAhead(input.predictedSql);
  parseAhead(input.goldSql);
  const [goldPlan, predictedPlan, facts] = await Promise.all([
    cache.goldPlan(input.snapshot, input.goldSql, goldMode, () => explain(input.goldSql)),
    explain(input.predictedSql),
    cache.snapshotFacts(input.engine, input.snapshot),
  ]);
  const whenParsed = input.parses ? (sql: string) => input.parses!.whenParsed(sql) : whenParsedAhead;
  await Promise.all([whenParsed(input.predictedSql), whenParsed(input.goldSql)]);
  const parse = input.parses ? (sql: string) => input.parses!.parse(sql) : undefined;
  const predictedAliases = collectTableAliases(input.predictedSql, parse);
  const goldAliases = collectTableAliases(input.goldSql, parse);
  if (!goldPlan.ok) return unscored(`gold plan unavailable: ${goldPlan.error.code}: ${goldPlan.error.message}`);
  if (!predictedPlan.ok) return unscored(`predicted plan unavailable: ${predictedPlan.error.code}: ${predictedPlan.error.message}`);

  const side = (aliases: TableAliases, plan: readonly PlanStep[]): PlanSide => ({
    plan,
    analysis: analyzePlan(plan, { statistics: facts.statistics, aliases: mergeTableAliases(aliases, facts.viewAliases) }),
  });
  const predicted = side(predictedAliases, predictedPlan.result.plan);
  const gold = side(goldAliases, goldPlan.result.plan);
  const comparison = comparePlans(predicted.analysis, gold.analysis);
  const verdict = applyBudget(comparison, options.budgetFactor, options.failOnProxies);
  const timing = options.timing ? await timePair(input, options.timing) : null;
  const pass = verdict.withinBudget && verdict.proxyViolations.length === 0;
  return createRungResult<EfficiencyDetails>({
    rung: 'efficiency',
    status: pass ? 'pass' : 'fail',
    reason: describe(comparison, verdict, options.budgetFactor, [...new Set([...predicted.analysis.cost.defaultedTables, ...gold.analysis.cost.defaultedTables])].sort()),
    issues: proxyIssues(comparison, predicted.analysis),
    details: {
      predicted,
      gold,
      comparison,
      budget: { ...verdict, factor: options.budgetFactor, failOnProxies: options.failOnProxies },
      statistics: facts.statisticsAvailable ? 'sqlite_stat1' : 'none',
      timing,
    },
  });
}

/**
 * L6 on PostgreSQL: both plans from `EXPLAIN (FORMAT JSON)`, the planner's cost and rows compared
 * under the same budget (the gold's plan cached per database and text).
 */
async function postgresVerdict(
  input: EfficiencyInput,
  options: ResolvedOptions,
  cache: EfficiencyCache,
  explain: (sql: string) => ReturnType<Engine['explain']>,
): Promise<RungResult<EfficiencyDetails | null>> {
  const [goldPlan, predictedPlan] = await Promise.all([cache.goldPlan(input.snapshot, input.goldSql, 'strict', () => explain(input.goldSql)), explain(input.predictedSql)]);
  if (!goldPlan.ok) return unscored(`gold plan unavailable: ${goldPlan.error.code}: ${goldPlan.error.message}`);
  if (!predictedPlan.ok) return unscored(`predicted plan unavailable: ${predictedPlan.error.code}: ${predictedPlan.error.message}`);
  const predicted: PlanSide = { plan: predictedPlan.result.plan, analysis: analyzePostgresPlan(predictedPlan.result.plan) };
  const gold: PlanSide = { plan: goldPlan.result.plan, analysis: analyzePostgresPlan(goldPlan.result.plan) };
  const comparison = comparePlans(predicted.analysis, gold.analysis);
  const verdict = applyBudget(comparison, options.budgetFactor, options.failOnProxies);
  const timing = options.timing ? await timePair(input, options.timing) : null;
  const pass = verdict.withinBudget && verdict.proxyViolations.length === 0;
  const rows = `estimated rows ${predicted.analysis.cost.rows ?? 0} vs gold ${gold.analysis.cost.rows ?? 0}`;
  return createRungResult<EfficiencyDetails>({
    rung: 'efficiency',
    status: pass ? 'pass' : 'fail',
    reason: `${describe(comparison, verdict, options.budgetFactor, [], predicted.analysis.cost.unit)}; ${rows}`,
    issues: proxyIssues(comparison, predicted.analysis),
    details: { predicted, gold, comparison, budget: { ...verdict, factor: options.budgetFactor, failOnProxies: options.failOnProxies }, statistics: 'pg_statistic', timing },
  });
}

function unscored(reason: string): RungResult<null> {
  return createRungResult({ rung: 'efficiency', status: 'unscored', reason, details: null, score: 0 });
}

function resolveOptions(options: EfficiencyOptions): ResolvedOptions {
  // defaults
  const budgetFactor = options.budgetFactor ?? DEFAULT_BUDGET_FACTOR;
  const failOnProxies = options.failOnProxies ?? [];
  // validate
  if (typeof budgetFactor !== 'number' || !Number.isFinite(budgetFactor) || budgetFactor < 1) {
    throw invalidValue('efficiency.budgetFactor', 'a finite number ≥ 1 (allowed predicted/gold cost ratio)', budgetFactor);
  }
  if (!Array.isArray(failOnProxies) || failOnProxies.some((kind) => !PROXY_KINDS.includes(kind))) {
    throw invalidValue('efficiency.failOnProxies', `a list of ${PROXY_KINDS.join(', ')}`, failOnProxies);
  }
  // interpret timing
  const raw = options.timing ?? false;
  if (raw === false) return { budgetFactor, failOnProxies, timing: null };
  const timing = raw === true ? {} : raw;
  const runs = timing.runs ?? DEFAULT_TIMING_RUNS;
  if (!Number.isInteger(runs) || runs < 1) throw invalidValue('efficiency.timing.runs', 'a positive integer', runs);
  if (timing.source !== undefined && typeof timing.source !== 'function') throw invalidValue('efficiency.timing.source', 'a function (role, run) => Promise<ms>', timing.source);
  return {
    budgetFactor,
    failOnProxies,
    timing: { runs, ...(timing.source ? { source: timing.source } : {}), ...(timing.timeoutMs !== undefined ? { timeoutMs: timing.timeoutMs } : {}) },
  };
}

async function timePair(input: EfficiencyInput, timing: NonNullable<ResolvedOptions['timing']>): Promise<EfficiencyTiming> {
  const source = timing.source ?? createEngineTimingSource(input.engine, input.snapshot, { predicted: input.predictedSql, gold: input.goldSql }, timing.timeoutMs);
  try {
    const measured = await measureTimeRatio(source, timing.runs);
    return {
      ok: true,
      runs: measured.runs,
      ratio: measured.ratio,
      removedOutliers: measured.removed.length,
      vesTerm: Math.sqrt(measured.ratio) * 100,
      rvesReward: rvesReward(true, measured.ratio),
    };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function describe(comparison: PlanComparison, verdict: BudgetVerdict, factor: number, defaultedTables: readonly string[], unit = 'row visits'): string {
  const ratio = Number(comparison.costRatio.toFixed(2));
  const sign = verdict.withinBudget ? '≤' : '>';
  const parts = [`estimated cost ${comparison.predictedCost} vs gold ${comparison.goldCost} ${unit} (×${ratio} ${sign} budget ×${factor})`];
  const scans = comparison.scansWhereGoldUsesIndex;
  if (scans.length > 0) parts.push(`${scans.length} scan${scans.length === 1 ? '' : 's'} where gold uses an index (${scans.map((scan) => scan.table).join(', ')})`);
  if (verdict.proxyViolations.length > 0) parts.push(`more ${verdict.proxyViolations.join(', ')} than gold`);
  if (defaultedTables.length > 0) parts.push(`no sqlite_stat1 rows for ${defaultedTables.join(', ')} (SQLite's default of ${DEFAULT_TABLE_ROWS} rows assumed)`);
  return parts.join('; ');
}

function proxyIssues(comparison: PlanComparison, predicted: PlanAnalysis): RungIssue[] {
  const issues: RungIssue[] = [];
  for (const scan of comparison.scansWhereGoldUsesIndex) {
    issues.push({
      kind: 'scan_where_gold_uses_index',
      message: `predicted reads ${scan.table} in full (plan step ${scan.predictedStepId}); gold searches it with ${scan.goldIndex} (${scan.goldConstraint})`,
    });
  }
  const extra = (kind: string, what: string, predictedCount: number, goldCount: number): void => {
    if (predictedCount > goldCount) issues.push({ kind, message: `${what}: predicted ${predictedCount}, gold ${goldCount}` });
  };
  const sorts = predicted.cost.unit === undefined ? 'temporary B-trees' : 'sorts';
  extra('temp_b_tree', `${sorts} (${predicted.proxies.tempBTrees.map((t) => t.purpose).join(', ')})`, comparison.predicted.tempBTrees, comparison.gold.tempBTrees);
  extra('automatic_index', 'automatic indexes', comparison.predicted.automaticIndexes, comparison.gold.automaticIndexes);
  extra('correlated_subquery', 'correlated subqueries', comparison.predicted.correlatedSubqueries, comparison.gold.correlatedSubqueries);
  extra('full_scan', 'full scans', comparison.predicted.fullScans, comparison.gold.fullScans);
  return issues;
}

const OPTION_NAMES = ['budgetFactor', 'failOnProxies', 'timing', 'doubleQuotes'] as const;

/**
 * Reads {@link EfficiencyOptions} from an unchecked value (a promptfoo config block). `undefined`
 * and `true` mean defaults.
 * @param naming.name - how messages name the block (default `efficiency`; e.g. `config.efficiency`).
 * @throws LadderError('invalid_option') naming the option, the expected and the received value.
 */
export function readEfficiencyOptions(value: unknown, naming: { readonly name?: string } = {}): EfficiencyOptions {
  const name = naming.name ?? 'efficiency';
  if (value === undefined || value === null || value === true) return {};
  const read = optionReader(value, { prefix: `${name}.` });
  read.unknownKeys(OPTION_NAMES);
  const budgetFactor = read.number('budgetFactor', { min: 1, expected: 'a finite number ≥ 1 (allowed predicted/gold cost ratio)' });
  const failOnProxies = read.raw('failOnProxies');
  if (failOnProxies !== undefined && (!Array.isArray(failOnProxies) || failOnProxies.some((kind) => !PROXY_KINDS.includes(kind as ProxyKind)))) {
    throw read.invalid('failOnProxies', `a list of ${PROXY_KINDS.join(', ')}`, failOnProxies);
  }
  const doubleQuotes = read.oneOf<DoubleQuoteMode>('doubleQuotes', ['legacy', 'strict']);
  const timingRaw = read.raw('timing');
  let timing: boolean | EfficiencyTimingOptions | undefined;
  if (typeof timingRaw === 'boolean' || timingRaw === undefined) timing = timingRaw;
  else if (!isPlainRecord(timingRaw)) throw read.invalid('timing', 'true, false or { runs, timeoutMs }', timingRaw);
  else {
    const timingRead = optionReader(timingRaw, { prefix: `${name}.timing.` });
    timingRead.unknownKeys(['runs', 'timeoutMs', 'source']);
    const runs = timingRead.positiveInteger('runs');
    const timeoutMs = timingRead.positiveInteger('timeoutMs', 'ms');
    const source = timingRead.raw('source');
    if (source !== undefined && typeof source !== 'function') throw timingRead.invalid('source', 'a function (role, run) => Promise<ms>', source);
    timing = { ...(runs !== undefined ? { runs } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(source !== undefined ? { source: source as TimingSource } : {}) };
  }
  return {
    ...(budgetFactor !== undefined ? { budgetFactor } : {}),
    ...(failOnProxies !== undefined ? { failOnProxies: failOnProxies as ProxyKind[] } : {}),
    ...(timing !== undefined ? { timing } : {}),
    ...(doubleQuotes !== undefined ? { doubleQuotes } : {}),
  };
}
