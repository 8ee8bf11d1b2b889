/**
 * Opening a database file for one child process's session (sqlite-session.ts): a file identity to
 * notice a database rebuilt at the same path, and a read-only connection with the session's
 * settings; a WAL-mode file is read from a private in-memory copy so that no `-wal` / `-shm` file
 * is ever created beside it.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ExecutionError } from '../engine.js';
import { errorText } from '../../format.js';

/** What identifies a database file's content at a path: device, inode, size and mtime (ns). */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
}

/**
 * The identity of a database file (one `stat`, a few microseconds), or `db_not_found` when the
 * path is missing or not a regular file.
 */
export function fileIdentity(file: string): FileIdentity | ExecutionError {
  let stats;
  try {
    stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    stats = undefined;
  }
  if (stats === undefined) return { code: 'db_not_found', message: `database not found: ${file} does not exist (it is never created)` };
  if (!stats.isFile()) return { code: 'db_not_found', message: `database not found: ${file} is not a file` };
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

/** True when two identities are of the same file content (a rebuilt file differs in inode, size or mtime). */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.size === b.size && a.dev === b.dev;
}

/**
 * Opens an existing file read-only; the caller has checked that it exists. A WAL-mode file is
 * opened from a private in-memory copy (see the module doc of sqlite-session.ts).
 */
export function openReadOnly(file: string, maxCopyBytes: number): Database.Database | ExecutionError {
  try {
    const copy = walModeCopy(file, maxCopyBytes);
    if (copy !== undefined && !Buffer.isBuffer(copy)) return copy;
    const connection = copy === undefined ? new Database(file, { readonly: true, fileMustExist: true }) : new Database(copy, { readonly: true });
    connection.unsafeMode(false);
    connection.defaultSafeIntegers(true);
    connection.exec('PRAGMA query_only = 1');
    connection.exec('PRAGMA temp_store = MEMORY');
    try {
      // Reads page 1: a file that is not a database fails here, not on every later statement.
      connection.prepare('SELECT count(*) FROM sqlite_schema').pluck().get();
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  } catch (error) {
    return { code: 'db_unavailable', message: `cannot open ${file}: ${errorText(error)}` };
  }
}

/** Bytes 18 and 19 of the database header: file format write and read versions (2 = WAL). */
const WAL_VERSION_OFFSET = 18;

/**
 * For a WAL-mode database: its bytes with the header switched to rollback mode (version 1), to
 * open in memory; an error when it cannot be read that way. `undefined` for any other file.
 * (https://www.sqlite.org/fileformat2.html#file_format_version_numbers)
 */
function walModeCopy(file: string, maxCopyBytes: number): Buffer | ExecutionError | undefined {
  const header = Buffer.alloc(WAL_VERSION_OFFSET + 2);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, header.length, 0) < header.length) return undefined;
  } finally {
    closeSync(fd);
  }
  if (!header.subarray(0, 16).equals(SQLITE_MAGIC)) return undefined;
  if (header[WAL_VERSION_OFFSET] !== 2 && header[WAL_VERSION_OFFSET + 1] !== 2) return undefined;
  const walSize = fileSize(`${file}-wal`);
  if (walSize !== undefined && walSize > 0) {
    return {
      code: 'db_unavailable',
      message: `cannot open ${file}: it is a WAL-mode database with ${walSize} bytes of changes in ${path.basename(file)}-wal that are not checkpointed (a writer has it open, or did not close it); the engine never touches -wal / -shm files: checkpoint it (PRAGMA wal_checkpoint(TRUNCATE)) or convert it (PRAGMA journal_mode = DELETE)`,
    };
  }
  const size = fileSize(file) ?? 0;
  if (size > maxCopyBytes) {
    return {
      code: 'db_unavailable',
      message: `cannot open ${file}: it is a WAL-mode database of ${size} bytes; the engine reads WAL databases from a private in-memory copy of at most ${maxCopyBytes} bytes (half of maxMemoryBytes), since opening one in place creates -wal / -shm files beside it: convert it once with PRAGMA journal_mode = DELETE`,
    };
  }
  const bytes = readFileSync(file);
  bytes[WAL_VERSION_OFFSET] = 1;
  bytes[WAL_VERSION_OFFSET + 1] = 1;
  return bytes;
}

/** The 16-byte header string of every SQLite 3 database. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** The size of a file in bytes, or `undefined` when it cannot be read. */
function fileSize(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}
