/**
 * The scratch databases L5 builds and reads: SQLite's, since L5 runs on SQLite items only (its
 * test-suite and counterexample databases are SQLite files; semantic-rung.ts skips the others).
 * The one place that picks the implementation; every stage uses {@link scratch}.
 */
import type { ScratchDatabases } from './scratch-database.js';
import { sqliteScratch } from './sqlite-scratch.js';

/** The scratch databases of L5's engine. */
export const scratch: ScratchDatabases = sqliteScratch;
