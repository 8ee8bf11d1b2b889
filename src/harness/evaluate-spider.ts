/**
 * Spider-format evaluation: gold file + prediction file + database folder → one verdict per item
 * and execution accuracy by Spider hardness. The engine of `text2sql-ladder spider`, usable from
 * code too.
 *
 * Bad input never stops the run; each item concerned gets a message:
 * - prediction file shorter than the gold → the missing items score 0 (`no prediction line`) and
 *   `missingPredictions` counts them (the CLI exits 3: lost rows); longer → the extra lines are
 *   reported in `warnings` and ignored;
 * - a prediction with no SQL → 0 (`no SQL`);
 * - unknown db_id, a database no gold can run on, a malformed gold line → `exec: null` (not scored);
 * - anything that throws while one item is evaluated (a database that cannot be read, an engine
 *   that cannot run, a bug) → that item is errored: `exec: null`, flag `internal_error` and the
 *   message, counted in `internalErrors` and in no rate (an infrastructure fault is not the model's
 *   failure); the CLI then exits 3, so a model cannot dodge scoring by making its item throw: the
 *   run reads as incomplete. With `diagnostics`, a diagnostics failure only drops that item's
 *   diagnostics row (`diagnostics: null`, flag `diagnostics_error`). The other items and the
 *   output are never lost.
 */
import type { ExecutionDetails } from '../rungs/execution.js';
import { runLadder } from '../rungs/ladder.js';
import type { RungResult } from '../rungs/rung-result.js';
import type { Engine } from '../engine/engine.js';
import { GoldResultCache } from '../compare/gold-result-cache.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { INFRASTRUCTURE_CODES, isInfrastructureError, isLadderError } from '../errors.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import { spiderHardness, spiderSchemaOf, HARDNESS_LEVELS, type Hardness, type SpiderSchema } from '../benchmarks/spider/hardness.js';
import type { SpiderGoldItem, SpiderPrediction } from '../benchmarks/spider/read-spider-files.js';
import type { DiagnosticsRow, DiagnosticsSummary } from '../diagnostics/diagnose.js';
import { errorText, truncate } from '../format.js';
import { countItems, type CountedItem } from '../report/summary-terms.js';

/**
 * Items {@link evaluateSpider} evaluates at once by default. With 16 rather than 8, a run of short
 * Spider statements reaches the engine's child in fewer, larger messages (on the Spider dev slice,
 * 0.94× the wall time of the CLI); each item in flight holds only its two results.
 */
export const SPIDER_CONCURRENCY = 16;

/** The message of a gold item the prediction file has no line for (the file is shorter than the gold). */
export const NO_PREDICTION_LINE = 'no prediction line';

/** One item's outcome, as written to the JSONL output. */
export interface SpiderItemVerdict {
  readonly i: number;
  readonly db_id: string;
  /** 1 match, 0 no match, `null` not scored (gold error, unknown db, undecided). */
  readonly exec: 1 | 0 | null;
  /** A message for a person when something went wrong for this item; `null` otherwise. */
  readonly error: string | null;
  readonly flags: readonly string[];
  /** The gold that matched (or was compared); `null` when none ran. */
  readonly goldIndex: number | null;
  /** Official Spider hardness of the gold; `null` when the official reader cannot read it. */
  readonly hardness: Hardness | null;
  /** With `diagnostics: true`: the diagnostics row (see diagnostics/diagnose.ts); `null` when they could not run. */
  readonly diagnostics?: DiagnosticsRow | null;
}

/** Counts and accuracy of one hardness level (or `all`). */
export interface LevelSummary {
  /** Items in the level. */
  readonly count: number;
  /** Items with exec 0 or 1. */
  readonly scored: number;
  /** Items with exec 1. */
  readonly correct: number;
  /** correct / scored (0 when nothing is scored). */
  readonly accuracy: number;
}

/**
 * The run's summary. `executed`, `predictionErrors`, `goldErrors`, `emptyGoldMatches` and each
 * level's `scored` / `correct` are the words shared with the ladder summary, counted by
 * src/report/summary-terms.ts (`SUMMARY_TERMS` defines them).
 */
export interface SpiderSummary {
  readonly levels: Readonly<Record<Hardness | 'all', LevelSummary>>;
  /** Scored items whose prediction ran without error on every snapshot. */
  readonly executed: number;
  /** Scored items whose prediction did not run (no line, no SQL, an SQLite error, a timeout). */
  readonly predictionErrors: number;
  /** Items with a gold that could not run, or whose db_id names no database (malformed lines apart). */
  readonly goldErrors: number;
  /** Gold lines that are not `sql<TAB>db_id` (not scored; flag `malformed_gold_line`). */
  readonly malformedGoldLines: number;
  readonly emptyGoldMatches: number;
  readonly undecided: number;
  /** Items whose gold the official reader cannot read (counted in `all` only). */
  readonly unknownHardness: number;
  /** Items whose evaluation threw (errored: not scored, in no rate; flag `internal_error`). */
  readonly internalErrors: number;
  /** Gold items with no prediction line (the prediction file is shorter than the gold; they score 0). */
  readonly missingPredictions: number;
  /** With `diagnostics: true`: averages of the items' diagnostics rows. */
  readonly diagnostics?: DiagnosticsSummary;
}

/** Inputs of {@link evaluateSpider}. */
export interface EvaluateSpiderInput {
  readonly gold: readonly SpiderGoldItem[];
  readonly predictions: readonly SpiderPrediction[];
  readonly dbDir: string;
  readonly engine: Engine;
  /**
   * The snapshots of a db_id (default: `listSnapshots(dbDir, dbId)`, the `.sqlite` files of its
   * folder); PostgreSQL runs pass theirs (benchmarks/spider/postgres-snapshots.ts). A LadderError
   * it throws makes the db_id unknown, with its message.
   */
  readonly snapshotsOf?: (dbId: string) => Promise<Snapshot[]>;
  readonly policy: ComparisonPolicy;
  /** Known db_ids (from tables.json); ids outside it are reported as unknown. */
  readonly knownDbIds?: ReadonlySet<string>;
  readonly timeoutMs?: number;
  /**
   * Items evaluated at once (default {@link SPIDER_CONCURRENCY}): more items in flight let the
   * engine send their statements to its child in fewer, larger messages.
   */
  readonly concurrency?: number;
  /** Also compute per-item diagnostics on the first snapshot (default false). */
  readonly diagnostics?: boolean;
  /** Called after each item. */
  readonly onItem?: (verdict: SpiderItemVerdict, done: number, total: number) => void;
  /** Gold results to share (the front end's runtime); default a cache for this run. */
  readonly cache?: GoldResultCache;
}

/** Output of {@link evaluateSpider}. */
export interface EvaluateSpiderOutput {
  /** One verdict per gold item, in gold order. */
  readonly items: readonly SpiderItemVerdict[];
  readonly summary: SpiderSummary;
  /** File-level messages (e.g. extra prediction lines). */
  readonly warnings: readonly string[];
  /** Per-item rung results (for callers that want the full details). */
  readonly results: readonly (RungResult<ExecutionDetails> | null)[];
}

/**
 * Evaluates every gold item against its prediction.
 * @throws nothing for bad data (see the module doc); LadderError only for misuse (bad policy).
 */
export async function evaluateSpider(input: EvaluateSpiderInput): Promise<EvaluateSpiderOutput> {
  const warnings: string[] = [];
  const total = input.gold.length;
  if (input.predictions.length < total) {
    warnings.push(`prediction file has ${input.predictions.length} lines, gold has ${total} items: items ${input.predictions.length}…${total - 1} have no prediction and score 0`);
  } else if (input.predictions.length > total) {
    warnings.push(`prediction file has ${input.predictions.length} lines, gold has ${total} items: the last ${input.predictions.length - total} lines are ignored`);
  }
  const cache = input.cache ?? new GoldResultCache();
  const snapshotsByDb = new Map<string, Promise<Snapshot[] | string>>();
  const snapshotsOf = (dbId: string): Promise<Snapshot[] | string> => {
    let found = snapshotsByDb.get(dbId);
    if (found === undefined) {
      found =
        input.knownDbIds !== undefined && !input.knownDbIds.has(dbId)
          ? Promise.resolve(`unknown db_id ${JSON.stringify(dbId)}: not in tables.json`)
          : (input.snapshotsOf ?? ((id: string) => listSnapshots(input.dbDir, id)))(dbId).catch((error: unknown) => {
              // A db_id with no usable snapshot is the gold's problem; a server that cannot be
              // reached is the machine's: its items are errored (in no rate), never unknown.
              if (isLadderError(error) && !INFRASTRUCTURE_CODES.has(error.code)) return error.message;
              throw error;
            });
      snapshotsByDb.set(dbId, found);
    }
    return found;
  };

  // Hardness is a function of the gold text and its database's names, and Spider's paraphrased
  // questions share golds.
  const hardnessByGold = new Map<string, Hardness | null>();
  const schemaByDb = new Map<string, Promise<SpiderSchema | undefined>>();
  const hardnessOf: HardnessOf = async (sql, db) => {
    let schema: SpiderSchema | undefined;
    if (db !== undefined) {
      let pending = schemaByDb.get(db.id);
      if (pending === undefined) {
        // The official evaluator reads the names from the database file (tables, not views). A
        // database whose catalog cannot be read leaves the names unchecked; its items report why.
        pending = input.engine.catalog(db.path).then(
          (catalog) => spiderSchemaOf(Object.fromEntries(catalog.tables.filter((t) => t.kind === 'table').map((t) => [t.name, t.columns.map((c) => c.name)]))),
          () => undefined,
        );
        schemaByDb.set(db.id, pending);
      }
      schema = await pending;
    }
    const key = `${schema === undefined ? '' : db!.id}\u0000${sql}`;
    let found = hardnessByGold.get(key);
    if (found === undefined) {
      found = spiderHardness(sql, schema);
      hardnessByGold.set(key, found);
    }
    return found;
  };

  const items = new Array<SpiderItemVerdict>(total);
  const results = new Array<RungResult<ExecutionDetails> | null>(total).fill(null);
  let done = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const index = next;
      next += 1;
      const { verdict, result } = await evaluateItem(input, index, snapshotsOf, cache, hardnessOf).catch((error: unknown) => internalError(input, index, error));
      items[index] = verdict;
      results[index] = result;
      done += 1;
      input.onItem?.(verdict, done, total);
    }
  };
  const concurrency = Math.max(1, input.concurrency ?? SPIDER_CONCURRENCY);
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, total)) }, worker));
  const summary = summarize(items);
  if (input.diagnostics) {
    const { summarizeDiagnostics } = await loadDiagnostics();
    const rows = items.flatMap((item) => (item.diagnostics ? [item.diagnostics] : []));
    return { items, summary: { ...summary, diagnostics: summarizeDiagnostics(rows) }, warnings, results };
  }
  return { items, summary, warnings, results };
}

async function evaluateItem(
  input: EvaluateSpiderInput,
  index: number,
  snapshotsOf: (dbId: string) => Promise<Snapshot[] | string>,
  cache: GoldResultCache,
  hardnessOf: HardnessOf,
): Promise<{ verdict: SpiderItemVerdict; result: RungResult<ExecutionDetails> | null }> {
  const gold = input.gold[index]!;
  const unscored = (base: ItemBase, error: string, flags: string[] = []): { verdict: SpiderItemVerdict; result: null } => ({
    verdict: { ...base, exec: null, error, flags, goldIndex: null },
    result: null,
  });
  if (gold.error !== undefined) return unscored({ i: index, db_id: gold.dbId, hardness: null }, `malformed gold line ${gold.error}`, ['malformed_gold_line']);
  const snapshots = await snapshotsOf(gold.dbId);
  // Without its database the names cannot be looked up: the hardness of the text alone.
  if (typeof snapshots === 'string') return unscored({ i: index, db_id: gold.dbId, hardness: await hardnessOf(gold.sql) }, snapshots, ['gold_error', 'unknown_db']);
  // The hardness waits for the database's catalog (a round trip to the engine, once per database):
  // the statements go out at the same time instead of behind it.
  const hardness = hardnessOf(gold.sql, { id: gold.dbId, path: snapshots[0]!.path });
  const prediction = input.predictions[index];
  const flags: string[] = [];
  if (prediction !== undefined && prediction.dbId !== undefined && prediction.dbId !== gold.dbId) flags.push('db_id_mismatch');
  if (prediction === undefined || prediction.sql === '') {
    const base: ItemBase = { i: index, db_id: gold.dbId, hardness: await hardness };
    const why = prediction === undefined ? NO_PREDICTION_LINE : 'no SQL';
    return { verdict: { ...base, exec: 0, error: why, flags: [...flags, 'prediction_error', 'no_sql'], goldIndex: null }, result: null };
  }
  // The ladder's L4, run alone on the prediction as written.
  const execution = runLadder({
    sql: prediction.sql,
    expectedBehavior: 'answer',
    golds: [gold.sql],
    snapshots,
    dialect: 'sqlite',
    engine: input.engine,
    comparisonPolicy: input.policy,
    executionCache: cache,
    only: ['execution'],
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  }).then((ladder) => ladder.results.execution as RungResult<ExecutionDetails>);
  // Both settle before either is read, so a failing execution never leaves a rejection unheard.
  const [hardnessOutcome, executionOutcome] = await Promise.allSettled([hardness, execution]);
  if (hardnessOutcome.status === 'rejected') throw hardnessOutcome.reason;
  if (executionOutcome.status === 'rejected') throw executionOutcome.reason;
  const base: ItemBase = { i: index, db_id: gold.dbId, hardness: hardnessOutcome.value };
  const result = executionOutcome.value;
  const allFlags = [...flags, ...result.details.flags];
  const exec = result.status === 'pass' ? 1 : result.status === 'fail' ? 0 : null;
  const error = result.status === 'pass' ? null : result.reason;
  const verdict: SpiderItemVerdict = { ...base, exec, error, flags: allFlags, goldIndex: result.details.goldIndex };
  if (!input.diagnostics) return { verdict, result };
  let diagnostics: DiagnosticsRow | null = null;
  try {
    const { diagnoseItem } = await loadDiagnostics();
    diagnostics = await diagnoseItem({ predictedSql: prediction.sql, goldSqls: [gold.sql], dialect: input.engine.dialect === 'postgres' ? 'postgres' : 'sqlite', engine: input.engine, db: snapshots[0]!.path });
  } catch (error_) {
    // Diagnostics never gate: losing them must not cost the item, let alone the run.
    const note = isLadderError(error_) ? [] : ['diagnostics_error'];
    return { verdict: { ...verdict, flags: [...verdict.flags, ...note], error: verdict.error ?? (note.length > 0 ? `diagnostics not computed: ${truncate(errorText(error_, { withName: true }), 500)}` : null), diagnostics }, result };
  }
  return { verdict: { ...verdict, diagnostics }, result };
}

/** An item verdict's identity and hardness. */
type ItemBase = Pick<SpiderItemVerdict, 'i' | 'db_id' | 'hardness'>;

/**
 * The Spider hardness of a gold (`null` when the official reader cannot read it), with its names
 * looked up in `db`'s schema when given, else unchecked (see spiderHardness).
 */
type HardnessOf = (sql: string, db?: { readonly id: string; readonly path: string }) => Promise<Hardness | null>;

/** The diagnostics modules (and the SQL parser they read with), imported only by a run that asks for them. */
function loadDiagnostics(): Promise<typeof import('../diagnostics/diagnose.js')> {
  return import('../diagnostics/diagnose.js');
}

/** The verdict of an item whose evaluation threw: errored (not scored), with the message (see the module doc). */
function internalError(input: EvaluateSpiderInput, index: number, error: unknown): { verdict: SpiderItemVerdict; result: null } {
  const gold = input.gold[index]!;
  let hardness: Hardness | null = null;
  try {
    hardness = gold.error ? null : spiderHardness(gold.sql);
  } catch {
    hardness = null;
  }
  return {
    verdict: {
      i: index,
      db_id: gold.dbId,
      exec: null,
      error: isInfrastructureError(error)
        ? `not graded, the machine failed: ${truncate(errorText(error), 500)}`
        : `internal error while evaluating this item: ${truncate(errorText(error, { withName: true }), 500)}`,
      flags: ['internal_error'],
      goldIndex: null,
      hardness,
      ...(input.diagnostics ? { diagnostics: null } : {}),
    },
    result: null,
  };
}

/** A Spider verdict as the shared counts read it (every Spider item expects SQL). */
export function countedItemOf(item: SpiderItemVerdict): CountedItem {
  const scored = item.exec !== null;
  return {
    scored,
    errored: item.flags.includes('internal_error'),
    expectsAnswer: true,
    predictionRan: scored && !item.flags.includes('prediction_error'),
    matched: item.exec === 1,
    goldError: item.flags.includes('gold_error'),
    emptyGoldMatch: item.exec === 1 && item.flags.includes('empty_gold'),
  };
}

/** Aggregates item verdicts into the per-level table and the counts. */
export function summarize(items: readonly SpiderItemVerdict[]): SpiderSummary {
  const level = (filter: (item: SpiderItemVerdict) => boolean): LevelSummary => {
    const counts = countItems(items.filter(filter).map(countedItemOf));
    return { count: counts.items, scored: counts.scored, correct: counts.correct, accuracy: counts.scored === 0 ? 0 : counts.correct / counts.scored };
  };
  const all = countItems(items.map(countedItemOf));
  const levels = Object.fromEntries([
    ...HARDNESS_LEVELS.map((h) => [h, level((item) => item.hardness === h)] as const),
    ['all', level(() => true)] as const,
  ]) as Record<Hardness | 'all', LevelSummary>;
  return {
    levels,
    executed: all.executed,
    predictionErrors: all.predictionErrors,
    goldErrors: all.goldErrors,
    malformedGoldLines: items.filter((item) => item.flags.includes('malformed_gold_line')).length,
    emptyGoldMatches: all.emptyGoldMatches,
    undecided: items.filter((item) => item.flags.includes('undecided')).length,
    unknownHardness: items.filter((item) => item.hardness === null).length,
    internalErrors: items.filter((item) => item.flags.includes('internal_error')).length,
    missingPredictions: items.filter((item) => item.error === NO_PREDICTION_LINE).length,
  };
}
