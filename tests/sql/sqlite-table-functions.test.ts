import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isSqliteTableFunction, SQLITE_OTHER_TABLE_FUNCTIONS, SQLITE_PRAGMA_TABLE_FUNCTIONS } from '../../src/sql/sqlite-table-functions.js';

describe('the table-valued functions of the bundled SQLite', () => {
  it('are exactly the pragmas that prepare as pragma_<name>, plus the listed eponymous tables', () => {
    const db = new Database(':memory:');
    try {
      const pragmas = (db.prepare('SELECT name FROM pragma_pragma_list ORDER BY name').pluck().all() as string[]).filter((name) => {
        try {
          db.prepare(`SELECT * FROM pragma_${name}`);
          return true;
        } catch {
          return false;
        }
      });
      expect(pragmas).toEqual(SQLITE_PRAGMA_TABLE_FUNCTIONS);
      for (const name of SQLITE_OTHER_TABLE_FUNCTIONS) expect(() => db.prepare(`SELECT * FROM ${name}`), name).not.toThrow();
      for (const name of ['generate_series', 'pragma_nosuchthing', 'carray', 'sqlite_dbpage']) expect(() => db.prepare(`SELECT * FROM ${name}`), name).toThrow(`no such table: ${name}`);
    } finally {
      db.close();
    }
  });

  it.each([
    ['json_each', true],
    ['main.JSON_EACH', true],
    ['pragma_table_info', true],
    ['pragma_nosuchthing', false],
    ['generate_series', false],
  ])('%s → %s', (name, known) => {
    expect(isSqliteTableFunction(name)).toBe(known);
  });
});
