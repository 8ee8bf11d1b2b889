/**
 * Where distilled test suites live: a cache folder (never inside `node_modules`), one folder per
 * suite named by its content address — sha256 over everything that changes what is built: the
 * generator version, the SQLite version, the schema, the snapshots' checksums, the golds, the
 * invariants, the seed, the budget, the comparison policy and the neighbour options. The same
 * inputs find the same folder; any change builds a new suite.
 *
 * A folder holds `suite.json` (the record: seed, kept indices per gold, neighbours and their
 * coverage, the kept databases' checksums) and the kept databases `gen-<index>.sqlite`. A missing
 * or altered database is regenerated from the seed and must match its checksum. Folders are
 * written under a temporary name and renamed into place, so concurrent builds never see a
 * half-written suite.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ownScratch, sweepLeftovers } from '../../files/scratch.js';
import { hashUserFile } from '../../files/user-file.js';

/** Bumped when the layout of `suite.json` changes. */
export const SUITE_FORMAT = 2;

/**
 * The default cache folder: `$TEXT2SQL_LADDER_CACHE_DIR/suites` when that variable is set, else
 * `$XDG_CACHE_HOME/text2sql-ladder/suites`, else `~/.cache/text2sql-ladder/suites`.
 */
export function defaultSuiteCacheDir(): string {
  const explicit = process.env['TEXT2SQL_LADDER_CACHE_DIR'];
  if (explicit) return path.join(path.resolve(explicit), 'suites');
  const xdg = process.env['XDG_CACHE_HOME'];
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'text2sql-ladder', 'suites');
}

/**
 * The default verdict cache folder (src/semantic/verdict-cache.ts): `verdicts` beside the default
 * suite cache folder (`$TEXT2SQL_LADDER_CACHE_DIR/verdicts`, …).
 */
export function defaultVerdictCacheDir(): string {
  return path.join(path.dirname(defaultSuiteCacheDir()), 'verdicts');
}

/** sha256 (hex) of a JSON-serializable description (keys in the order given). */
export function contentKey(description: unknown): string {
  return createHash('sha256').update(JSON.stringify(description)).digest('hex');
}

/** sha256 (hex) of a file's bytes. */
export function fileChecksum(file: string): string {
  return hashUserFile(file, { what: 'database file', code: 'db_not_found' });
}

/** The folder of a suite in the cache. */
export function suiteFolder(cacheDir: string, key: string): string {
  return path.join(cacheDir, key.slice(0, 32));
}

/** Reads a cached record; `undefined` when absent, unreadable or for another key or format. */
export function readSuiteRecord<T extends { readonly key: string; readonly format: number }>(folder: string, key: string): T | undefined {
  const file = path.join(folder, 'suite.json');
  if (!existsSync(file)) return undefined;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as T;
    return record.key === key && record.format === SUITE_FORMAT ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Publishes a built suite: writes `suite.json` into `tempFolder` and renames the folder to
 * `folder`. When another process published the same key first, its folder is kept and ours removed.
 * @returns the folder that holds the suite.
 */
export function publishSuite(tempFolder: string, folder: string, record: unknown): string {
  writeFileSync(path.join(tempFolder, 'suite.json'), `${JSON.stringify(record, null, 1)}\n`);
  ownedTemp.get(tempFolder)?.();
  ownedTemp.delete(tempFolder);
  try {
    if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
    renameSync(tempFolder, folder);
  } catch (error) {
    if (!existsSync(path.join(folder, 'suite.json'))) throw error;
    rmSync(tempFolder, { recursive: true, force: true });
  }
  return folder;
}

/** Temporary folders of this process, each with the function that gives it up (files/scratch.ts). */
const ownedTemp = new Map<string, () => void>();

/**
 * A fresh private folder next to where the suite will live, owned by this process (removed if it
 * is interrupted); the leftovers of builds whose process is gone are removed first.
 */
export function createTempFolder(cacheDir: string, key: string): string {
  mkdirSync(cacheDir, { recursive: true });
  sweepLeftovers(cacheDir, (name) => name.startsWith('.tmp-'));
  const folder = path.join(cacheDir, `.tmp-${key.slice(0, 16)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(folder);
  ownedTemp.set(folder, ownScratch(folder));
  return folder;
}
