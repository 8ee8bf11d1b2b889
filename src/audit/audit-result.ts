/**
 * The gold audit's checks of one gold result on one snapshot (gold-audit.ts runs them for every
 * gold, snapshot and item): the ordering under the tie rule, the result checks of
 * compare/gold-result-checks.ts, ties at the cut of nested ORDER BY … LIMIT subqueries, and the
 * rows an outermost LIMIT without ORDER BY drops.
 */
import { cachedOrdering } from '../compare/gold-result-cache.js';
import type { GoldOrdering } from '../compare/gold-ordering.js';
import { resolvePolicy } from '../compare/policy.js';
import { resolveGoldOrdering } from '../compare/tie-groups.js';
import { findOrderedLimitSubqueries } from '../compare/gold-checks.js';
import { checkGoldResult, checkLimitCut, planLimitCut, type GoldResultFinding } from '../compare/gold-result-checks.js';
import type { DoubleQuoteMode, Engine, QueryResult } from '../engine/engine.js';
import { engineDefaults } from '../rungs/execution.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { positionAt, type ParseResult } from '../sql/parse.js';
import type { AuditItem } from './audit-source.js';

/** The ordering rule of the tie checks: parsed outermost ORDER BY, tie-aware (the default policy's). */
const TIE_POLICY = resolvePolicy('default');
const TIE_RULE = `${TIE_POLICY.rowOrder}|${TIE_POLICY.tieAware}`;

/** What {@link checkResult} reads. */
export interface ResultCheckInput {
  readonly item: AuditItem;
  readonly goldIndex: number;
  readonly snapshot: Snapshot;
  readonly result: QueryResult;
  readonly runtime: LadderRuntime;
  readonly parse: (sql: string) => ParseResult;
  /** Nested LIMITs already reported as unable to run alone (`gold\u0000offset`). */
  readonly subqueryFailures: Set<string>;
}

/**
 * The checks of one gold result on one snapshot: its ordering under the tie rule (cached beside
 * the gold's result, shared with L4 under the default policy), the result checks, the cuts of its
 * nested ORDER BY … LIMIT, and the rows its outermost LIMIT without ORDER BY drops.
 * @returns the findings on this snapshot, those about the gold whatever the snapshot (a nested
 *   LIMIT that cannot run alone, reported once), whether order counts for it, and what its LIMIT
 *   without ORDER BY did (`none`: no such LIMIT, or its query without the LIMIT failed).
 */
export async function checkResult(input: ResultCheckInput): Promise<{
  readonly findings: GoldResultFinding[];
  readonly ofTheGold: readonly GoldResultFinding[];
  readonly orderMatters: boolean;
  readonly limitCut: 'none' | 'harmless' | 'drops';
}> {
  const { item, goldIndex, snapshot, result, runtime, parse } = input;
  const engine = await runtime.engineForSnapshot(snapshot);
  const { doubleQuotes, maxRows } = runDefaults(engine);
  const entry = runtime.goldCache.getOrRun({ snapshot, sql: item.golds[goldIndex]!, doubleQuotes, maxRows }, () => engine.execute({ db: snapshot.path, sql: item.golds[goldIndex]!, doubleQuotes, maxRows }));
  const ordering: GoldOrdering = await cachedOrdering(entry.orderings, TIE_RULE, () =>
    resolveGoldOrdering({ engine, db: snapshot.path, goldSql: result.executedSql, goldResult: result, policy: TIE_POLICY, parse }),
  );
  const orderMatters = item.goldOrdered ?? ordering.ordered;
  const findings = checkGoldResult({ goldIndex, result, ordering, orderMatters });
  const subqueries = await checkSubqueryCuts(goldIndex, snapshot, result.executedSql, runtime, input.subqueryFailures, parse);
  findings.push(...subqueries.cuts);
  let limitCut: 'none' | 'harmless' | 'drops' = 'none';
  const plan = planLimitCut(result.executedSql, parse);
  if (plan !== undefined) {
    const full = await engine.execute({ db: snapshot.path, sql: plan.sql, doubleQuotes, maxRows });
    if (full.ok) {
      const cut = checkLimitCut(goldIndex, plan, result, full.result);
      limitCut = cut === undefined ? 'harmless' : 'drops';
      if (cut !== undefined) findings.push(cut);
    }
  }
  return { findings, ofTheGold: subqueries.unchecked, orderMatters, limitCut };
}

/**
 * The double-quote mode and row cap golds run under on `engine`, as L4 runs them (so the gold cache
 * is shared): the engine's defaults, `legacy` double quotes where it has none (PostgreSQL ignores them).
 */
export function runDefaults(engine: Engine): { readonly doubleQuotes: DoubleQuoteMode; readonly maxRows: number | undefined } {
  const defaults = engineDefaults(engine);
  return { doubleQuotes: defaults.doubleQuotes ?? 'legacy', maxRows: defaults.maxRows };
}

/**
 * Ties at the cut of nested SELECTs with ORDER BY and LIMIT, each run on its own; one that cannot
 * run alone (it reads the outer query or a CTE) is reported once per gold as `ties_unchecked`.
 */
async function checkSubqueryCuts(
  goldIndex: number,
  snapshot: Snapshot,
  sql: string,
  runtime: LadderRuntime,
  failures: Set<string>,
  parse: (sql: string) => ParseResult,
): Promise<{ readonly cuts: GoldResultFinding[]; readonly unchecked: GoldResultFinding[] }> {
  const engine = await runtime.engineForSnapshot(snapshot);
  const { doubleQuotes, maxRows } = runDefaults(engine);
  const found: GoldResultFinding[] = [];
  const unchecked: GoldResultFinding[] = [];
  for (const subquery of findOrderedLimitSubqueries(sql, parse)) {
    const at = positionAt(sql, subquery.start);
    const label = `the subquery at ${at.line}:${at.column} (${subquery.sql.length > 60 ? `${subquery.sql.slice(0, 59)}…` : subquery.sql})`;
    const outcome = await engine.execute({ db: snapshot.path, sql: subquery.sql, doubleQuotes, maxRows });
    if (!outcome.ok) {
      const key = `${goldIndex}\u0000${subquery.start}`;
      if (!failures.has(key)) {
        failures.add(key);
        unchecked.push({ kind: 'ties_unchecked', goldIndex, message: `${label} cannot run on its own (${outcome.error.message}): its LIMIT was not checked for ties`, rows: [] });
      }
      continue;
    }
    const ordering = await resolveGoldOrdering({ engine, db: snapshot.path, goldSql: outcome.result.executedSql, goldResult: outcome.result, policy: TIE_POLICY, parse });
    for (const cut of checkGoldResult({ goldIndex, result: outcome.result, ordering, orderMatters: false })) {
      if (cut.kind === 'tie_at_limit' || cut.kind === 'null_sort_key') found.push({ ...cut, message: `in ${label}: ${cut.message}` });
    }
  }
  return { cuts: found, unchecked };
}
