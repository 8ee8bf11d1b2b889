/**
 * Table and index statistics from `sqlite_stat1`, the table `ANALYZE` fills
 * (https://sqlite.org/fileformat2.html#stat1tab). Fixtures run `ANALYZE` once when they are built,
 * so the statistics are part of the snapshot and every run reads the same numbers.
 *
 * Row format: `(tbl, idx, stat)`. For an index, `stat` is `"N a1 a2 … [unordered] [sz=…]"`: N rows in
 * the index, then for k = 1, 2, … the average number of rows that share the same values in the
 * first k index columns. For a table without indexes, `idx` is NULL and `stat` is `"N"`.
 * The rows are read through the engine by `readSnapshotFacts` (efficiency-cache.ts).
 */

/**
 * SQLite's row-count assumption for a table without statistics: `nRowLogEst = 200`, i.e. 2^20 =
 * 1 048 576 rows (src/build.c, `sqlite3StartTable`).
 */
export const DEFAULT_TABLE_ROWS = 1_048_576;

/**
 * SQLite's assumption for an equality on an index without statistics: about 10 rows
 * (`aiRowLogEst[1] = 33`, src/build.c, `sqlite3DefaultRowEst`). Also used for automatic indexes.
 */
export const DEFAULT_ROWS_PER_EQUALITY = 10;

/** Statistics of one index. */
export interface IndexStatistics {
  readonly table: string;
  /** Rows in the index (= rows in the table, unless the index is partial). */
  readonly rows: number;
  /** `rowsPerKey[k - 1]`: average rows sharing the values of the first k columns. */
  readonly rowsPerKey: readonly number[];
}

/** The statistics of one database, names lower-case. */
export interface DatabaseStatistics {
  /** Table → row count. */
  readonly tables: ReadonlyMap<string, number>;
  /** Index → statistics. */
  readonly indexes: ReadonlyMap<string, IndexStatistics>;
}

/** No statistics at all: every table is assumed to hold {@link DEFAULT_TABLE_ROWS}. */
export const EMPTY_STATISTICS: DatabaseStatistics = Object.freeze({ tables: new Map(), indexes: new Map() });

/** One `sqlite_stat1` row as read from the database. */
export interface Stat1Row {
  readonly tbl: string;
  readonly idx: string | null;
  readonly stat: string;
}

/**
 * Builds {@link DatabaseStatistics} from `sqlite_stat1` rows. A table's row count is its
 * NULL-index row when present, else the largest N among its indexes. Malformed `stat` texts are
 * skipped.
 *
 * @example
 * parseStat1([{ tbl: 'orders', idx: 'idx_orders_date', stat: '2000 6' }]).indexes.get('idx_orders_date')
 * // { table: 'orders', rows: 2000, rowsPerKey: [6] }
 */
export function parseStat1(rows: readonly Stat1Row[]): DatabaseStatistics {
  const tables = new Map<string, number>();
  const fromIndexes = new Map<string, number>();
  const indexes = new Map<string, IndexStatistics>();
  for (const row of rows) {
    const numbers = leadingIntegers(row.stat);
    const rowCount = numbers[0];
    if (rowCount === undefined) continue;
    const table = row.tbl.toLowerCase();
    if (row.idx === null) {
      tables.set(table, rowCount);
      continue;
    }
    indexes.set(row.idx.toLowerCase(), { table, rows: rowCount, rowsPerKey: numbers.slice(1) });
    fromIndexes.set(table, Math.max(fromIndexes.get(table) ?? 0, rowCount));
  }
  for (const [table, count] of fromIndexes) if (!tables.has(table)) tables.set(table, count);
  return { tables, indexes };
}

function leadingIntegers(stat: string): number[] {
  const out: number[] = [];
  for (const token of stat.trim().split(/\s+/)) {
    if (!/^\d+$/.test(token)) break;
    out.push(Number(token));
  }
  return out;
}
