/**
 * Snapshots of a Spider-format database on PostgreSQL, in one of two forms:
 * - scripts: every `DBDIR/<db_id>/*.sql` file is one snapshot (`<db_id>.sql` first, then the others
 *   by name), a PostgreSQL script (plain `pg_dump` output included) loaded into a database of its
 *   own on the engine's server, as a fixture's snapshot is: built once, by the owner role, checked
 *   against its content checksum on first use (src/fixtures/postgres-build.ts);
 * - databases on the user's server (`databases: 'existing'`): one snapshot per db_id, the
 *   database named like it, read as the URL's role.
 */
import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { LadderError } from '../../errors.js';
import { insideFolder } from '../../files/inside-folder.js';
import type { FixtureManifest } from '../../fixtures/manifest.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import type { PostgresEngine } from '../../engine/postgres/postgres-engine.js';

/** The ending of a snapshot script. */
export const POSTGRES_SCRIPT_ENDING = '.sql';

/** The script files of one db_id, `<db_id>.sql` first; none when the folder is missing. */
export async function postgresScripts(dbDir: string, dbId: string): Promise<string[]> {
  const folder = path.join(dbDir, dbId);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const main = `${dbId}${POSTGRES_SCRIPT_ENDING}`;
  return names
    .filter((name) => name.endsWith(POSTGRES_SCRIPT_ENDING))
    .sort((a, b) => (a === main ? -1 : b === main ? 1 : a < b ? -1 : a > b ? 1 : 0))
    .map((name) => path.join(folder, name));
}

/**
 * The snapshots of one db_id from its scripts, built on `engine`'s server on first use.
 * @throws LadderError `db_not_found` when the folder holds no `.sql` file; `input_invalid` naming
 *   `script:line` for a script that fails; `engine_failure` when the server cannot be reached.
 */
export async function listPostgresScriptSnapshots(dbDir: string, dbId: string, engine: PostgresEngine): Promise<Snapshot[]> {
  if (dbId === '' || dbId.includes('/') || dbId.includes('\\') || dbId === '.' || dbId === '..') {
    throw new LadderError('invalid_option', `db_id must be a plain folder name; received ${JSON.stringify(dbId)}`);
  }
  const scripts = await postgresScripts(dbDir, dbId);
  if (scripts.length === 0) throw new LadderError('db_not_found', `unknown db_id ${JSON.stringify(dbId)}: no ${POSTGRES_SCRIPT_ENDING} script in ${path.join(dbDir, dbId)}`);
  let folder: string;
  try {
    folder = realpathSync(path.join(dbDir, dbId));
  } catch (error) {
    throw new LadderError('db_not_found', `db_id ${JSON.stringify(dbId)}: folder ${path.join(dbDir, dbId)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  // Each script a regular file inside the db_id's folder, as a fixture's scripts are (a link out is refused).
  const real = scripts.map((script) =>
    insideFolder(script, folder, (message) => {
      throw new LadderError('input_invalid', `script ${script} ${message}`);
    }),
  );
  const manifest: FixtureManifest = {
    name: dbId,
    file: path.join(folder, 'fixture.yaml'),
    folder,
    // What the build hash covers besides the scripts' bytes: the layout that made this manifest.
    text: `spider scripts ${dbId}: ${scripts.map((script) => path.basename(script)).join(', ')}`,
    dialect: 'postgres',
    pageSize: 4096,
    collation: 'C',
    snapshots: scripts.map((script, i) => ({ name: path.basename(script, POSTGRES_SCRIPT_ENDING), scripts: [real[i]!], line: 1 })),
    roles: [],
  };
  const { resolvePostgresFixture } = await import('../../fixtures/postgres-build.js');
  return resolvePostgresFixture(manifest, engine);
}

/**
 * The snapshot of one db_id on the user's server: the database of that name, checked to exist.
 * @throws LadderError `db_not_found` when the server has no such database (or the role may not
 *   connect to it); `engine_failure` when the server cannot be reached.
 */
export async function existingPostgresSnapshot(dbId: string, engine: PostgresEngine): Promise<Snapshot[]> {
  try {
    await engine.catalog(dbId);
  } catch (error) {
    if (error instanceof LadderError && error.code === 'db_not_found') throw new LadderError('db_not_found', `unknown db_id ${JSON.stringify(dbId)}: ${error.message}`, { cause: error });
    throw error;
  }
  return [{ name: dbId, path: dbId, engine: 'postgres' }];
}
