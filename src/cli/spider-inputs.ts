/**
 * The `spider` command's input checks, run before anything is scored: the `--db` folder layout
 * (with hints for a folder one level off), the snapshot files, `--tables`, the `--out` folder, the
 * gold file's format and the gold / prediction alignment. Each failure is one `LadderError` that
 * names the flag, the file and what was found.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isLadderError, LadderError } from '../errors.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import { POSTGRES_SCRIPT_ENDING, postgresScripts } from '../benchmarks/spider/postgres-snapshots.js';
import type { SpiderGoldItem, SpiderPrediction } from '../benchmarks/spider/read-spider-files.js';
import { checkSqliteFile } from '../fixtures/sqlite-file.js';
import { readUserTextAsync } from '../files/user-file.js';

/**
 * Checks `--db` before the run: the folder must exist, and at least one db_id of the gold must
 * resolve to `DBDIR/<db_id>/*.sqlite` (PostgreSQL: `*.sql` scripts) (a folder one level too deep, such as
 * `database/concert_singer`, resolves none and would otherwise give an all-unknown run).
 * @throws LadderError `db_not_found` naming `--db`, the folder, what it contains and the expected layout.
 */
export async function checkDbDir(dbDir: string, gold: readonly SpiderGoldItem[], dialect: 'sqlite' | 'postgres' = 'sqlite'): Promise<void> {
  const ending = dialect === 'postgres' ? POSTGRES_SCRIPT_ENDING : '.sqlite';
  const layout = `a database folder DBDIR with one sub-folder per db_id, DBDIR/<db_id>/*${ending}${dialect === 'postgres' ? ' (PostgreSQL scripts)' : ''}`;
  let entries: Dirent[];
  try {
    entries = await readdir(dbDir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'which does not exist' : code === 'ENOTDIR' ? 'which is not a folder' : `which cannot be read (${(error as Error).message})`;
    throw new LadderError('db_not_found', `--db: expected ${layout}; received ${dbDir}, ${why}`, { cause: error });
  }
  const dbIds = [...new Set(gold.flatMap((item) => (item.error === undefined ? [item.dbId] : [])))];
  if (dbIds.length === 0) return;
  const resolves = async (dbId: string): Promise<boolean> =>
    dialect === 'postgres'
      ? (await postgresScripts(dbDir, dbId)).length > 0
      : listSnapshots(dbDir, dbId).then(
      () => true,
      (error: unknown) => {
        if (isLadderError(error)) return false;
        throw error;
      },
    );
  if ((await Promise.all(dbIds.map(resolves))).some(Boolean)) {
    if (dialect === 'sqlite') await checkSnapshotFiles(dbDir, dbIds);
    return;
  }
  const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = names.length === 0 ? 'nothing (empty folder)' : names.slice(0, 10).join(', ') + (names.length > 10 ? `, … (${names.length - 10} more)` : '');
  const none = dbIds.length === 1 ? `the gold's only db_id, ${JSON.stringify(dbIds[0])}, has no snapshot` : `none of the gold's ${dbIds.length} db_ids (${JSON.stringify(dbIds[0])}, …) has a snapshot`;
  let message = `--db: ${none} in ${dbDir}\n`;
  message += `  expected ${layout}, e.g. ${path.resolve(dbDir, dbIds[0]!, `${dbIds[0]}${ending}`)}\n`;
  message += `  received ${dbDir}, which contains: ${shown}`;
  if (names.some((name) => name.endsWith(ending))) message += `\n  hint: it holds ${ending} files itself; --db is probably its parent folder, ${path.dirname(path.resolve(dbDir))}`;
  else if (names.includes('database/')) message += `\n  hint: --db is probably its database/ sub-folder, ${path.resolve(dbDir, 'database')}`;
  throw new LadderError('db_not_found', message);
}

export async function readTables(file: string): Promise<Set<string>> {
  let data: unknown;
  try {
    data = JSON.parse(await readUserTextAsync(file, { what: 'tables file' }));
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw new LadderError('input_invalid', `cannot read tables file ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(data)) throw new LadderError('input_invalid', `${file}: expected a JSON array of schemas with "db_id"`);
  return new Set(data.flatMap((entry) => (typeof entry === 'object' && entry !== null && typeof (entry as { db_id?: unknown }).db_id === 'string' ? [(entry as { db_id: string }).db_id] : [])));
}

/**
 * `--out` is created, its folder is not: a missing folder is misuse, found before the run (not as
 * an ENOENT after it).
 * @throws LadderError `invalid_option` naming `--out` and the folder.
 */
export async function checkOutFolder(out: string): Promise<void> {
  const folder = path.dirname(path.resolve(out));
  const found = await stat(folder).catch(() => undefined);
  if (found === undefined) throw new LadderError('invalid_option', `--out: the folder ${folder} does not exist (the file is created, its folder is not); received ${out}`);
  if (!found.isDirectory()) throw new LadderError('invalid_option', `--out: ${folder} is not a folder; received ${out}`);
}

/**
 * Whole-file problems of the gold file are misuse: no item at all, JSON (Spider's `dev.json` is the
 * usual mistake: the gold file is `dev_gold.sql`), or not one line in the `sql<TAB>db_id` format.
 * @throws LadderError `input_invalid` naming `--gold`, the file and what was found.
 */
export async function checkGoldFile(file: string, gold: readonly SpiderGoldItem[]): Promise<void> {
  const expected = 'one "sql<TAB>db_id" per line (Spider\'s dev_gold.sql)';
  if (gold.length === 0) throw new LadderError('input_invalid', `--gold: ${file} holds no item (no non-blank line); expected ${expected}`);
  if (gold.some((item) => item.error === undefined)) return;
  const text = await readUserTextAsync(file, { what: 'gold file', prefix: '--gold: ' });
  const start = text.trimStart()[0];
  if (start === '[' || start === '{') {
    throw new LadderError('input_invalid', `--gold: ${file} is JSON (Spider's dev.json?); expected ${expected}`);
  }
  throw new LadderError('input_invalid', `--gold: no line of ${file} is "sql<TAB>db_id" (${gold[0]!.error ?? 'no tab'}); expected ${expected}`);
}

/**
 * A prediction line that names a db_id (`sql<TAB>db_id`) must name its gold item's: one that does
 * not means the two files are not aligned, and every verdict after it would be wrong. An empty
 * prediction file (no line at all) for a gold with items is misuse too: scoring it would print
 * 0.000 for a run that was lost.
 * @throws LadderError `input_invalid` naming both `file:line`s and the count of such lines, or the empty file.
 */
export function checkAligned(goldFile: string, predFile: string, gold: readonly SpiderGoldItem[], predictions: readonly SpiderPrediction[]): void {
  // An empty prediction file is a lost run, not a model that answered nothing (that would be blank lines).
  if (predictions.length === 0 && gold.length > 0) {
    throw new LadderError('input_invalid', `--pred: ${predFile} is empty: no prediction line for the ${gold.length} gold items of ${goldFile} (a model that answered nothing has one blank line per item)`);
  }
  const mismatched = gold.flatMap((item, index) => {
    const prediction = predictions[index];
    return item.error === undefined && prediction?.dbId !== undefined && prediction.dbId !== '' && prediction.dbId !== item.dbId ? [{ item, prediction }] : [];
  });
  const first = mismatched[0];
  if (first === undefined) return;
  const more = mismatched.length > 1 ? ` (${mismatched.length} lines differ)` : '';
  throw new LadderError(
    'input_invalid',
    `--pred: ${predFile}:${first.prediction.line} names db_id ${JSON.stringify(first.prediction.dbId)} but gold item ${first.item.index} (${goldFile}:${first.item.line}) is on ${JSON.stringify(first.item.dbId)}: the files are not aligned${more}`,
  );
}

/** The sub-folder names of `dir` (the db_ids a Spider `--db` folder holds); none when it cannot be read. */
export async function folderNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return []; // checkDbDir reports a missing or unreadable --db
  }
}

async function checkSnapshotFiles(dbDir: string, dbIds: readonly string[]): Promise<void> {
  for (const dbId of dbIds) {
    let snapshots: Snapshot[];
    try {
      snapshots = await listSnapshots(dbDir, dbId);
    } catch (error) {
      if (isLadderError(error)) continue; // an unknown db_id is a per-item problem
      throw error;
    }
    for (const snapshot of snapshots) await checkSqliteFile(snapshot.path, '--db');
  }
}
