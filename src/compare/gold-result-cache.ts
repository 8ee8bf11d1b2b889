/**
 * Cache of gold executions keyed by (snapshot checksum — or path when there is none —, gold SQL as
 * run). Values are promises, so concurrent items asking for the same gold share one execution.
 * Tie-group orderings derived from a cached gold result are cached beside it, per ordering rule.
 */
import path from 'node:path';
import type { ExecutionOutcome } from '../engine/engine.js';
import type { GoldOrdering } from './gold-ordering.js';
import type { Snapshot } from './snapshot.js';

/** One cached gold execution. */
export interface CachedGoldRun {
  readonly outcome: Promise<ExecutionOutcome>;
  /** Orderings by rule key (`rowOrder|tieAware`). */
  readonly orderings: Map<string, Promise<GoldOrdering>>;
}

/**
 * A bounded cache of gold results (oldest entries evicted first).
 * @example
 * const cache = new GoldResultCache({ maxEntries: 1000 });
 * await checkExecution({ ..., cache });
 */
export class GoldResultCache {
  readonly #entries = new Map<string, CachedGoldRun>();
  readonly maxEntries: number;
  /** Lookups served from the cache. */
  hits = 0;
  /** Lookups that had to execute. */
  misses = 0;

  /**
   * @param options.maxEntries - most (snapshot, gold) results kept; integer ≥ 1, default 10 000.
   * @throws RangeError when `maxEntries` is not an integer ≥ 1.
   */
  constructor(options: { readonly maxEntries?: number } = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be an integer ≥ 1; received ${String(maxEntries)}`);
    }
    this.maxEntries = maxEntries;
  }

  /** The cache key of a (snapshot, gold SQL) pair. */
  static key(snapshot: Snapshot, goldSql: string): string {
    const identity = snapshot.checksum ?? `path:${path.resolve(snapshot.path)}`;
    return `${identity}\u0000${goldSql.trim()}`;
  }

  /** Returns the cached run, or starts `run()` and caches it. */
  getOrRun(snapshot: Snapshot, goldSql: string, run: () => Promise<ExecutionOutcome>): CachedGoldRun {
    const key = GoldResultCache.key(snapshot, goldSql);
    const found = this.#entries.get(key);
    if (found !== undefined) {
      this.hits += 1;
      return found;
    }
    this.misses += 1;
    const entry: CachedGoldRun = { outcome: run(), orderings: new Map() };
    this.#entries.set(key, entry);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
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
