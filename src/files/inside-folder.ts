/**
 * Where a file a folder names may be: inside that folder, for real. A fixture's scripts (and the
 * scripts of a Spider db_id folder) are read only when their real path (every symbolic link
 * resolved) is a regular file inside the folder's real path, within the input limit.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileKind, maxInputBytes } from './user-file.js';

/**
 * The real path of `file` (every symbolic link resolved) when it is a regular file inside
 * `folder` (a real path) of at most the input limit (files/user-file.ts); otherwise `fail` with
 * what it is instead. The message names the path the manifest gave and where it leads, never
 * anything read from it.
 * @param fail - throws; called with the reason.
 */
export function insideFolder(file: string, folder: string, fail: (message: string) => never): string {
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    return fail(`cannot be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const relative = path.relative(folder, real);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    const link = lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true || real !== file ? ` (it leads to ${real})` : '';
    return fail(`is outside the fixture's folder ${folder}${link}; a fixture reads only files inside its own folder`);
  }
  const stats = statSync(real);
  if (!stats.isFile()) return fail(`is ${fileKind(stats)}, not a regular file`);
  const limit = maxInputBytes();
  if (stats.size > limit) return fail(`is ${stats.size} bytes, over the limit of ${limit} bytes read from one input file (TEXT2SQL_LADDER_MAX_INPUT_BYTES raises it)`);
  return real;
}
