/**
 * What L6 reads that does not depend on the predicted query, read once per run instead of once per
 * row: a main job grades every item under several providers, and every item of a fixture on the
 * same snapshots, while the snapshot's statistics, its view definitions and the gold's plan stay
 * the same.
 *
 * - Per snapshot: `sqlite_stat1` (parsed) and the table aliases of its view definitions.
 * - Per (snapshot, gold SQL as run, double-quote mode): the gold's `EXPLAIN QUERY PLAN` outcome.
 *
 * A snapshot is keyed by its resolved path and file identity (device, inode, size, modification
 * time: `snapshotIdentity` of the gold-result cache), so a database rebuilt at the same path is read
 * again. Outcomes that depend on the moment rather than on these inputs are never kept (`timeout`,
 * `memory_limit`, `engine_failure`, `db_not_found`, as in the gold-result cache): the entry is
 * dropped once it settles, and callers already waiting share it. Values are promises, so
 * concurrent rows asking for the same snapshot or gold share one engine request.
 */
import { snapshotIdentity, TRANSIENT_ERROR_CODES } from '../compare/gold-result-cache.js';
import type { DoubleQuoteMode, Engine, ExplainOutcome } from '../engine/engine.js';
import { snapshotOfFile } from '../fixtures/snapshot.js';
import { EMPTY_STATISTICS, parseStat1, type DatabaseStatistics, type Stat1Row } from './statistics.js';
import { collectTableAliases, type TableAliases } from './table-aliases.js';
import { parseSqlAhead, whenParsedAhead } from '../sql/parse.js';
import { BoundedMap } from '../bounded-map.js';

/** What L6 reads from a snapshot whatever the query: its statistics and its views' aliases. */
export interface SnapshotFacts {
  /** `sqlite_stat1`, or {@link EMPTY_STATISTICS} when the snapshot has none (or it cannot be read). */
  readonly statistics: DatabaseStatistics;
  /** True when `sqlite_stat1` was read. */
  readonly statisticsAvailable: boolean;
  /** Table aliases of each `CREATE VIEW` text, in view-name order (empty when none can be read). */
  readonly viewAliases: readonly TableAliases[];
}


const STAT1_SQL = 'SELECT tbl, idx, stat FROM sqlite_stat1';
const VIEWS_SQL = "SELECT sql FROM sqlite_master WHERE type = 'view' AND sql IS NOT NULL ORDER BY name";

/**
 * Reads a snapshot's {@link SnapshotFacts} through the engine (two plain SELECTs, so the engine's
 * query-only rule holds).
 * @returns the facts, and `transient: true` when a read failed for a reason of the moment (the
 *   facts then fall back as for a missing table, and must not be kept).
 */
export async function readSnapshotFacts(engine: Engine, db: string): Promise<{ readonly facts: SnapshotFacts; readonly transient: boolean }> {
  const [stat1, views] = await Promise.all([engine.execute({ db, sql: STAT1_SQL }), engine.execute({ db, sql: VIEWS_SQL })]);
  const transient = (!stat1.ok && TRANSIENT_ERROR_CODES.has(stat1.error.code)) || (!views.ok && TRANSIENT_ERROR_CODES.has(views.error.code));
  const rows: Stat1Row[] = [];
  if (stat1.ok) {
    for (const [tbl, idx, stat] of stat1.result.rows) {
      if (typeof tbl === 'string' && (idx === null || typeof idx === 'string') && typeof stat === 'string') rows.push({ tbl, idx: idx ?? null, stat });
    }
  }
  const viewTexts = views.ok ? views.result.rows.map((row) => row[0]).filter((sql): sql is string => typeof sql === 'string') : [];
  // The views are parsed in the parser thread, awaited: the first L6 row of a run would otherwise
  // block this thread while the thread starts and parses them.
  for (const view of viewTexts) parseSqlAhead(view);
  await Promise.all(viewTexts.map((view) => whenParsedAhead(view)));
  return {
    facts: {
      statistics: stat1.ok ? parseStat1(rows) : EMPTY_STATISTICS,
      statisticsAvailable: stat1.ok,
      viewAliases: viewTexts.map((view) => collectTableAliases(view)),
    },
    transient,
  };
}

/**
 * The L6 cache of one runtime (one engine): keep one per front end, beside its gold-result cache.
 * @example
 * const cache = new EfficiencyCache();
 * await checkEfficiency({ ..., cache }); // the second item on the same snapshot reads no statistics
 */
export class EfficiencyCache {
  readonly #snapshots = new Map<string, Promise<SnapshotFacts>>();
  readonly #goldPlans: BoundedMap<string, Promise<ExplainOutcome>>;
  readonly maxGoldPlans: number;
  /** Engine requests saved so far (lookups served from the cache). */
  hits = 0;

  /**
   * @param options.maxGoldPlans - most gold plans kept (oldest evicted first); integer ≥ 1, default 10 000.
   * @throws RangeError when `maxGoldPlans` is not an integer ≥ 1.
   */
  constructor(options: { readonly maxGoldPlans?: number } = {}) {
    const maxGoldPlans = options.maxGoldPlans ?? 10_000;
    if (!Number.isInteger(maxGoldPlans) || maxGoldPlans < 1) throw new RangeError(`maxGoldPlans must be an integer ≥ 1; received ${String(maxGoldPlans)}`);
    this.maxGoldPlans = maxGoldPlans;
    this.#goldPlans = new BoundedMap(maxGoldPlans);
  }

  /** The snapshot's facts ({@link readSnapshotFacts}), read once per snapshot identity. */
  snapshotFacts(engine: Engine, db: string): Promise<SnapshotFacts> {
    const key = snapshotIdentity(snapshotOfFile(db));
    const found = this.#snapshots.get(key);
    if (found !== undefined) {
      this.hits += 1;
      return found;
    }
    const read = readSnapshotFacts(engine, db);
    const facts = read.then((outcome) => outcome.facts);
    this.#snapshots.set(key, facts);
    const forget = (): void => {
      if (this.#snapshots.get(key) === facts) this.#snapshots.delete(key);
    };
    read.then((outcome) => (outcome.transient ? forget() : undefined), forget);
    return facts;
  }

  /**
   * The gold's plan on a snapshot, explained once per (snapshot identity, SQL, double-quote mode).
   * @param explain - runs the `EXPLAIN` when the plan is not cached.
   */
  goldPlan(db: string, sql: string, doubleQuotes: DoubleQuoteMode, explain: () => Promise<ExplainOutcome>): Promise<ExplainOutcome> {
    const key = [snapshotIdentity(snapshotOfFile(db)), doubleQuotes, sql].join('\u0000');
    const found = this.#goldPlans.get(key);
    if (found !== undefined) {
      this.hits += 1;
      return found;
    }
    const plan = explain();
    this.#goldPlans.set(key, plan);
    const forget = (): void => {
      if (this.#goldPlans.get(key) === plan) this.#goldPlans.delete(key);
    };
    plan.then((outcome) => (!outcome.ok && TRANSIENT_ERROR_CODES.has(outcome.error.code) ? forget() : undefined), forget);
    return plan;
  }
}
