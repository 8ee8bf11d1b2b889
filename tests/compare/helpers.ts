import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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


/** A fresh temporary folder (under the OS temp dir). */
export function tempDir(prefix = 'ladder-compare-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Creates a SQLite file at `file` from a SQL script and returns its path. */
export function makeDb(file: string, script: string): string {
  const db = new Database(file);
  db.exec(script);
  db.close();
  return file;
}
