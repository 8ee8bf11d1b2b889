/**
 * One way for tests to make a throw-away SQLite database: a fresh temporary folder (never in the
 * repository, never in the shared data folder) holding one database built from a SQL script.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/** A built temporary database and its folder. */
export interface TempSqlite {
  /** Folder that holds only the database (and whatever a test writes there). */
  readonly dir: string;
  /** Absolute path of the database file. */
  readonly file: string;
  /** Removes the folder and everything in it. */
  remove(): void;
}

/**
 * Builds a database from `script` in a new temporary folder.
 * @param script - SQL run with `exec` (several statements allowed).
 * @param options.prefix - temporary folder name prefix (default `ladder-test-`).
 * @param options.name - database file name (default `test.sqlite`).
 */
export function createTempSqlite(script: string, options: { prefix?: string; name?: string } = {}): TempSqlite {
  const dir = mkdtempSync(path.join(os.tmpdir(), options.prefix ?? 'ladder-test-'));
  const file = path.join(dir, options.name ?? 'test.sqlite');
  const db = new Database(file);
  try {
    db.exec(script);
  } finally {
    db.close();
  }
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
