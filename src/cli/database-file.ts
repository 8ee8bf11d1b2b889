/**
 * A database file given on the command line must be a SQLite database: an empty file (SQLite would
 * open it as a database with no tables) or a file of another kind is misuse, named at once instead
 * of surfacing as `no such table` on every item.
 */
import { open } from 'node:fs/promises';
import { LadderError } from '../errors.js';

/** The first 16 bytes of every SQLite 3 database file (https://www.sqlite.org/fileformat.html). */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Checks that `file` starts with the SQLite 3 header.
 * @param flag - the flag that named it, e.g. `--db`.
 * @throws LadderError `input_invalid` naming the flag and the file (empty, or not SQLite).
 */
export async function checkSqliteFile(file: string, flag: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) throw new LadderError('input_invalid', `${flag}: ${file} is empty (0 bytes), not a SQLite database`);
    const header = Buffer.alloc(SQLITE_HEADER.length);
    await handle.read(header, 0, header.length, 0);
    if (header.toString('latin1') !== SQLITE_HEADER) {
      throw new LadderError('input_invalid', `${flag}: ${file} is not a SQLite database (it does not start with "SQLite format 3")`);
    }
  } finally {
    await handle.close();
  }
}
