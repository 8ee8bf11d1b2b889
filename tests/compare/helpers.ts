import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { Cell, QueryResult } from '../../src/engine/engine.js';

/** A QueryResult from rows (column names default to c0, c1, …). */
export function result(rows: readonly (readonly Cell[])[], columns?: readonly string[]): QueryResult {
  const width = columns?.length ?? rows[0]?.length ?? 1;
  return {
    columns: columns ?? Array.from({ length: width }, (_, i) => `c${i}`),
    rows,
    doubleQuoteFallback: false,
    executedSql: '',
    elapsedMs: 0,
  };
}


/** Folders made by {@link tempDir} in this test file. */
const madeHere: string[] = [];
// Registered when a test file imports this module: its folders go when its tests are done.
afterAll(() => {
  for (const dir of madeHere.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder (under the OS temp dir), removed after the test file's tests. */
export function tempDir(prefix = 'ladder-compare-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  madeHere.push(dir);
  return dir;
}

/** Creates a SQLite file at `file` from a SQL script and returns its path. */
export function makeDb(file: string, script: string): string {
  const db = new Database(file);
  db.exec(script);
  db.close();
  return file;
}
