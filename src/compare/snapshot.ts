/**
 * A snapshot: one database state an item is evaluated on. An item passes only when one gold
 * matches on EVERY snapshot (test-suite accuracy; Spider's test suite runs every `*.sqlite` file
 * in the item's database folder).
 */

/** One database file and its identity. */
export interface Snapshot {
  /** Short name used in reasons, e.g. `base`, `edge`, `car_1` (the file name without `.sqlite`). */
  readonly name: string;
  /** Path of the SQLite file (absolute or cwd-relative). */
  readonly path: string;
  /**
   * Content checksum (e.g. sha256 hex). Keys the gold-result cache; without it the cache keys on
   * the resolved path, so a file changed in place would serve stale gold results.
   */
  readonly checksum?: string;
}
