/**
 * Snapshots of a Spider database: every `DBDIR/<db_id>/*.sqlite` file, as the official test-suite
 * evaluator runs every database file in the folder of `<db_id>.sqlite` (exec_eval.py
 * `eval_exec_match`). Differences, on purpose: only names ending in `.sqlite` count (the official
 * substring test `'.sqlite' in basename` would also pick `x.sqlite-journal`), and the order is
 * fixed: `<db_id>.sqlite` first, then the others by name.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { LadderError } from '../../errors.js';
import { snapshotOfFile, type Snapshot } from '../../fixtures/snapshot.js';
import { hashUserFileAsync } from '../../files/user-file.js';

/** Options of {@link listSnapshots}. */
export interface ListSnapshotsOptions {
  /** Compute a sha256 checksum of each file (reads every byte; default false: the cache keys on paths). */
  readonly checksums?: boolean;
}

/**
 * Lists the snapshots of one database.
 * @param dbDir - the folder holding one sub-folder per db_id.
 * @param dbId - the database id (must be a plain folder name).
 * @returns snapshots named after their file without `.sqlite`.
 * @throws LadderError `db_not_found` when the folder does not exist or holds no `.sqlite` file;
 *   `invalid_option` when `dbId` is empty or contains a path separator.
 */
export async function listSnapshots(dbDir: string, dbId: string, options: ListSnapshotsOptions = {}): Promise<Snapshot[]> {
  if (typeof dbId !== 'string' || dbId === '' || dbId.includes('/') || dbId.includes('\\') || dbId === '.' || dbId === '..') {
    throw new LadderError('invalid_option', `db_id must be a plain folder name; received ${JSON.stringify(dbId)}`);
  }
  const folder = path.join(dbDir, dbId);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    throw new LadderError('db_not_found', `unknown db_id ${JSON.stringify(dbId)}: no folder ${folder}`);
  }
  const files = names.filter((name) => name.endsWith('.sqlite'));
  if (files.length === 0) throw new LadderError('db_not_found', `unknown db_id ${JSON.stringify(dbId)}: no .sqlite file in ${folder}`);
  const main = `${dbId}.sqlite`;
  files.sort((a, b) => (a === main ? -1 : b === main ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(
    files.map(async (file) => {
      const full = path.join(folder, file);
      const snapshot: Snapshot = snapshotOfFile(full);
      if (!options.checksums) return snapshot;
      const checksum = await hashUserFileAsync(full, { what: 'database', code: 'db_not_found' });
      return { ...snapshot, checksum };
    }),
  );
}
