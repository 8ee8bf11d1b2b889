/**
 * A small SQLite database for the engine tests, built in a fresh temporary folder (never in the
 * repository, never from the shared data folder). Shape:
 * - `singer(id INTEGER PRIMARY KEY, name TEXT, country TEXT, big INTEGER, photo BLOB, score REAL)`
 *   with 3 rows; `big` holds 2^53 + 1, −2^63 and 42;
 * - `concert(id INTEGER PRIMARY KEY, singer_id INTEGER, year INTEGER)` with index
 *   `idx_concert_year(year)` and 3 rows;
 * - view `french_singers` = singers from France.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createTempSqlite } from '../../helpers/temp-sqlite.js';

/** A built test database and its folder. */
import type { TempSqlite } from '../../helpers/temp-sqlite.js';
export type TestDb = TempSqlite;

/** Builds the test database in a new temporary folder. */
export function buildTestDb(): TestDb {
  return createTempSqlite(`
    CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, country TEXT, big INTEGER, photo BLOB, score REAL);
    CREATE TABLE concert (id INTEGER PRIMARY KEY, singer_id INTEGER, year INTEGER);
    CREATE INDEX idx_concert_year ON concert(year);
    CREATE VIEW french_singers AS SELECT id, name FROM singer WHERE country = 'France';
    INSERT INTO singer VALUES (1, 'Edith', 'France', 9007199254740993, x'0102ff', 1.5);
    INSERT INTO singer VALUES (2, 'O''Brien', 'Ireland', -9223372036854775808, NULL, 175.0);
    INSERT INTO singer VALUES (3, 'Aznavour', 'France', 42, x'', NULL);
    INSERT INTO concert VALUES (10, 1, 1999), (11, 1, 2003), (12, 3, 2005);
  `, { prefix: 'ladder-engine-', name: 'music.sqlite' });
}

/** SHA-256 of a file's bytes, hex. */
export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Sorted names in a folder. */
export function listDir(dir: string): string[] {
  return readdirSync(dir).sort();
}
