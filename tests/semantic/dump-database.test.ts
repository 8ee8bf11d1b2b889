import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../../src/semantic/generation/dump-database.js';
import { generateDatabase } from '../../src/semantic/generation/generate-database.js';
import { createGeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { createPrng } from '../../src/semantic/model/prng.js';
import { readSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { CONSTRAINT_SCHEMA } from './schema-sql.js';

let temp: TempSqlite;
beforeAll(() => {
  temp = createTempSqlite(`CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n, g TEXT GENERATED ALWAYS AS (s || '!') VIRTUAL);
    INSERT INTO t (i, r, s, b, n) VALUES (5, 5.0, 'O''Neil', X'00ff', NULL), (9007199254740993, -0.1, '5', NULL, 7.5);
    CREATE VIEW v AS SELECT i FROM t;`, { prefix: 'ladder-dump-' });
});
afterAll(() => temp.remove());

function contents(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return db.prepare('SELECT i, typeof(i), r, typeof(r), s, typeof(s), b, typeof(b), n, typeof(n), g FROM t ORDER BY rowid').raw(true).all();
  } finally {
    db.close();
  }
}

describe('dumpDatabase', () => {
  it('writes the schema and every row with its storage class, generated columns left to SQLite', () => {
    expect(dumpDatabase(temp.file)).toBe(
      [
        'PRAGMA foreign_keys = OFF;',
        "CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n, g TEXT GENERATED ALWAYS AS (s || '!') VIRTUAL);",
        `INSERT INTO "t" ("i", "r", "s", "b", "n") VALUES (5, 5.0, 'O''Neil', X'00FF', NULL);`,
        `INSERT INTO "t" ("i", "r", "s", "b", "n") VALUES (9007199254740993, -0.1, '5', NULL, 7.5);`,
        'CREATE VIEW v AS SELECT i FROM t;',
        '',
      ].join('\n'),
    );
  });

  it('round-trips a generated database exactly', () => {
    const source = createTempSqlite(CONSTRAINT_SCHEMA, { prefix: 'ladder-dump-gen-' });
    try {
      const schema = readSchema(source.file);
      const file = path.join(source.dir, 'gen.sqlite');
      expect(generateDatabase(createGeneratorPlan({ schema, snapshots: [source.file] }), { rng: createPrng('dump'), file, rows: { min: 3, max: 6 } }).ok).toBe(true);
      const copy = createTempSqlite(dumpDatabase(file), { prefix: 'ladder-dump-copy-' });
      try {
        for (const table of ['dept', 'emp', 'project', 'assignment', 'audit']) {
          const read = (f: string): unknown[] => {
            const db = new Database(f, { readonly: true });
            db.defaultSafeIntegers(true);
            try {
              return db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).raw(true).all();
            } finally {
              db.close();
            }
          };
          expect(read(copy.file), table).toEqual(read(file));
        }
      } finally {
        copy.remove();
      }
    } finally {
      source.remove();
    }
  });

  it('keeps values exact through a second SQLite', () => {
    const copy = createTempSqlite(dumpDatabase(temp.file), { prefix: 'ladder-dump-again-' });
    try {
      expect(contents(copy.file)).toEqual(contents(temp.file));
    } finally {
      copy.remove();
    }
  });
});
