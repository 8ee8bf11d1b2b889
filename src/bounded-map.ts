/**
 * A `Map` that holds at most `limit` entries: setting one more drops the oldest (the first in the
 * map's order). With `refreshOnRead`, a `get` that finds its key moves it to the end, so the entry
 * dropped is the least recently used; without, it is the least recently set. Every memo and cache
 * of the ladder that keeps "the last N" of something is one of these. An `onEvict` callback
 * releases what an entry holds (a connection, a file) when it is dropped for room.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;
  readonly #refreshOnRead: boolean;
  readonly #onEvict: ((key: K, value: V) => void) | undefined;

  /**
   * @param limit - most entries kept; an integer ≥ 1.
   * @param options.refreshOnRead - a hit moves its entry to the newest place (default false).
   * @param options.onEvict - called with each entry `set` drops for room (not for `delete`, `clear`
   *   or a value replaced under its own key), after it left the map.
   * @throws RangeError when `limit` is not an integer ≥ 1.
   */
  constructor(limit: number, options: { readonly refreshOnRead?: boolean; readonly onEvict?: (key: K, value: V) => void } = {}) {
    super();
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer ≥ 1; received ${String(limit)}`);
    this.limit = limit;
    this.#refreshOnRead = options.refreshOnRead === true;
    this.#onEvict = options.onEvict;
  }

  /** The value for `key` (`undefined` when absent); with `refreshOnRead`, a hit becomes the newest entry. */
  override get(key: K): V | undefined {
    if (!this.#refreshOnRead || !super.has(key)) return super.get(key);
    const value = super.get(key) as V;
    super.delete(key);
    super.set(key, value);
    return value;
  }

  /** Sets `key` as the newest entry, then drops the oldest while more than `limit` are held. */
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.limit) {
      const [oldestKey, oldestValue] = super.entries().next().value as [K, V];
      super.delete(oldestKey);
      this.#onEvict?.(oldestKey, oldestValue);
    }
    return this;
  }
}
