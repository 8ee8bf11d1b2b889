import { utimesSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog, Engine } from '../../src/engine/engine.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { CatalogCache, withCachedCatalogs } from '../../src/runtime/catalog-cache.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

let engine: Engine;
let database: TempSqlite;
let other: TempSqlite;

beforeAll(() => {
  engine = createSqliteEngine({ poolSize: 1 });
  database = createTempSqlite('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);');
  other = createTempSqlite('CREATE TABLE u (k TEXT);');
});
afterAll(async () => {
  await engine.close();
  database.remove();
  other.remove();
});

/** The engine with its catalog reads counted (and, when `fail` says so, failing). */
function counting(inner: Engine, fail: () => boolean = () => false): { engine: Engine; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    engine: { ...inner, dialect: inner.dialect, execute: (r) => inner.execute(r), prepare: (r) => inner.prepare(r), explain: (r) => inner.explain(r), close: async () => undefined, catalog: (db) => ((reads += 1), fail() ? Promise.reject(new Error('child died')) : inner.catalog(db)) },
  };
}

const names = (catalog: Catalog): string[] => catalog.tables.map((table) => `${table.name}(${table.columns.map((column) => column.name).join(',')})`);

describe('CatalogCache', () => {
  it('reads a database once; later and concurrent callers get the same catalog', async () => {
    const cache = new CatalogCache();
    const watched = counting(engine);
    const [first, concurrent] = await Promise.all([cache.catalog(watched.engine, database.file), cache.catalog(watched.engine, database.file)]);
    const later = await cache.catalog(watched.engine, database.file);
    expect(names(first)).toEqual(['t(id,name)']);
    expect(concurrent).toBe(first);
    expect(later).toBe(first);
    expect(watched.reads()).toBe(1);
    expect(names(await cache.catalog(watched.engine, other.file))).toEqual(['u(k)']);
    expect([watched.reads(), cache.reads]).toEqual([2, 2]);
  });

  it('reads a database again once its file changed (rebuilt at the same path)', async () => {
    const cache = new CatalogCache();
    const watched = counting(engine);
    await cache.catalog(watched.engine, other.file);
    utimesSync(other.file, new Date(), new Date(Date.now() + 5_000));
    await cache.catalog(watched.engine, other.file).catch(() => undefined);
    expect(watched.reads()).toBe(2);
  });

  it('keeps no failed read: the next caller asks the engine again', async () => {
    const cache = new CatalogCache();
    let failing = true;
    const watched = counting(engine, () => failing);
    await expect(cache.catalog(watched.engine, database.file)).rejects.toThrow('child died');
    failing = false;
    expect(names(await cache.catalog(watched.engine, database.file))).toEqual(['t(id,name)']);
    expect(watched.reads()).toBe(2);
  });

  it('keeps at most maxEntries catalogs, dropping the oldest; rejects a bad size', async () => {
    const cache = new CatalogCache({ maxEntries: 1 });
    const watched = counting(engine);
    await cache.catalog(watched.engine, database.file);
    await cache.catalog(watched.engine, other.file);
    await cache.catalog(watched.engine, database.file);
    expect(watched.reads()).toBe(3);
    expect(() => new CatalogCache({ maxEntries: 0 })).toThrow('maxEntries must be an integer ≥ 1; received 0');
  });
});

describe('withCachedCatalogs', () => {
  it('answers catalog through the cache and passes every other call and the options through', async () => {
    const cache = new CatalogCache();
    const watched = counting(engine);
    const withOptions = { ...watched.engine, options: { doubleQuotes: 'legacy' } } as Engine;
    const view = withCachedCatalogs(withOptions, cache);
    await view.catalog(database.file);
    await view.catalog(database.file);
    expect(watched.reads()).toBe(1);
    expect((view as { options?: unknown }).options).toEqual({ doubleQuotes: 'legacy' });
    const outcome = await view.execute({ db: database.file, sql: 'SELECT count(*) FROM t' });
    expect(outcome.ok && outcome.result.rows).toEqual([[0]]);
  });
});
