/**
 * SQLite's scratch databases (the interface: scratch-database.ts), on better-sqlite3: the only
 * module of src/semantic/ that uses the driver.
 *
 * Settings, and why:
 * - created databases live in memory with 4 096-byte pages and foreign keys off: the generator
 *   orders its writes itself and checks the keys at the end (`PRAGMA foreign_key_check`), and the
 *   page size fixes the bytes `VACUUM INTO` writes, whatever the library's default;
 * - opened files are read-only and query-only;
 * - a copy is the file's bytes (`serialize`) in a new in-memory connection;
 * - saving is `VACUUM INTO` with `synchronous = OFF` (no fsync: the same bytes, about half the time);
 * - integers are `bigint` by default (`defaultSafeIntegers`): SQLite's INTEGER is 64-bit.
 * Every error is the driver's (`SqliteError` with its `code`), thrown unchanged.
 */
import Database from 'better-sqlite3';
import type { CreateScratchOptions, ScratchDatabase, ScratchDatabases, ScratchIntegers, ScratchRunInfo, ScratchStatement } from './scratch-database.js';

/** A better-sqlite3 statement behind the interface; the row shape is switched only when it changes. */
function wrapStatement(statement: Database.Statement): ScratchStatement {
  let mode: 'objects' | 'raw' | 'pluck' = 'objects';
  const as = (wanted: typeof mode): Database.Statement => {
    if (wanted !== mode) {
      if (wanted === 'raw') statement.raw(true);
      else if (wanted === 'pluck') statement.pluck(true);
      else statement.raw(false).pluck(false);
      mode = wanted;
    }
    return statement;
  };
  return {
    run(...params): ScratchRunInfo {
      const info = statement.run(...params);
      return { changes: info.changes, lastInsertRowid: BigInt(info.lastInsertRowid) };
    },
    rows: (...params) => as('raw').all(...params) as unknown[][],
    row: (...params) => as('raw').get(...params) as unknown[] | undefined,
    column: (...params) => as('pluck').all(...params),
    value: (...params) => as('pluck').get(...params),
    records: <T>(...params: readonly unknown[]) => as('objects').all(...params) as T[],
  };
}

/** A better-sqlite3 connection behind the interface. */
function wrapDatabase(db: Database.Database, reuseStatements = false): ScratchDatabase {
  const compiled = new Map<string, ScratchStatement>();
  return {
    prepare(sql) {
      if (!reuseStatements) return wrapStatement(db.prepare(sql));
      let statement = compiled.get(sql);
      if (statement === undefined) compiled.set(sql, (statement = wrapStatement(db.prepare(sql))));
      return statement;
    },
    exec(sql) {
      db.exec(sql);
    },
    defineFunction(name, value) {
      db.function(name, { deterministic: false, varargs: true, safeIntegers: true }, value);
    },
    saveTo(file) {
      db.pragma('synchronous = OFF');
      db.prepare('VACUUM INTO ?').run(file);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/** Sets how integers come back (`bigint` unless `number` is asked for). */
function withIntegers(db: Database.Database, integers: ScratchIntegers | undefined): Database.Database {
  if ((integers ?? 'bigint') === 'bigint') db.defaultSafeIntegers(true);
  return db;
}

/** SQLite's scratch databases. */
export const sqliteScratch: ScratchDatabases = {
  create(options: CreateScratchOptions = {}) {
    const db = new Database(':memory:');
    try {
      withIntegers(db, options.integers);
      db.pragma('page_size = 4096');
      db.pragma('foreign_keys = OFF');
    } catch (error) {
      db.close();
      throw error;
    }
    return wrapDatabase(db, options.reuseStatements === true);
  },
  open(file, options = {}) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      withIntegers(db, options.integers);
      db.pragma('query_only = 1');
    } catch (error) {
      db.close();
      throw error;
    }
    return wrapDatabase(db);
  },
  copyOf(file, options = {}) {
    const reader = new Database(file, { readonly: true, fileMustExist: true });
    let image: Buffer;
    try {
      image = reader.serialize();
    } finally {
      reader.close();
    }
    const db = new Database(image);
    try {
      withIntegers(db, options.integers);
      db.pragma(`foreign_keys = ${options.foreignKeys === true ? 'ON' : 'OFF'}`);
    } catch (error) {
      db.close();
      throw error;
    }
    return wrapDatabase(db);
  },
};
