/**
 * SQLite's scratch databases (src/semantic/scratch/): create, load rows, read back, save, open,
 * copy; integers as bigint unless asked otherwise; statements reused when asked.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteScratch } from '../../src/semantic/scratch/sqlite-scratch.js';
import { createTempSqlite } from '../helpers/temp-sqlite.js';

const source = createTempSqlite("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');", { prefix: 'ladder-scratch-' });
afterAll(() => source.remove());

describe('sqliteScratch', () => {
  it('creates an empty database, loads rows and reads them back in every row shape', () => {
    const db = sqliteScratch.create();
    try {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
      const insert = db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
      expect(insert.run(7n, 'x')).toEqual({ changes: 1, lastInsertRowid: 7n });
      expect(insert.run(8n, 'y')).toEqual({ changes: 1, lastInsertRowid: 8n });
      const select = db.prepare('SELECT id, name FROM t ORDER BY id');
      expect(select.rows()).toEqual([[7n, 'x'], [8n, 'y']]);
      expect(select.column()).toEqual([7n, 8n]);
      expect(select.records()).toEqual([{ id: 7n, name: 'x' }, { id: 8n, name: 'y' }]);
      expect(select.row()).toEqual([7n, 'x']);
      expect(select.value()).toBe(7n);
      expect(db.prepare('SELECT id FROM t WHERE id = ?').value(9n)).toBeUndefined();
      expect(db.prepare('DELETE FROM t WHERE id > ?').run(7n)).toEqual({ changes: 1, lastInsertRowid: 8n });
    } finally {
      db.close();
    }
  });

  it('does not enforce foreign keys on a created database, and reuses statements only when asked', () => {
    const db = sqliteScratch.create({ reuseStatements: true });
    const plain = sqliteScratch.create();
    try {
      db.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id))');
      expect(db.prepare('INSERT INTO c VALUES (?)').run(5n).changes).toBe(1);
      expect(db.prepare('PRAGMA foreign_key_check').rows()).toEqual([['c', 1n, 'p', 0n]]);
      expect(db.prepare('SELECT 1')).toBe(db.prepare('SELECT 1'));
      expect(plain.prepare('SELECT 1')).not.toBe(plain.prepare('SELECT 1'));
    } finally {
      db.close();
      plain.close();
    }
  });

  it('calls a defined function with any number of arguments', () => {
    const db = sqliteScratch.create();
    try {
      let next = 0n;
      db.defineFunction('ladder_next', () => (next += 1n));
      expect(db.prepare('SELECT ladder_next(), ladder_next(1, 2)').row()).toEqual([1n, 2n]);
    } finally {
      db.close();
    }
  });

  it('saves a database to a file that opens read-only with the same rows, integers as numbers when asked', () => {
    const file = path.join(source.dir, 'saved.sqlite');
    const db = sqliteScratch.create();
    try {
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (3, 'c')");
      db.saveTo(file);
    } finally {
      db.close();
    }
    const read = sqliteScratch.open(file, { integers: 'number' });
    try {
      expect(read.prepare('SELECT id, name FROM t').records()).toEqual([{ id: 3, name: 'c' }]);
      expect(() => read.prepare('DELETE FROM t').run()).toThrow('attempt to write a readonly database');
    } finally {
      read.close();
      read.close();
    }
  });

  it('copies a file into a writable database and leaves the file unchanged', () => {
    const before = readFileSync(source.file);
    const copy = sqliteScratch.copyOf(source.file);
    try {
      expect(copy.prepare('DELETE FROM t WHERE id = 1').run().changes).toBe(1);
      expect(copy.prepare('SELECT id FROM t').column()).toEqual([2n]);
    } finally {
      copy.close();
    }
    expect(readFileSync(source.file).equals(before)).toBe(true);
  });

  it('throws the driver error for a file that does not exist', () => {
    const missing = path.join(source.dir, 'missing.sqlite');
    expect(() => sqliteScratch.open(missing)).toThrow('unable to open database file');
    expect(() => sqliteScratch.copyOf(missing)).toThrow('unable to open database file');
  });
});
