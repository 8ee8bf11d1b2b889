/**
 * Cache of gold executions. A cached result is reused only when everything that can change it is
 * the same:
 * - the snapshot: its checksum; without one, its resolved path plus the file's identity (device,
 *   inode, size, modification time), so a database rebuilt at the same path is not confused with
 *   the old one;
 * - the SQL exactly as sent to the engine (after the policy's rewrites);
 * - the double-quote mode (`legacy` may rewrite `"x"` into a string, `strict` fails on it);
 * - the row cap (`result_too_large` under one cap is a result under another).
 *
 * Outcomes that depend on the moment rather than on these inputs are never kept: `timeout`,
 * `memory_limit` and `engine_failure` (a killed or crashed child), and `db_not_found` (the file
 * may appear). Such an entry is dropped when its run settles; callers already waiting share it.
 *
 * Values are promises, so concurrent items asking for the same gold share one execution. Tie-group
 * orderings derived from a cached gold result are cached beside it, per ordering rule.
 */
import path from 'node:path';
// Node's own timer, not the global one: a test that fakes `setImmediate` must not keep a
// snapshot's identity from being read again.
import { setImmediate as nextTurn } from 'node:timers';
import type { DoubleQuoteMode, ExecutionErrorCode, ExecutionOutcome } from '../engine/engine.js';
import { fileIdentity } from '../engine/sqlite/pinned-files.js';
import type { GoldOrdering } from './gold-ordering.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { BoundedMap } from '../bounded-map.js';

/** One cached gold execution. */
export interface CachedGoldRun {
  readonly outcome: Promise<ExecutionOutcome>;
  /** Orderings by rule key (`rowOrder|tieAware`). */
  readonly orderings: Map<string, Promise<GoldOrdering>>;
}

/** Everything a gold result depends on: the cache key. */
export interface GoldRunKey {
  readonly snapshot: Snapshot;
  /** The SQL exactly as it is sent to the engine. */
  readonly sql: string;
  /** The double-quote mode the engine runs it under. */
  readonly doubleQuotes: DoubleQuoteMode;
  /** The row cap it runs under; `undefined` for the engine's default. */
  readonly maxRows: number | undefined;
}

/**
 * Error codes that say something about the moment (a killed or crashed child, a file gone), not
 * about the snapshot or the SQL: an outcome with one is never kept by a cache of this run.
 */
export const TRANSIENT_ERROR_CODES: ReadonlySet<ExecutionErrorCode> = new Set(['timeout', 'memory_limit', 'engine_failure', 'db_not_found', 'db_unavailable']);

/**
 * A bounded cache of gold results (oldest entries evicted first). Keep one per runtime (one per
 * engine): the key does not name the engine.
 * @example
 * const cache = new GoldResultCache({ maxEntries: 1000 });
 * await checkExecution({ ..., cache });
 */
export class GoldResultCache {
  readonly #entries: BoundedMap<string, CachedGoldRun>;
  readonly maxEntries: number;
  /** Lookups served from the cache. */
  hits = 0;
  /** Lookups that had to execute. */
  misses = 0;

  /**
   * @param options.maxEntries - most gold results kept; integer ≥ 1, default 10 000.
   * @throws RangeError when `maxEntries` is not an integer ≥ 1.
   */
  constructor(options: { readonly maxEntries?: number } = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be an integer ≥ 1; received ${String(maxEntries)}`);
    }
    this.maxEntries = maxEntries;
    this.#entries = new BoundedMap(maxEntries);
  }

  /**
   * The cache key of a gold run (see the module doc for its parts).
   * @example
   * GoldResultCache.key({ snapshot: { name: 'base', path: 'a.sqlite', checksum: 'c1' }, sql: 'SELECT 1', doubleQuotes: 'legacy', maxRows: 100 })
   * // 'c1\u0000legacy\u0000100\u0000SELECT 1'
   */
  static key(key: GoldRunKey): string {
    return [snapshotIdentity(key.snapshot), key.doubleQuotes, key.maxRows === undefined ? 'default' : String(key.maxRows), key.sql].join('\u0000');
  }

  /** Returns the cached run, or starts `run()` and caches it (until it settles on a transient error). */
  getOrRun(key: GoldRunKey, run: () => Promise<ExecutionOutcome>): CachedGoldRun {
    const id = GoldResultCache.key(key);
    const found = this.#entries.get(id);
    if (found !== undefined) {
      this.hits += 1;
      return found;
    }
    this.misses += 1;
    const entry: CachedGoldRun = { outcome: run(), orderings: new Map() };
    this.#entries.set(id, entry);
    entry.outcome.then(
      (outcome) => {
        if (!outcome.ok && TRANSIENT_ERROR_CODES.has(outcome.error.code) && this.#entries.get(id) === entry) this.#entries.delete(id);
      },
      () => {
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
      },
    );
    return entry;
  }

  /** Number of cached entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Identities of snapshots without a checksum read in the current turn of the event loop, by path.
 * The items that finish in one turn (a batch of engine answers) share one `stat` per file instead
 * of one each: at Spider scale that `stat` was a tenth of the command line's own CPU. A file
 * replaced within the turn is seen on the next one, as a file replaced between the `stat` and the
 * statement always was.
 */
const identitiesThisTurn = new Map<string, string>();

/**
 * A snapshot's cache identity: the checksum, else `path:<resolved>@<dev>:<ino>:<size>:<mtimeNs>`
 * (just the path when the file cannot be read), read once per turn of the event loop. Also keys
 * the L6 cache (src/efficiency/efficiency-cache.ts).
 */
export function snapshotIdentity(snapshot: Snapshot): string {
  if (snapshot.checksum !== undefined) return snapshot.checksum;
  const found = identitiesThisTurn.get(snapshot.path);
  if (found !== undefined) return found;
  if (identitiesThisTurn.size === 0) nextTurn(() => identitiesThisTurn.clear()).unref();
  const identity = fileIdentityOf(snapshot.path);
  identitiesThisTurn.set(snapshot.path, identity);
  return identity;
}

/** `path:<resolved>@<dev>:<ino>:<size>:<mtimeNs>` of a file now, or `path:<resolved>` when it cannot be read. */
function fileIdentityOf(file: string): string {
  const resolved = path.resolve(file);
  const identity = fileIdentity(resolved);
  return identity === undefined ? `path:${resolved}` : `path:${resolved}@${identity}`;
}

/**
 * The ordering of a cached gold result under one rule, resolved once: concurrent and later callers
 * share it, except an ordering a failed tie query left unknown for a reason of the moment
 * (`transient`), which is dropped once it settles (like a gold timeout).
 *
 * @param orderings - the cached run's `orderings`.
 * @param rule - the rule key, `<rowOrder>|<tieAware>` (e.g. `gold-order-by|true`).
 */
export function cachedOrdering(orderings: Map<string, Promise<GoldOrdering>>, rule: string, resolve: () => Promise<GoldOrdering>): Promise<GoldOrdering> {
  const found = orderings.get(rule);
  if (found !== undefined) return found;
  const pending = resolve();
  orderings.set(rule, pending);
  const forget = (): void => {
    if (orderings.get(rule) === pending) orderings.delete(rule);
  };
  pending.then((ordering) => (ordering.transient === true ? forget() : undefined), forget);
  return pending;
}
