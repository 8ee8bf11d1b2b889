/**
 * One counterexample search's request: what a caller may ask (`SearchInput`), validated and
 * interpreted into what the search runs under (policy, budget, deadline, rewritten SQL), and the
 * searcher's fixed context it runs in.
 */
import { applySqlRewrites } from '../../compare/sql-rewrites.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../../compare/policy.js';
import type { Engine } from '../../engine/engine.js';
import { invalidValue, rejectUnknownKeys } from '../../options.js';
import { parseSql, type ParseResult } from '../../sql/parse.js';
import { DEFAULT_EMPTY_VS_NULL_ROW, EMPTY_VS_NULL_ROW_VALUES, type EmptyVsNullRow } from '../model/empty-vs-null-row.js';
import type { BoundInvariant } from '../model/invariants.js';
import type { ObservedData } from '../model/observed-values.js';
import type { DatabaseSchema } from '../model/schema-reader.js';
import { resolveSearchBudget, SEARCH_TIMEOUT_MS, type ResolvedSearchBudget, type SearchBudget } from './search-budget.js';
import type { NullPolicy } from '../generation/value-pools.js';
import type { JudgeContext } from '../suite/witness-check.js';

/** One pair to search. */
export interface SearchInput {
  /** The item's golds (as written; the policy's SQL rewrites are applied). Any one may match. */
  readonly golds: readonly string[];
  /** The prediction (as written). */
  readonly predictedSql: string;
  /** The item's comparison policy (default `default`). */
  readonly policy?: ComparisonPolicy | PresetName | PolicyInput;
  readonly budget?: SearchBudget;
  /** Any string or number (default `0`); the same inputs and seed find the same witness. */
  readonly seed?: string | number;
  /** How an empty result against one row of NULLs is judged (default `same`: it refutes nothing); see {@link EmptyVsNullRow}. */
  readonly emptyVsNullRow?: EmptyVsNullRow;
  /** Deadline per statement, ms (default {@link SEARCH_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** The item's `gold_result_ordered` override. */
  readonly goldOrdered?: boolean;
  /** A folder to keep the final witness database in (`witness-<checksum>.sqlite`); default: not kept. */
  readonly keepWitnessIn?: string;
}

/** The keys a search request may hold. */
export const SEARCH_KEYS = ['golds', 'predictedSql', 'policy', 'budget', 'seed', 'emptyVsNullRow', 'timeoutMs', 'goldOrdered', 'keepWitnessIn'];

/** What a searcher holds for every search on its schema. */
export interface SearchContext {
  readonly engine: Engine;
  readonly schema: DatabaseSchema;
  readonly invariants: readonly BoundInvariant[];
  readonly observed: ObservedData;
  readonly nulls: NullPolicy;
  /** The schema database (read-only): the queries must prepare on it. */
  readonly schemaDb: string;
  /** This search's scratch folder. */
  readonly dir: string;
}

/** One search's interpreted request. */
export interface SearchRequest {
  readonly judge: JudgeContext;
  readonly budget: ResolvedSearchBudget;
  readonly seed: string;
  readonly emptyVsNullRow: EmptyVsNullRow;
  /** `performance.now()` value after which no new draw or shrinking trial starts. */
  readonly deadline: number;
  /** Every gold as it runs (policy rewrites applied). */
  readonly allGolds: readonly string[];
  readonly predicted: string;
  readonly keepWitnessIn: string | undefined;
}

/** Validates a search request, applies defaults and interprets it (better-sqlite3's order). */
export function interpretRequest(request: SearchInput, ctx: SearchContext, started: number): SearchRequest {
  // Validate arguments.
  rejectUnknownKeys(request as unknown as Record<string, unknown>, SEARCH_KEYS);
  if (!Array.isArray(request.golds) || request.golds.length === 0 || request.golds.some((g) => typeof g !== 'string' || g.trim() === '')) {
    throw invalidValue('golds', 'a non-empty array of SQL strings', request.golds);
  }
  if (typeof request.predictedSql !== 'string' || request.predictedSql.trim() === '') throw invalidValue('predictedSql', 'a non-empty SQL string', request.predictedSql);
  if (request.emptyVsNullRow !== undefined && !EMPTY_VS_NULL_ROW_VALUES.includes(request.emptyVsNullRow)) {
    throw invalidValue('emptyVsNullRow', `one of ${EMPTY_VS_NULL_ROW_VALUES.map((v) => `'${v}'`).join(', ')}`, request.emptyVsNullRow);
  }
  if (request.timeoutMs !== undefined && (!Number.isInteger(request.timeoutMs) || request.timeoutMs < 1)) throw invalidValue('timeoutMs', 'an integer ≥ 1 (ms)', request.timeoutMs);
  // Apply defaults and interpret.
  const policy = resolvePolicy(request.policy as PolicyInput | undefined);
  const budget = resolveSearchBudget(request.budget);
  const emptyVsNullRow = request.emptyVsNullRow ?? DEFAULT_EMPTY_VS_NULL_ROW;
  // Each gold is parsed once for its ORDER BY and tie groups, however many databases it runs on.
  const parses = new Map<string, ParseResult>();
  const parse = (sql: string): ParseResult => {
    let tree = parses.get(sql);
    if (tree === undefined) parses.set(sql, (tree = parseSql(sql, 'sqlite')));
    return tree;
  };
  return {
    judge: {
      engine: ctx.engine,
      policy,
      parse,
      timeoutMs: request.timeoutMs ?? SEARCH_TIMEOUT_MS,
      emptyVsNullRow,
      ...(request.goldOrdered === undefined ? {} : { goldOrdered: request.goldOrdered }),
    },
    budget,
    seed: String(request.seed ?? 0),
    emptyVsNullRow,
    deadline: started + budget.maxSeconds * 1000,
    allGolds: request.golds.map((g) => applySqlRewrites(g, 'gold', policy.rewrites)),
    predicted: applySqlRewrites(request.predictedSql, 'predicted', policy.rewrites),
    keepWitnessIn: request.keepWitnessIn,
  };
}
