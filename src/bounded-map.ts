/**
 * A `Map` that holds at most `limit` entries: setting one more drops the oldest (the first in the
 * map's order). With `refreshOnRead`, a `get` that finds its key moves it to the end, so the entry
 * dropped is the least recently used; without, it is the least recently set. Every memo and cache
 * of the ladder that keeps "the last N" of something is one of these.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;
  readonly #refreshOnRead: boolean;

  /**
   * @param limit - most entries kept; an integer ≥ 1.
   * @param options.refreshOnRead - a hit moves its entry to the newest place (default false).
   * @throws RangeError when `limit` is not an integer ≥ 1.
   */
  constructor(limit: number, options: { readonly refreshOnRead?: boolean } = {}) {
    super();
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer ≥ 1; received ${String(limit)}`);
    this.limit = limit;
    this.#refreshOnRead = options.refreshOnRead === true;
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
    while (this.size > this.limit) super.delete(super.keys().next().value as K);
    return this;
  }
}
