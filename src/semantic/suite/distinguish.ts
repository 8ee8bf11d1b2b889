/**
 * Does a database tell a gold apart from a neighbour? Both run through the engine (child process,
 * deadline, row cap) and their results are compared under the item's comparison policy, exactly
 * as a prediction's would be.
 *
 * - A neighbour that fails at run time (`query_error`, `result_too_large`) while the gold runs is
 *   distinguished: a prediction doing the same would fail there. A neighbour that times out, or
 *   whose comparison is `undecided`, is not (no reliable evidence).
 * - A database is *usable* for a gold only when the gold runs on it and its result is
 *   deterministic under the policy: not when a LIMIT cuts a tie group whose rows differ, nor, for a
 *   policy that checks order row by row (not tie-aware), when rows tied on the sort keys differ
 *   (an equivalent prediction may order ties differently). Unusable databases are never kept.
 */
import { compareResults } from '../../compare/compare-results.js';
import type { GoldOrdering, SqliteParse } from '../../compare/gold-ordering.js';
import { cellKey } from '../../compare/cell-key.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput } from '../../compare/policy.js';
import { resolveGoldOrdering } from '../../compare/tie-groups.js';
import type { Engine, ExecutionOutcome, QueryResult } from '../../engine/engine.js';

/** A gold's run on one database, ready for comparisons. */
export type GoldOnDatabase =
  | { readonly usable: true; readonly result: QueryResult; readonly ordering: GoldOrdering }
  | { readonly usable: false; readonly reason: 'gold_error' | 'nondeterministic' | 'ties'; readonly message: string };

/** Inputs shared by the functions of this module. */
export interface DistinguishContext {
  readonly engine: Engine;
  readonly policy: ComparisonPolicy;
  readonly timeoutMs?: number;
  /** `gold_result_ordered` override of the item, when it has one. */
  readonly goldOrdered?: boolean;
  /** The parser the gold's ORDER BY is read with (default `parseSql`); pass a memo when one gold runs on many databases. */
  readonly parse?: SqliteParse;
}

/**
 * Runs the gold on a database and decides whether the database is usable for it.
 * @param strictTies - when true (generated databases), differing ties make the database unusable
 *   under a policy that is not tie-aware; snapshots the user chose are kept as they are (false).
 */
export async function runGold(ctx: DistinguishContext, db: string, goldSql: string, strictTies: boolean): Promise<GoldOnDatabase> {
  const outcome = await execute(ctx, db, goldSql);
  if (!outcome.ok) return { usable: false, reason: 'gold_error', message: `${outcome.error.code}: ${outcome.error.message}` };
  const result = outcome.result;
  if (ctx.goldOrdered !== undefined) return { usable: true, result, ordering: { ordered: ctx.goldOrdered, source: 'policy' } };
  const ordering = await resolveGoldOrdering({ engine: ctx.engine, db, goldSql: result.executedSql, goldResult: result, policy: ctx.policy, ...timeout(ctx), ...(ctx.parse ? { parse: ctx.parse } : {}) });
  if (!strictTies || !ordering.ordered) return { usable: true, result, ordering };
  if (ordering.nondeterministic) return { usable: false, reason: 'nondeterministic', message: 'a LIMIT cuts a tie group whose rows differ' };
  // The tie groups under the gold's parsed ORDER BY, whatever the policy: a LIMIT that cuts a tie
  // group makes the gold's answer arbitrary (even a one-row answer), and under a policy that
  // checks order row by row, rows tied on the sort keys may come in any order.
  const tieAware = ctx.policy.tieAware && ctx.policy.rowOrder === 'gold-order-by' ? ordering : await resolveGoldOrdering({
    engine: ctx.engine,
    db,
    goldSql: result.executedSql,
    goldResult: result,
    policy: resolvePolicy({ ...policyInput(ctx.policy), rowOrder: 'gold-order-by', tieAware: true }),
    ...timeout(ctx),
    ...(ctx.parse ? { parse: ctx.parse } : {}),
  });
  if (tieAware.nondeterministic) return { usable: false, reason: 'nondeterministic', message: 'a LIMIT cuts a tie group whose rows differ' };
  if (!ctx.policy.tieAware) {
    const differing = (tieAware.segments ?? []).some((segment) => new Set(segment.pool.map((row) => row.map(cellKey).join('\u0001'))).size > 1);
    if (differing) return { usable: false, reason: 'ties', message: 'rows tied on the sort keys differ, and the policy checks order row by row' };
  }
  return { usable: true, result, ordering };
}

/** What running a neighbour on a database showed. */
export type NeighbourOutcome =
  | { readonly distinguished: true; readonly how: 'result' | 'error'; readonly detail: string }
  | { readonly distinguished: false; readonly why: 'same_result' | 'timeout' | 'undecided' };

/**
 * Runs a neighbour (or a prediction) and compares it with the gold's result.
 * @returns distinguished (with the verdict's reason or the error), or why not.
 */
export async function runAgainstGold(ctx: DistinguishContext, db: string, gold: Extract<GoldOnDatabase, { usable: true }>, sql: string): Promise<NeighbourOutcome> {
  const outcome = await execute(ctx, db, sql);
  if (!outcome.ok) {
    const code = outcome.error.code;
    if (code === 'timeout' || code === 'memory_limit' || code === 'engine_failure') return { distinguished: false, why: 'timeout' };
    return { distinguished: true, how: 'error', detail: `${code}: ${outcome.error.message}` };
  }
  const verdict = compareResults(gold.result, outcome.result, ctx.policy, { ordering: gold.ordering, sides: { gold: 'gold', predicted: 'neighbour' } });
  if (verdict.match === false) return { distinguished: true, how: 'result', detail: verdict.reason };
  return { distinguished: false, why: verdict.match === 'undecided' ? 'undecided' : 'same_result' };
}

function execute(ctx: DistinguishContext, db: string, sql: string): Promise<ExecutionOutcome> {
  return ctx.engine.execute({ db, sql, ...timeout(ctx) });
}

function timeout(ctx: DistinguishContext): { timeoutMs?: number } {
  return ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs };
}

/** The policy's own fields as resolvePolicy input (to derive a variant). */
function policyInput(policy: ComparisonPolicy): PolicyInput {
  const { preset, rowOrder, tieAware, duplicates, columnOrder, matchColumnNames, allowExtraColumns, floatTolerance, coerceNumericStrings, emptyMatchesEmpty, columnSearchBudget, maxSampleRows, rewrites } = policy;
  return { preset, rowOrder, tieAware, duplicates, columnOrder, matchColumnNames, allowExtraColumns, floatTolerance, coerceNumericStrings, emptyMatchesEmpty, columnSearchBudget, maxSampleRows, rewrites };
}
