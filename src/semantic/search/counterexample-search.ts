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
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Engine } from '../../engine/engine.js';
import { LadderError } from '../../errors.js';
import { createScratchFolder, scratchRootDir } from '../../files/scratch.js';
import type { FixtureInvariant } from '../../fixtures/fixture-invariant.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { invalidValue, rejectUnknownKeys } from '../../options.js';
import type { Witness } from '../../rungs/semantic-details.js';
import { shrinkAndVerify } from './confirm-witness.js';
import { addRejections } from '../generation/database-contract.js';
import { findCandidates, type Tally } from './find-candidates.js';
import { extractGoldLiterals, type GoldLiteral } from '../model/gold-literals.js';
import { bindInvariants } from '../model/invariants.js';
import { readObservedValues } from '../model/observed-values.js';
import { readSchema, type DatabaseSchema } from '../model/schema-reader.js';
import { createSearchDrawStore, type SearchDrawStore } from './search-draws.js';
import type { RefutedOutcome, SearchOutcome, SearchStats } from './search-outcome.js';
import { interpretRequest, SEARCH_KEYS, type SearchContext, type SearchInput } from './search-request.js';
import { countTransientFailures } from '../model/transient-failures.js';
import type { NullPolicy } from '../generation/value-pools.js';
import { formatRefutationReason } from './witness-format.js';

// The searcher's signature: what `search` takes and returns.
export type { SearchInput } from './search-request.js';
export type { NotRefutedOutcome, NotSearchedOutcome, RefutedOutcome, SearchOutcome, SearchStats } from './search-outcome.js';

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
  /** Scratch folder for the drawn databases (default: a new folder `search-<pid>-<hex>` under `<cache folder>/tmp`, removed by `close`, at exit or on an interrupt, and by the next searcher after a SIGKILL). */
  readonly workDir?: string;
}

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
  // Scratch lives under the cache folder, removed on close, at exit or on an interrupt, and swept by
  // the next searcher when its process was killed (files/scratch.ts).
  const scratch = input.workDir === undefined ? createScratchFolder(scratchRootDir(), 'search') : undefined;
  const workDir = scratch?.path ?? path.resolve(input.workDir!);
  mkdirSync(workDir, { recursive: true });
  const nulls = input.nulls ?? 'allowed';
  // The databases drawn, kept for the searches of the same constants (search-draws.ts).
  const draws = createSearchDrawStore(path.join(workDir, 'draws'));
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
        return await runSearch({ engine: input.engine, schema, invariants, observed, nulls, schemaDb, dir }, draws, request);
      } finally {
        free.push(dir);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      draws.clear();
      scratch?.remove();
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

async function runSearch(searcherContext: SearchContext, store: SearchDrawStore, input: SearchInput): Promise<SearchOutcome> {
  const started = performance.now();
  const counting = countTransientFailures(searcherContext.engine);
  const ctx: SearchContext = { ...searcherContext, engine: counting.engine };
  const request = interpretRequest(input, ctx, started);
  const { judge, predicted, allGolds } = request;
  const tally: Tally = { databases: 0, byTier: {}, generationFailures: 0, unusable: { gold_error: 0, nondeterministic: 0, ties: 0 }, noEvidence: 0, emptyVsNullRow: 0, orderDependent: 0, rejectedDatabases: {} };
  const tried = (): SearchStats => ({ ...tally, byTier: { ...tally.byTier }, unusable: { ...tally.unusable }, rejectedDatabases: { ...tally.rejectedDatabases }, transientFailures: counting.count(), elapsedMs: Math.round(performance.now() - started) });

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
  // Pairs with the same constants share a plan and its drawn databases.
  const draws = store.acquire({ schema: ctx.schema, snapshots: [], observed: ctx.observed, literals, invariants: ctx.invariants, nulls: ctx.nulls });

  try {
    const found = await findCandidates(ctx, draws, request, golds, tally);
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
      const witness = await shrinkAndVerify(ctx, draws.plan(), request, golds, live, candidate, (counts) => {
        tally.rejectedDatabases = addRejections(tally.rejectedDatabases, counts);
      });
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
  } finally {
    draws.release();
  }
}

