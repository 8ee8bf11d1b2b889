/**
 * Database catalogs (tables, views and their columns, `Engine.catalog`) read once per file instead
 * of once per check. L2 reads the catalog of the item's first snapshot on every row; each read is a
 * round trip to an engine child (a query of `sqlite_schema` and one `pragma_table_info` per table,
 * and the whole catalog copied back), the same answer for every row of a run.
 *
 * A catalog is keyed by the engine's dialect and the file's identity (`snapshotIdentity`: the
 * resolved path with its device, inode, size and modification time), so a database rebuilt or
 * replaced at the same path is read again, and the engine then applies its own checks to it (a
 * SQLite engine refuses a file that changed under it). A failed read is never kept: the next
 * caller asks the engine again. Callers share one read while it is under way.
 */
import { snapshotIdentity } from '../compare/gold-result-cache.js';
import type { Catalog, Engine } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { BoundedMap } from '../bounded-map.js';

/** Options of {@link CatalogCache}. */
export interface CatalogCacheOptions {
  /** Most catalogs kept, the oldest dropped first (default {@link DEFAULT_MAX_CATALOGS}). */
  readonly maxEntries?: number;
}

/** Default of {@link CatalogCacheOptions.maxEntries}: far more databases than a run grades. */
export const DEFAULT_MAX_CATALOGS = 64;

/** Catalogs per (dialect, database file identity); see the module doc. */
export class CatalogCache {
  readonly #entries: BoundedMap<string, Promise<Catalog>>;
  #reads = 0;

  /** @throws LadderError `invalid_option` when `maxEntries` is not an integer ≥ 1. */
  constructor(options: CatalogCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_CATALOGS;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new LadderError('invalid_option', `maxEntries must be an integer ≥ 1; received ${String(maxEntries)}`);
    this.#entries = new BoundedMap(maxEntries);
  }

  /**
   * `engine.catalog(db)`, read once per (dialect, file identity).
   * @param engine - the engine that reads it on a miss.
   * @param db - the database path, as the engine takes it.
   * @returns the catalog (the same object for every caller: treat it as read-only).
   * @throws whatever `engine.catalog` throws (LadderError `db_not_found`, `engine_failure`); nothing
   *   is kept then.
   */
  catalog(engine: Engine, db: string): Promise<Catalog> {
    const key = `${engine.dialect}\u0000${snapshotIdentity({ name: '', path: db })}`;
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    this.#reads += 1;
    const reading = engine.catalog(db);
    this.#entries.set(key, reading);
    reading.catch(() => {
      if (this.#entries.get(key) === reading) this.#entries.delete(key);
    });
    return reading;
  }

  /** Catalog reads sent to an engine so far (misses). */
  get reads(): number {
    return this.#reads;
  }
}

/**
 * An engine view whose `catalog` is answered through `cache`; every other call, and the engine's
 * `options` (its defaults, which rungs read), are the engine's own. `close()` closes the engine.
 */
export function withCachedCatalogs(engine: Engine, cache: CatalogCache): Engine {
  const options = (engine as { readonly options?: object }).options;
  return {
    dialect: engine.dialect,
    ...(options === undefined ? {} : { options }),
    execute: (request) => engine.execute(request),
    prepare: (request) => engine.prepare(request),
    explain: (request) => engine.explain(request),
    catalog: (db) => cache.catalog(engine, db),
    close: () => engine.close(),
  };
}
