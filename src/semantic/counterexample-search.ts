/**
 * Counterexample search: when a prediction matches the gold on every snapshot, look for a small
 * database on which it does not, shrink that database until it is easy to read, re-run both
 * queries on it, and report it — or report that none was found within the budget. Never
 * "equivalent": a search that finds nothing proves nothing.
 *
 * Bounded search for a distinguishing database follows SpotIt ("Evaluating Text-to-SQL
 * Evaluation with Formal Verification", 2025), which found most differences with 2–3 rows per
 * table; here the databases are drawn, not solved for:
 * 1. Databases come from the schema-driven generator (generate-database.ts) with value pools that
 *    hold both queries' constants and their neighbours (±1, day ±1, boundaries, LIKE instances),
 *    the snapshots' values, duplicates and NULL where allowed, under the schema's constraints and
 *    the fixture's declared invariants. Sizes grow: 1–3 rows per table first
 *    ({@link SEARCH_TIERS}), then 2–10, then 8–40.
 * 2. Each database is judged in the engine (witness-check.ts): golds and prediction run in child
 *    processes under the deadline and caps; generated databases are scratch files the engine opens
 *    read-only. A database refutes a gold when the gold's answer is determined there and the
 *    prediction's result differs under the item's comparison policy, on the database and on
 *    copies with its rows stored in other orders (reversed, rotated, sorted).
 * 3. With several golds, the prediction is refuted only when every gold is distinguished from it:
 *    by one database when one is found, else by one database per gold.
 * 4. The witness is shrunk (shrink-witness.ts) and both queries run again on the final database
 *    (and its reordered copies) before it is reported, with its rows as `INSERT` statements and both
 *    results.
 *
 * Budgets bound the databases drawn, the seconds spent and the shrinking trials.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Verdict } from '../compare/compare-results.js';
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { applySqlRewrites } from '../benchmarks/spider/sql-rewrites.js';
import type { Engine, ExecutionOutcome, QueryResult } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { parseSql, type ParseResult } from '../sql/parse.js';
import { invalidValue, rejectUnknownKeys } from '../options.js';
import { dumpDatabase } from './dump-database.js';
import { readStoredTables } from './edit-database.js';
import { createGeneratorPlan, generateDatabase, verifyDatabaseFile, type GeneratorPlan } from './generate-database.js';
import { extractGoldLiterals, type GoldLiteral } from './gold-literals.js';
import { bindInvariants, type BoundInvariant, type FixtureInvariant } from './invariants.js';
import { readObservedValues, type ObservedData } from './observed-values.js';
import { createPrng } from './prng.js';
import { readSchema, type DatabaseSchema } from './schema-reader.js';
import { resolveSearchBudget, SEARCH_TIMEOUT_MS, tierOfDraw, type ResolvedSearchBudget, type SearchBudget } from './search-budget.js';
import { shrinkWitness, type ShrinkResult } from './shrink-witness.js';
import { fileChecksum } from './suite-cache.js';
import type { NullPolicy } from './value-pools.js';
import { confirmOrderIndependent, DEFAULT_EMPTY_VS_NULL_ROW, EMPTY_VS_NULL_ROW_VALUES, judgeDatabase, type DatabaseJudgement, type EmptyVsNullRow, type JudgeContext } from './witness-check.js';
import { formatRefutationReason, insertStatements, witnessTables, type WitnessTable } from './witness-format.js';

/** What is fixed for one schema: read once, searched many times. */
export interface CounterexampleSearcherInput {
  /** Runs every query (child processes, deadline, caps). */
  readonly engine: Engine;
  /** A SQLite file with the schema (usually the base snapshot); read-only. */
  readonly schemaDb: string;
  /** Files whose values seed the pools (default: `schemaDb`); opened read-only. */
  readonly snapshots?: readonly (string | Snapshot)[];
  /** The fixture's declared invariants (`readFixtureInvariants`). */
  readonly invariants?: readonly FixtureInvariant[];
  /** NULLs wherever the schema allows them (`allowed`, default) or only where the snapshots hold some. */
  readonly nulls?: NullPolicy;
  /** Scratch folder for the drawn databases (default: a new folder under the system's temp folder, removed by `close`). */
  readonly workDir?: string;
}

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

/** One distinguishing database, shrunk and re-run. */
export interface Witness {
  /** Indices (into the input golds) of the golds this database distinguishes from the prediction. */
  readonly golds: readonly number[];
  /** Rows per table, every table of the schema. */
  readonly rowsPerTable: Readonly<Record<string, number>>;
  /** Rows over all tables. */
  readonly totalRows: number;
  /** Rows of the largest table. */
  readonly maxRowsPerTable: number;
  /** The tables that hold rows, parents first, with their rows (cells as the engine returns them). */
  readonly tables: readonly WitnessTable[];
  /** One `INSERT` per table that holds rows, parents first (readable; run after the schema's CREATE statements). */
  readonly inserts: readonly string[];
  /** The whole database as a SQL script (schema and rows, `dumpDatabase`) to replay it in any SQLite. */
  readonly script: string;
  /** sha256 of the witness file. */
  readonly checksum: string;
  /** The kept file (with `keepWitnessIn`), else `null`. */
  readonly file: string | null;
  /** Each distinguished gold's result on the witness, aligned with `golds` (from the final re-run). */
  readonly goldResults: readonly QueryResult[];
  /** The prediction's outcome on the witness (from the final re-run): a result, or the error it failed with. */
  readonly predicted: ExecutionOutcome;
  /** The comparisons, aligned with `golds` (`null` when the prediction failed). */
  readonly verdicts: readonly (Verdict | null)[];
  /** The first gold's difference in one line (the verdict's reason or the prediction's error). */
  readonly difference: string;
  /** Shrinking: rows before and after, trials. */
  readonly shrink: Pick<ShrinkResult, 'rowsBefore' | 'rowsAfter' | 'trials' | 'accepted' | 'valuesSimplified' | 'stoppedBy'>;
  /** The draw that found it: index and size tier. */
  readonly draw: { readonly index: number; readonly tier: string };
}

/** Databases tried and why some told nothing. */
export interface SearchStats {
  /** Databases judged. */
  readonly databases: number;
  /** Databases judged per size tier. */
  readonly byTier: Readonly<Record<string, number>>;
  /** Draws the generator could not make within the constraints. */
  readonly generationFailures: number;
  /** Databases where some gold could not be used: it failed, or its answer was not determined. */
  readonly unusable: { readonly gold_error: number; readonly nondeterministic: number; readonly ties: number };
  /** Databases where the prediction timed out or the comparison was undecided. */
  readonly noEvidence: number;
  /** Databases whose only difference was an empty result against one row of NULLs (under `emptyVsNullRow: 'same'`). */
  readonly emptyVsNullRow: number;
  /** Distinctions dropped because they did not survive another physical row order (reversed, rotated, sorted). */
  readonly orderDependent: number;
  /** Wall time of the call, ms. */
  readonly elapsedMs: number;
}

/** The prediction is refuted: every gold is distinguished from it. */
export interface RefutedOutcome {
  readonly verdict: 'refuted';
  /** The witness (the one database that distinguishes every gold, when there is one). */
  readonly witness: Witness;
  /** All witnesses: one, or one per gold when no single database distinguishes them all. */
  readonly witnesses: readonly Witness[];
  /** One line, e.g. `refuted on a 2-row database: gold returns [3], prediction [2]; INSERT INTO orders …`. */
  readonly reason: string;
  readonly tried: SearchStats;
  readonly policy: ComparisonPolicy;
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** No database within the budget told the prediction apart from every gold (which proves nothing). */
export interface NotRefutedOutcome {
  readonly verdict: 'not_refuted_within_budget';
  /** `databases` or `seconds`: the bound that ended the search. */
  readonly stoppedBy: 'databases' | 'seconds';
  /** Golds some database distinguished (not all, or the prediction would be refuted). */
  readonly distinguishedGolds: readonly number[];
  readonly reason: string;
  readonly tried: SearchStats;
  readonly policy: ComparisonPolicy;
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** The search could not run: the prediction or every gold does not prepare on the schema, or no database could be drawn. */
export interface NotSearchedOutcome {
  readonly verdict: 'not_searched';
  readonly cause: 'prediction_unprepared' | 'golds_unprepared' | 'no_database';
  readonly reason: string;
  readonly tried: SearchStats;
}

/** The result of a search. */
export type SearchOutcome = RefutedOutcome | NotRefutedOutcome | NotSearchedOutcome;

/** A searcher bound to one schema. */
export interface CounterexampleSearcher {
  readonly schema: DatabaseSchema;
  /**
   * Searches for a database that refutes the prediction.
   * @throws LadderError `invalid_option` for misuse (no golds, unknown option, bad budget or policy).
   */
  search(input: SearchInput): Promise<SearchOutcome>;
  /** Removes the scratch folder when the searcher made it. Idempotent. */
  close(): void;
}

const SEARCHER_KEYS = ['engine', 'schemaDb', 'snapshots', 'invariants', 'nulls', 'workDir'];
const SEARCH_KEYS = ['golds', 'predictedSql', 'policy', 'budget', 'seed', 'emptyVsNullRow', 'timeoutMs', 'goldOrdered', 'keepWitnessIn'];

/**
 * Creates a searcher for one schema: reads the schema, the snapshots' values and the invariants
 * once; each `search` builds its value pools from the pair's constants.
 *
 * @throws LadderError `invalid_option` for misuse; `db_not_found` for a missing schema database;
 *   `input_invalid` for an invariant that names no table or column of the schema.
 * @example
 * const searcher = createCounterexampleSearcher({ engine, schemaDb: 'shop.sqlite' });
 * const outcome = await searcher.search({ golds: ["SELECT COUNT(*) FROM orders WHERE status = 'paid'"], predictedSql: 'SELECT COUNT(*) FROM orders' });
 * outcome.verdict // 'refuted'
 * searcher.close();
 */
export function createCounterexampleSearcher(input: CounterexampleSearcherInput): CounterexampleSearcher {
  rejectUnknownKeys(input as unknown as Record<string, unknown>, SEARCHER_KEYS);
  if (input.engine === null || typeof input.engine !== 'object' || typeof input.engine.execute !== 'function') {
    throw invalidValue('engine', 'an Engine (see createSqliteEngine)', input.engine);
  }
  if (typeof input.schemaDb !== 'string' || input.schemaDb === '') throw invalidValue('schemaDb', 'a SQLite file path', input.schemaDb);
  if (input.nulls !== undefined && input.nulls !== 'allowed' && input.nulls !== 'observed') throw invalidValue('nulls', "'allowed' or 'observed'", input.nulls);
  const schemaDb = path.resolve(input.schemaDb);
  if (!existsSync(schemaDb)) throw new LadderError('db_not_found', `schemaDb ${input.schemaDb} does not exist`);
  let schema: DatabaseSchema;
  try {
    schema = readSchema(schemaDb);
  } catch (error) {
    throw new LadderError('db_not_found', `schemaDb ${input.schemaDb} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const invariants = bindInvariants(schema, input.invariants ?? []);
  const snapshotFiles = (input.snapshots ?? [input.schemaDb]).map((s) => path.resolve(typeof s === 'string' ? s : s.path));
  const rowTables = invariants.filter((i) => i.kind === 'lookup').map((i) => i.tableName);
  const observed = readObservedValues(snapshotFiles, schema, { rowTables });
  const ownDir = input.workDir === undefined;
  const workDir = ownDir ? mkdtempSync(path.join(os.tmpdir(), 'ladder-search-')) : path.resolve(input.workDir!);
  mkdirSync(workDir, { recursive: true });
  const nulls = input.nulls ?? 'allowed';
  // Scratch slots, reused by every search so the engine keeps a bounded number of connections.
  const free: string[] = [];
  let slots = 0;
  let closed = false;
  return {
    schema,
    async search(request) {
      if (closed) throw new LadderError('invalid_option', 'the counterexample searcher is closed');
      const dir = free.pop() ?? path.join(workDir, `slot-${slots++}`);
      mkdirSync(dir, { recursive: true });
      try {
        return await runSearch({ engine: input.engine, schema, invariants, observed, nulls, schemaDb, dir }, request);
      } finally {
        free.push(dir);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      if (ownDir) rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * Searches once: {@link createCounterexampleSearcher} and one `search`, then `close`. Build a
 * searcher instead when many pairs share a schema.
 * @example
 * const outcome = await searchCounterexample({ engine, schemaDb, golds: [gold], predictedSql, policy: 'spider' });
 * if (outcome.verdict === 'refuted') console.log(formatRefutation(outcome));
 */
export async function searchCounterexample(input: CounterexampleSearcherInput & SearchInput): Promise<SearchOutcome> {
  const searcherInput: Record<string, unknown> = {};
  const searchInput: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (SEARCHER_KEYS.includes(key)) searcherInput[key] = value;
    else if (SEARCH_KEYS.includes(key)) searchInput[key] = value;
    else rejectUnknownKeys({ [key]: value }, [...SEARCHER_KEYS, ...SEARCH_KEYS]);
  }
  const searcher = createCounterexampleSearcher(searcherInput as unknown as CounterexampleSearcherInput);
  try {
    return await searcher.search(searchInput as unknown as SearchInput);
  } finally {
    searcher.close();
  }
}

interface SearchContext {
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

/** A database that distinguishes some golds, before shrinking. */
interface Candidate {
  readonly file: string;
  /** Indices into the golds that prepare (`live`). */
  readonly golds: readonly number[];
  readonly draw: { readonly index: number; readonly tier: string };
}

/** One search's interpreted request. */
interface Request {
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

/** Counts kept while the search runs. */
interface Tally {
  databases: number;
  byTier: Record<string, number>;
  generationFailures: number;
  unusable: { gold_error: number; nondeterministic: number; ties: number };
  noEvidence: number;
  emptyVsNullRow: number;
  orderDependent: number;
}

async function runSearch(ctx: SearchContext, input: SearchInput): Promise<SearchOutcome> {
  const started = performance.now();
  const request = interpretRequest(input, ctx, started);
  const { judge, predicted, allGolds } = request;
  const tally: Tally = { databases: 0, byTier: {}, generationFailures: 0, unusable: { gold_error: 0, nondeterministic: 0, ties: 0 }, noEvidence: 0, emptyVsNullRow: 0, orderDependent: 0 };
  const tried = (): SearchStats => ({ ...tally, byTier: { ...tally.byTier }, unusable: { ...tally.unusable }, elapsedMs: Math.round(performance.now() - started) });

  // The queries must at least prepare on the schema; golds that do not can never match, so only
  // the others need distinguishing.
  const prepared = await ctx.engine.prepare({ db: ctx.schemaDb, sql: predicted, timeoutMs: judge.timeoutMs! });
  if (!prepared.ok) return { verdict: 'not_searched', cause: 'prediction_unprepared', reason: `not searched: the prediction does not prepare on the schema (${prepared.error.code}: ${prepared.error.message})`, tried: tried() };
  const goldPrepared = await Promise.all(allGolds.map((g) => ctx.engine.prepare({ db: ctx.schemaDb, sql: g, timeoutMs: judge.timeoutMs! })));
  const live = allGolds.map((_, i) => i).filter((i) => goldPrepared[i]!.ok);
  if (live.length === 0) {
    const first = goldPrepared[0] as { ok: false; error: { code: string; message: string } };
    return { verdict: 'not_searched', cause: 'golds_unprepared', reason: `not searched: no gold prepares on the schema (${first.error.code}: ${first.error.message})`, tried: tried() };
  }
  const golds = live.map((i) => allGolds[i]!);
  // Both queries' constants go into the pools.
  const literals: GoldLiteral[] = [...golds, predicted].flatMap((sql) => extractGoldLiterals(sql, ctx.schema));
  const plan = createGeneratorPlan({ schema: ctx.schema, snapshots: [], observed: ctx.observed, literals, invariants: ctx.invariants, nulls: ctx.nulls });

  const found = await findCandidates(ctx, plan, request, golds, tally);
  if (found.stoppedBy !== 'refuted') {
    if (tally.databases === 0 && tally.generationFailures > 0) {
      return { verdict: 'not_searched', cause: 'no_database', reason: `not searched: the generator could not draw a database for this schema (${tally.generationFailures} failed draws)`, tried: tried() };
    }
    const distinguishedGolds = [...found.covered].sort((a, b) => a - b).map((g) => live[g]!);
    const stats = tried();
    const bound = found.stoppedBy === 'seconds' ? `time budget of ${request.budget.maxSeconds} s` : `database budget of ${request.budget.maxDatabases}`;
    const partial = distinguishedGolds.length > 0 ? `; only golds ${distinguishedGolds.join(', ')} of ${allGolds.length} were distinguished` : '';
    return {
      verdict: 'not_refuted_within_budget',
      stoppedBy: found.stoppedBy,
      distinguishedGolds,
      reason: `not refuted within budget: ${stats.databases} ${stats.databases === 1 ? 'database' : 'databases'} tried (${Object.entries(stats.byTier).map(([t, n]) => `${n} ${t}`).join(', ')}), stopped by the ${bound}${partial}`,
      tried: stats,
      policy: judge.policy,
      emptyVsNullRow: request.emptyVsNullRow,
    };
  }

  // Shrink each witness, then run everything again on it.
  const witnesses: Witness[] = [];
  for (const candidate of found.candidates) {
    const witness = await shrinkAndVerify(ctx, plan, request, golds, live, candidate);
    rmSync(candidate.file, { force: true });
    if (witness === null) {
      const stats = tried();
      return {
        verdict: 'not_refuted_within_budget',
        stoppedBy: 'databases',
        distinguishedGolds: [],
        reason: `not refuted within budget: a distinguishing database did not distinguish again when re-run (${stats.databases} databases tried)`,
        tried: stats,
        policy: judge.policy,
        emptyVsNullRow: request.emptyVsNullRow,
      };
    }
    witnesses.push(witness);
  }
  const outcome: RefutedOutcome = { verdict: 'refuted', witness: witnesses[0]!, witnesses, reason: '', tried: tried(), policy: judge.policy, emptyVsNullRow: request.emptyVsNullRow };
  return { ...outcome, reason: formatRefutationReason(outcome, allGolds.length) };
}

/** Validates a search request, applies defaults and interprets it (better-sqlite3's order). */
function interpretRequest(request: SearchInput, ctx: SearchContext, started: number): Request {
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

/**
 * Draws and judges databases until every gold is distinguished (by one database, or one per
 * gold) or the budget is spent. Two slots alternate so that the next database is drawn while the
 * engine runs the queries on the current one.
 */
async function findCandidates(
  ctx: SearchContext,
  plan: GeneratorPlan,
  request: Request,
  golds: readonly string[],
  tally: Tally,
): Promise<{ candidates: Candidate[]; covered: Set<number>; stoppedBy: 'databases' | 'seconds' | 'refuted' }> {
  const { judge, budget, predicted } = request;
  const slots = [path.join(ctx.dir, 'draw-a.sqlite'), path.join(ctx.dir, 'draw-b.sqlite')];
  const reordered = path.join(ctx.dir, 'reordered.sqlite');
  const candidates: Candidate[] = [];
  const covered = new Set<number>();
  const draw = (index: number): { file: string; tier: string } | null => {
    const tier = tierOfDraw(index, budget.maxDatabases);
    const file = slots[index % 2]!;
    const outcome = generateDatabase(plan, { rng: createPrng(`${request.seed}/search/${index}`), file, rows: tier.rows, maxAttempts: 2 });
    if (outcome.ok) return { file, tier: tier.name };
    tally.generationFailures += 1;
    return null;
  };
  let next = draw(0);
  for (let index = 0; index < budget.maxDatabases; index += 1) {
    if (performance.now() >= request.deadline) return { candidates, covered, stoppedBy: 'seconds' };
    const current = next;
    const pending = current === null ? null : judgeDatabase(judge, current.file, golds, predicted);
    next = index + 1 < budget.maxDatabases ? draw(index + 1) : null;
    if (current === null || pending === null) continue;
    const judgement = await pending;
    tally.databases += 1;
    tally.byTier[current.tier] = (tally.byTier[current.tier] ?? 0) + 1;
    countNoEvidence(tally, judgement);
    if (judgement.distinguished.every((g) => covered.has(g))) continue;
    const confirmed = await confirmOrderIndependent(judge, ctx.schema, current.file, reordered, golds, predicted, judgement);
    tally.orderDependent += judgement.distinguished.length - confirmed.length;
    const all = confirmed.length === golds.length;
    if (!all && confirmed.every((g) => covered.has(g))) continue;
    // One database that distinguishes every gold replaces the per-gold ones.
    if (all) candidates.splice(0, candidates.length);
    const file = path.join(ctx.dir, `candidate-${candidates.length}.sqlite`);
    copyFileSync(current.file, file);
    candidates.push({ file, golds: confirmed, draw: { index, tier: current.tier } });
    for (const g of confirmed) covered.add(g);
    if (covered.size === golds.length) return { candidates, covered, stoppedBy: 'refuted' };
  }
  return { candidates, covered, stoppedBy: 'databases' };
}

/** Shrinks a candidate and re-runs the queries on the result; falls back to the unshrunk database; `null` when neither refutes again. */
async function shrinkAndVerify(ctx: SearchContext, plan: GeneratorPlan, request: Request, golds: readonly string[], live: readonly number[], candidate: Candidate): Promise<Witness | null> {
  const { judge, predicted } = request;
  const reordered = path.join(ctx.dir, 'reordered.sqlite');
  const targets = new Set(candidate.golds);
  const stillRefutes = async (file: string): Promise<boolean> => {
    const judgement = await judgeDatabase(judge, file, golds, predicted, targets);
    if (!candidate.golds.every((g) => judgement.distinguished.includes(g))) return false;
    const confirmed = await confirmOrderIndependent(judge, ctx.schema, file, reordered, golds, predicted, judgement);
    return candidate.golds.every((g) => confirmed.includes(g));
  };
  const best = path.join(ctx.dir, 'best.sqlite');
  const shrink = await shrinkWitness({ plan, source: candidate.file, trialFile: path.join(ctx.dir, 'trial.sqlite'), bestFile: best, stillRefutes, maxTrials: request.budget.maxShrinkTrials, deadline: request.deadline });
  const witness = await finalWitness(ctx, plan, judge, best, golds, live, predicted, candidate, shrink, reordered, request.keepWitnessIn);
  if (witness !== null) return witness;
  // The unshrunk database was confirmed when it was found.
  return finalWitness(ctx, plan, judge, candidate.file, golds, live, predicted, candidate, { ...shrink, rowsAfter: shrink.rowsBefore, accepted: 0, valuesSimplified: 0 }, reordered, request.keepWitnessIn);
}

/** Counts why a database told nothing about some gold. */
function countNoEvidence(tally: Tally, judgement: DatabaseJudgement): void {
  const unusable = judgement.golds.find((g) => g.kind === 'unusable');
  if (unusable !== undefined && unusable.kind === 'unusable') tally.unusable[unusable.reason] += 1;
  if (judgement.golds.some((g) => g.kind === 'no_evidence' && g.why === 'empty_vs_null_row')) tally.emptyVsNullRow += 1;
  else if (judgement.golds.some((g) => g.kind === 'no_evidence')) tally.noEvidence += 1;
}

/** Runs the golds and the prediction again on a witness (and its reordered copies) and builds the report; `null` when it no longer refutes. */
async function finalWitness(
  ctx: SearchContext,
  plan: GeneratorPlan,
  judge: JudgeContext,
  file: string,
  golds: readonly string[],
  live: readonly number[],
  predicted: string,
  candidate: Candidate,
  shrink: ShrinkResult,
  reordered: string,
  keepIn: string | undefined,
): Promise<Witness | null> {
  const targets = new Set(candidate.golds);
  const judgement = await judgeDatabase(judge, file, golds, predicted, targets);
  if (!candidate.golds.every((g) => judgement.distinguished.includes(g))) return null;
  const confirmed = await confirmOrderIndependent(judge, ctx.schema, file, reordered, golds, predicted, judgement);
  if (!candidate.golds.every((g) => confirmed.includes(g))) return null;
  const verification = verifyDatabaseFile(file, ctx.schema, ctx.invariants);
  if (verification.integrity.join() !== 'ok' || verification.foreignKeyViolations > 0 || verification.invariantViolations.length > 0) return null;
  const stored = readStoredTables(file, ctx.schema);
  const order = new Map(plan.order.tables.map((name, i) => [name, i]));
  const tables = witnessTables([...stored].sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0)));
  const rowsPerTable = Object.fromEntries(stored.map((t) => [t.name, t.rows.length]));
  const checksum = fileChecksum(file);
  let kept: string | null = null;
  if (keepIn !== undefined) {
    mkdirSync(keepIn, { recursive: true });
    kept = path.resolve(keepIn, `witness-${checksum.slice(0, 16)}.sqlite`);
    copyFileSync(file, kept);
  }
  const distinguished = candidate.golds.map((g) => judgement.golds[g]!) as Extract<DatabaseJudgement['golds'][number], { kind: 'distinguished' }>[];
  return {
    golds: candidate.golds.map((g) => live[g]!),
    rowsPerTable,
    totalRows: stored.reduce((n, t) => n + t.rows.length, 0),
    maxRowsPerTable: Math.max(0, ...stored.map((t) => t.rows.length)),
    tables,
    inserts: insertStatements(tables),
    script: dumpDatabase(file),
    checksum,
    file: kept,
    goldResults: distinguished.map((d) => d.gold),
    predicted: judgement.predicted,
    verdicts: distinguished.map((d) => d.verdict),
    difference: distinguished[0]!.detail,
    shrink: { rowsBefore: shrink.rowsBefore, rowsAfter: shrink.rowsAfter, trials: shrink.trials, accepted: shrink.accepted, valuesSimplified: shrink.valuesSimplified, stoppedBy: shrink.stoppedBy },
    draw: candidate.draw,
  };
}
