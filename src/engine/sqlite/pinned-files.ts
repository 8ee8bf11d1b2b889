/**
 * Database files pinned for the life of this process: a file whose content was verified (the
 * fixture cache checks each snapshot's sha256 when a run first uses it) is pinned with that
 * sha256 and the identity the file had then. Before each statement on a pinned file the engine
 * compares the identity; when it changed, the file is hashed once more: the same bytes (an
 * identical rebuild) re-pin it, other bytes are `db_changed`. So a snapshot replaced or edited in
 * the middle of a run is an error, never silently used. Files that were never pinned (a user's
 * own database) are reopened when they change, as before.
 *
 * Identity: `dev:ino:size:mtimeNs` from one `stat` (a few microseconds per statement).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionError } from '../engine.js';

const pins = new Map<string, { identity: string; checksum: string }>();

/**
 * The identity of a file now, or `undefined` when it cannot be read.
 * @param file - a path (made absolute).
 */
export function fileIdentity(file: string): string | undefined {
  try {
    const stats = statSync(file, { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
  } catch {
    return undefined;
  }
}

/**
 * Pins `file` with its verified content (replacing an earlier pin of the same path).
 * @param file - a database path (made absolute).
 * @param identity - from {@link fileIdentity}, taken when the content was verified.
 * @param checksum - the verified sha256 of the file's bytes, lower-case hex.
 */
export function pinDatabaseFile(file: string, identity: string, checksum: string): void {
  pins.set(path.resolve(file), { identity, checksum });
}

/** sha256 of a file's bytes (hex), or `undefined` when it cannot be read. */
function checksumOf(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * Checks a pinned file before a statement runs on it.
 * @param file - the absolute database path of the request.
 * @returns `db_changed` when the file is pinned and its bytes differ from the verified ones (or it
 *   is gone); `undefined` when it is unchanged, identical after a rebuild, or not pinned.
 */
export function checkPinnedFile(file: string): ExecutionError | undefined {
  const pinned = pins.get(file);
  if (pinned === undefined) return undefined;
  const now = fileIdentity(file);
  if (now === pinned.identity) return undefined;
  if (now !== undefined && checksumOf(file) === pinned.checksum) {
    pins.set(file, { identity: now, checksum: pinned.checksum });
    return undefined;
  }
  return {
    code: 'db_changed',
    message: `database changed: ${file} ${now === undefined ? 'is gone' : 'was replaced or modified'} after its checksum was verified in this run; a snapshot must not change while it is used (resolve the fixture again, or rerun)`,
  };
}
