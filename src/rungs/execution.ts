/**
 * L4 execution accuracy, on every snapshot: does the predicted query return the gold result on
 * every snapshot, for at least one gold?
 *
 * Rules:
 * - An item passes when ONE gold matches on EVERY snapshot; the details name that gold, the
 *   per-snapshot verdicts, and for a failure the first failing snapshot.
 * - A gold that errors or times out on a snapshot is left out and reported (`goldErrors`); when no
 *   gold runs on every snapshot the item is `unscored` with the `gold_error` flag — never a
 *   prediction failure.
 * - A prediction that fails to run on a snapshot fails there (`prediction_error`).
 * - A comparison whose column-map search ran out of budget, with no other gold matching, leaves the
 *   item `unscored` with the `undecided` flag.
 * - Gold results are cached per (snapshot checksum, gold SQL as run, double-quote mode, row cap) in
 *   a {@link GoldResultCache}; a timeout is never cached. The rung sends the double-quote mode and
 *   the row cap with every statement, so what ran is what the key says.
 * - The policy's SQL rewrites (Spider quirks) are applied before anything runs; the verdicts use
 *   the rewritten gold for ordering.
 * - `executedSql` is the SQL that actually ran: after the policy's rewrites and, in legacy
 *   double-quote mode, after the engine rewrote `"x"` into `'x'`; the flags `gold_rewritten` /
 *   `prediction_rewritten` say when that fallback changed the reported gold or the prediction.
 * - `empty_gold` is set whenever the reported gold returned no rows on a snapshot, whether the
 *   verdict passed or failed: an empty gold is weak evidence either way.
 * - The gold's own flags come from the gold checks (src/compare/gold-checks.ts), the same module
 *   `text2sql-ladder audit` judges golds with: from the text, `clock_dependent_gold` (without an
 *   `asOfDate`), `random_dependent_gold`, `timezone_dependent_gold` and `limit_without_order_by`,
 *   with the constructs in `goldFindings`; from the reported gold's results, `empty_gold`,
 *   `all_null_gold_row`, `nondeterministic_gold` (a LIMIT cutting a tie) and `null_sort_key`.
 */
import type { DoubleQuoteMode, Engine, EngineName, ExecutionError, ExecutionOutcome, QueryResult } from '../engine/engine.js';
import { runGoldChecks, type GoldFinding } from '../compare/gold-checks.js';
import { checkGoldResult, goldVerdictFlags } from '../compare/gold-result-checks.js';
import { LadderError } from '../errors.js';
import { compareResults, type ResultSides, type Verdict } from '../compare/compare-results.js';
import { parseGoldAhead, type GoldOrdering } from '../compare/gold-ordering.js';
import { cachedOrdering, GoldResultCache } from '../compare/gold-result-cache.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { applySqlRewrites } from '../compare/sql-rewrites.js';
import { resolveGoldOrdering } from '../compare/tie-groups.js';
import type { ParseMemo } from './parse-memo.js';
import { predictedRunsOf, throwMissingDatabase, type PredictedRun } from './predicted-runs.js';
import { createRungResult, type RungResult } from './rung-result.js';

export type { PredictedRun } from './predicted-runs.js';

/** Flags the execution rung adds to the verdict flags. */
export type ExecutionFlag =
  | 'gold_error'
  | 'prediction_error'
  | 'undecided'
  /** The legacy double-quote fallback rewrote the reported gold before it ran. */
  | 'gold_rewritten'
  /** The legacy double-quote fallback rewrote the prediction before it ran. */
  | 'prediction_rewritten'
  /** The reported gold returned no rows on a snapshot (also on a failing verdict). */
  | 'empty_gold'
  /** The reported gold returned one row of NULLs on a snapshot (src/compare/gold-checks.ts). */
  | 'all_null_gold_row'
  /** A sort key of the reported gold is NULL where NULL placement decides the order or the cut (src/compare/gold-checks.ts). */
  | 'null_sort_key'
  /** A text check of the golds found a clock, randomness or time-zone dependence, or LIMIT without ORDER BY (src/compare/gold-checks.ts). */
  | GoldFinding['kind'];

/** The outcome on one snapshot for the reported gold. */
export interface SnapshotVerdict {
  readonly snapshot: string;
  /** Present when both queries ran. */
  readonly verdict?: Verdict;
  /** Present when the prediction failed on this snapshot. */
  readonly predictedError?: ExecutionError;
  /** Column names by position of the gold and of the prediction (present when both ran). */
  readonly columns?: { readonly gold: readonly string[]; readonly predicted: readonly string[] };
}

/** A gold that could not run on a snapshot (left out of the decision). */
export interface GoldError {
  readonly goldIndex: number;
  readonly snapshot: string;
  readonly error: ExecutionError;
}

/** Machine-readable details of the execution rung. */
export interface ExecutionDetails {
  readonly policy: ComparisonPolicy;
  /** The gold that matched; for a failure, the runnable gold that matched on most snapshots; `null` when none ran. */
  readonly goldIndex: number | null;
  /** Per-snapshot verdicts of `goldIndex`, in snapshot order. */
  readonly snapshots: readonly SnapshotVerdict[];
  /** The first snapshot where `goldIndex` did not match; `null` on a pass or when unscored. */
  readonly firstFailingSnapshot: string | null;
  readonly goldErrors: readonly GoldError[];
  /** Union of the reported verdicts' flags and the rung's own flags. */
  readonly flags: readonly string[];
  /**
   * The SQL that actually ran: after the policy's rewrites and the engine's legacy double-quote
   * fallback (the text of the first snapshot where it ran; the text sent when it ran nowhere).
   */
  readonly executedSql: { readonly predicted: string; readonly golds: readonly string[] };
  /** The double-quote mode every statement ran under. */
  readonly doubleQuotes: DoubleQuoteMode;
  /** What the gold checks found in the golds (clock, randomness, time zone). */
  readonly goldFindings: readonly GoldFinding[];
  /**
   * The prediction as it ran (after the rewrites) on every snapshot, in snapshot order: its column
   * names and rows, or its error. Later rungs (L7) and the matchers read the rows here instead of
   * running the query again. Not copied into promptfoo metadata (see src/promptfoo/adapter.ts).
   */
  readonly predictedRuns: readonly PredictedRun[];
}

/** Inputs of {@link checkExecution}. */
export interface ExecutionInput {
  /** The predicted SQL (already extracted from model output). */
  readonly predictedSql: string;
  /** One or more gold SQL statements; any one may match. */
  readonly golds: readonly string[];
  /** One or more snapshots; the gold must match on every one. */
  readonly snapshots: readonly Snapshot[];
  readonly engine: Engine;
  /** Policy, preset name or options for `resolvePolicy` (default: the `default` preset). */
  readonly policy?: ComparisonPolicy | PresetName | PolicyInput;
  /** Shared gold-result cache (one per run is typical). */
  readonly cache?: GoldResultCache;
  /** Deadline per statement in ms (engine default when absent). */
  readonly timeoutMs?: number;
  /**
   * Double-quote mode for every statement; default: the engine's own (`options.doubleQuotes` of a
   * SQLite engine), else `legacy`. Part of the gold cache key.
   */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** Row cap per statement (engine default when absent). Part of the gold cache key. */
  readonly maxRows?: number;
  /** The item's `as_of_date` (`YYYY-MM-DD`): when present, golds that read the clock are not flagged. */
  readonly asOfDate?: string;
  /** Dataset override (`gold_result_ordered`): forces row order on or off, without tie groups when on. */
  readonly goldOrdered?: boolean;
  /** The item's shared parses: the gold is read once for its ORDER BY and tie groups (when their dialect is the engine's). */
  readonly parses?: ParseMemo;
  /** Names of the two results in the reasons (default gold / predicted; the audit compares two golds). */
  readonly sides?: ResultSides;
}

/**
 * Runs the prediction and the golds on every snapshot and decides L4.
 *
 * @returns `pass` / `fail`, or `unscored` with flag `gold_error` (no gold runs everywhere) or
 *   `undecided` (column-map budget). Reasons look like `snapshot edge: 2 missing rows, 1 extra row`.
 * @throws LadderError `invalid_argument` when `golds` or `snapshots` is empty or holds
 *   non-strings / bad snapshots; `invalid_option` for a bad policy; `db_not_found` when a
 *   snapshot's database file does not exist (misuse, not a gold or prediction error).
 */
export async function checkExecution(input: ExecutionInput): Promise<RungResult<ExecutionDetails>> {
  // Defaults and validation.
  const policy = isResolved(input.policy) ? input.policy : resolvePolicy(input.policy);
  validateInput(input);
  const cache = input.cache ?? new GoldResultCache();
  const doubleQuotes = input.doubleQuotes ?? engineDefaults(input.engine).doubleQuotes ?? 'legacy';
  const maxRows = input.maxRows ?? engineDefaults(input.engine).maxRows;
  const predicted = applySqlRewrites(input.predictedSql, 'predicted', policy.rewrites);
  const golds = input.golds.map((gold) => applySqlRewrites(gold, 'gold', policy.rewrites));
  // The row order of a gold with ORDER BY comes from its parse in the engine's dialect (the
  // fixture's): start a SQLite parse now, while the SQL runs.
  const dialect = engineDialect(input.engine);
  if (policy.rowOrder === 'gold-order-by' && input.goldOrdered === undefined && dialect === 'sqlite' && input.parses?.dialect !== 'sqlite') golds.forEach(parseGoldAhead);
  const run = (db: string, sql: string): Promise<ExecutionOutcome> =>
    input.engine.execute({
      db,
      sql,
      doubleQuotes,
      ...(maxRows === undefined ? {} : { maxRows }),
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    });

  // Execute: golds (cached) and the prediction on every snapshot, concurrently.
  const goldRuns = golds.map((sql) => input.snapshots.map((snapshot) => cache.getOrRun({ snapshot, sql, doubleQuotes, maxRows }, () => run(snapshot.path, sql))));
  const [goldOutcomes, predOutcomes] = await Promise.all([
    Promise.all(goldRuns.map((runs) => Promise.all(runs.map((entry) => entry.outcome)))),
    Promise.all(input.snapshots.map((snapshot) => run(snapshot.path, predicted))),
  ]);
  throwMissingDatabase(input.snapshots, [...goldOutcomes, predOutcomes]);
  const predictedRuns = predictedRunsOf(input.snapshots, predOutcomes);
  const goldDialect = engineDialect(input.engine) === 'postgres' ? 'postgres' : 'sqlite';
  const goldFindings = runGoldChecks({
    golds: input.golds,
    dialect: goldDialect,
    ...(input.asOfDate === undefined ? {} : { asOfDate: input.asOfDate }),
    ...(input.parses?.dialect === goldDialect ? { parse: (sql: string) => input.parses!.parse(sql) } : {}),
  });
  const ran = (outcomes: readonly ExecutionOutcome[]): QueryResult[] => outcomes.flatMap((outcome) => (outcome.ok ? [outcome.result] : []));
  const executedSql = {
    predicted: ran(predOutcomes)[0]?.executedSql ?? predicted,
    golds: golds.map((sql, g) => ran(goldOutcomes[g]!)[0]?.executedSql ?? sql),
  };
  const predictionRewritten = ran(predOutcomes).some((result) => result.doubleQuoteFallback);
  // The gold's own flags come from the gold checks (the same judgement as `audit`): its results on
  // every snapshot, with the orderings the comparison resolved, and its text.
  const goldFlags = (goldIndex: number | null, orderings: readonly (GoldOrdering | undefined)[] = []): string[] => {
    const flags: string[] = [];
    if (goldIndex !== null && ran(goldOutcomes[goldIndex]!).some((result) => result.doubleQuoteFallback)) flags.push('gold_rewritten');
    if (predictionRewritten) flags.push('prediction_rewritten');
    if (goldIndex !== null) {
      const results = goldOutcomes[goldIndex]!.flatMap((outcome, s) => {
        if (!outcome.ok) return [];
        const ordering = orderings[s];
        return [{ result: outcome.result, findings: checkGoldResult({ goldIndex, result: outcome.result, ...(ordering === undefined ? {} : { ordering }) }) }];
      });
      flags.push(...goldVerdictFlags(results));
    }
    for (const found of goldFindings) if (goldIndex === null || found.goldIndex === goldIndex) flags.push(found.kind);
    return flags;
  };

  const goldErrors: GoldError[] = [];
  goldOutcomes.forEach((outcomes, goldIndex) =>
    outcomes.forEach((outcome, s) => {
      if (!outcome.ok) goldErrors.push({ goldIndex, snapshot: input.snapshots[s]!.name, error: outcome.error });
    }),
  );
  const runnable = goldOutcomes.flatMap((outcomes, g) => (outcomes.every((o) => o.ok) ? [g] : []));
  if (runnable.length === 0) {
    const first = goldErrors[0]!;
    return createRungResult({
      rung: 'execution',
      status: 'unscored',
      score: 0,
      reason: `gold_error: no gold runs on every snapshot (gold ${first.goldIndex} on ${first.snapshot}: ${first.error.message})`,
      details: { policy, goldIndex: null, snapshots: [], firstFailingSnapshot: null, goldErrors, flags: [...new Set(['gold_error', ...goldFlags(null)])], executedSql, doubleQuotes, goldFindings, predictedRuns },
    });
  }

  // Compare each runnable gold on every snapshot.
  interface GoldAssessment {
    readonly goldIndex: number;
    readonly snapshots: SnapshotVerdict[];
    /** The gold's ordering on each snapshot where the prediction ran (by snapshot index). */
    readonly orderings: (GoldOrdering | undefined)[];
    readonly matched: number;
    readonly outcome: true | false | 'undecided';
  }
  const assessments: GoldAssessment[] = [];
  for (const g of runnable) {
    const snapshots: SnapshotVerdict[] = [];
    const orderings: (GoldOrdering | undefined)[] = [];
    for (let s = 0; s < input.snapshots.length; s += 1) {
      const snapshot = input.snapshots[s]!;
      const predOutcome = predOutcomes[s]!;
      if (!predOutcome.ok) {
        snapshots.push({ snapshot: snapshot.name, predictedError: predOutcome.error });
        continue;
      }
      const goldResult = (goldOutcomes[g]![s] as { ok: true; result: QueryResult }).result;
      const ordering = await orderingFor(goldRuns[g]![s]!.orderings, input, policy, snapshot, goldResult);
      orderings[s] = ordering;
      snapshots.push({
        snapshot: snapshot.name,
        verdict: compareResults(goldResult, predOutcome.result, policy, { ordering, ...(input.sides !== undefined ? { sides: input.sides } : {}) }),
        columns: { gold: goldResult.columns, predicted: predOutcome.result.columns },
      });
    }
    const matched = snapshots.filter((v) => v.verdict?.match === true).length;
    const anyFalse = snapshots.some((v) => v.predictedError !== undefined || v.verdict?.match === false);
    const outcome = matched === snapshots.length ? true : anyFalse ? false : 'undecided';
    assessments.push({ goldIndex: g, snapshots, orderings, matched, outcome });
    if (outcome === true) break;
  }

  const passing = assessments.find((a) => a.outcome === true);
  const undecided = passing === undefined ? assessments.find((a) => a.outcome === 'undecided') : undefined;
  const chosen = passing ?? undecided ?? [...assessments].sort((a, b) => b.matched - a.matched || a.goldIndex - b.goldIndex)[0]!;
  const flags = new Set<string>();
  for (const v of chosen.snapshots) for (const flag of v.verdict?.flags ?? []) flags.add(flag);
  if (goldErrors.length > 0) flags.add('gold_error');
  if (chosen.snapshots.some((v) => v.predictedError !== undefined)) flags.add('prediction_error');
  for (const flag of goldFlags(chosen.goldIndex, chosen.orderings)) flags.add(flag);
  const failing = chosen.snapshots.find((v) => v.verdict?.match !== true);
  const goldNote = input.golds.length > 1 ? ` gold ${chosen.goldIndex}` : '';
  const snapshotsNote = input.snapshots.length > 1 ? ` on ${input.snapshots.length} snapshots` : '';

  let status: 'pass' | 'fail' | 'unscored';
  let reason: string;
  if (passing !== undefined) {
    status = 'pass';
    const first = chosen.snapshots[0]!.verdict!;
    reason = `matches${goldNote}${snapshotsNote}${first.flags.includes('empty_gold') ? ' (both results empty)' : ''}`;
  } else if (undecided !== undefined) {
    status = 'unscored';
    flags.add('undecided');
    reason = `undecided on snapshot ${failing!.snapshot}: ${failing!.verdict!.reason}`;
  } else {
    status = 'fail';
    reason = failing!.predictedError !== undefined
      ? `snapshot ${failing!.snapshot}: prediction failed (${failing!.predictedError.code}): ${failing!.predictedError.message}`
      : `snapshot ${failing!.snapshot}:${goldNote ? `${goldNote}:` : ''} ${failing!.verdict!.reason}`;
  }
  return createRungResult({
    rung: 'execution',
    status,
    reason,
    details: {
      policy,
      goldIndex: chosen.goldIndex,
      snapshots: chosen.snapshots,
      firstFailingSnapshot: status === 'fail' ? failing!.snapshot : null,
      goldErrors,
      flags: [...flags],
      executedSql,
      doubleQuotes,
      goldFindings,
      predictedRuns,
    },
  });
}

/** The dialect an engine runs (an engine object without one, e.g. a test double, runs SQLite). */
function engineDialect(engine: Engine): EngineName {
  return (engine.dialect as EngineName | undefined) ?? 'sqlite';
}

/** The defaults a SQLite engine exposes (`createSqliteEngine().options`); other engines: none. */
export function engineDefaults(engine: Engine): { readonly doubleQuotes?: DoubleQuoteMode; readonly maxRows?: number } {
  const options = (engine as { readonly options?: { readonly doubleQuotes?: unknown; readonly maxRows?: unknown } }).options;
  if (typeof options !== 'object' || options === null) return {};
  return {
    ...(options.doubleQuotes === 'legacy' || options.doubleQuotes === 'strict' ? { doubleQuotes: options.doubleQuotes } : {}),
    ...(typeof options.maxRows === 'number' ? { maxRows: options.maxRows } : {}),
  };
}

function orderingFor(
  cache: Map<string, Promise<GoldOrdering>>,
  input: ExecutionInput,
  policy: ComparisonPolicy,
  snapshot: Snapshot,
  goldResult: QueryResult,
): Promise<GoldOrdering> {
  if (input.goldOrdered !== undefined) return Promise.resolve({ ordered: input.goldOrdered, source: 'policy' });
  return cachedOrdering(cache, `${policy.rowOrder}|${policy.tieAware}`, () =>
    resolveGoldOrdering({
      engine: input.engine,
      db: snapshot.path,
      goldSql: goldResult.executedSql,
      goldResult,
      policy,
      dialect: engineDialect(input.engine),
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
      ...(input.parses?.dialect === engineDialect(input.engine) ? { parse: (sql: string) => input.parses!.parse(sql) } : {}),
    }),
  );
}

/** A policy object that has every field (as `resolvePolicy` returns) is used as it is. */
function isResolved(policy: ExecutionInput['policy']): policy is ComparisonPolicy {
  return typeof policy === 'object' && policy !== null && Object.isFrozen(policy) && 'rewrites' in policy && 'floatTolerance' in policy;
}

function validateInput(input: ExecutionInput): void {
  const invalid = (message: string): LadderError => new LadderError('invalid_argument', message);
  if (typeof input.predictedSql !== 'string') throw invalid(`predictedSql must be a string; received ${typeof input.predictedSql}`);
  if (!Array.isArray(input.golds) || input.golds.length === 0 || input.golds.some((g) => typeof g !== 'string')) {
    throw invalid('golds must be a non-empty array of SQL strings');
  }
  if (!Array.isArray(input.snapshots) || input.snapshots.length === 0) {
    throw invalid('snapshots must be a non-empty array of { name, path, checksum? }');
  }
  for (const snapshot of input.snapshots) {
    if (typeof snapshot !== 'object' || snapshot === null || typeof snapshot.name !== 'string' || typeof snapshot.path !== 'string') {
      throw invalid('each snapshot must be { name: string, path: string, checksum?: string }');
    }
  }
  if (input.engine === null || typeof input.engine !== 'object' || typeof input.engine.execute !== 'function') {
    throw invalid('engine must implement Engine (see createSqliteEngine)');
  }
  const foreign = input.snapshots.find((snapshot) => (snapshot.engine ?? 'sqlite') !== engineDialect(input.engine));
  if (foreign !== undefined) {
    throw invalid(
      `snapshot ${foreign.name} (${foreign.path}) is a ${foreign.engine === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}, and the engine runs ${engineDialect(input.engine) === 'postgres' ? 'PostgreSQL' : 'SQLite'}: run a fixture on the engine of its dialect (runtime.engineFor(fixture.dialect))`,
    );
  }
  if (input.doubleQuotes !== undefined && input.doubleQuotes !== 'legacy' && input.doubleQuotes !== 'strict') {
    throw invalid(`doubleQuotes must be 'legacy' or 'strict'; received ${JSON.stringify(input.doubleQuotes)}`);
  }
  if (input.maxRows !== undefined && !(Number.isInteger(input.maxRows) && input.maxRows >= 1)) {
    throw invalid(`maxRows must be an integer ≥ 1; received ${String(input.maxRows)}`);
  }
  if (input.asOfDate !== undefined && (typeof input.asOfDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(input.asOfDate))) {
    throw invalid(`asOfDate must be a date "YYYY-MM-DD"; received ${JSON.stringify(input.asOfDate)}`);
  }
}
