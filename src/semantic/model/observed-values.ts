/**
 * What the fixture's snapshots hold, per column: the most frequent distinct values, whether NULL
 * occurs, numeric and length ranges; and whole rows of lookup tables. The database generator draws
 * realistic values from here (names that joins match, codes that filters use).
 *
 * Read with our own fixed queries on files opened read-only (`query_only`), never with gold or
 * predicted SQL.
 */
import { scratch } from '../scratch/scratch-engine.js';
import { fromSafeIntegerCell, STORAGE_CLASSES, valueKey, type GenValue, type StorageClass } from './gen-value.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { columnKey } from './invariants.js';
import type { DatabaseSchema } from './schema-reader.js';

/** What the snapshots hold in one column. */
export interface ObservedColumn {
  /** Distinct non-NULL values, most frequent first (ties by value), at most `maxValuesPerColumn`. */
  readonly values: readonly GenValue[];
  /** Rows holding each value, aligned with `values`. */
  readonly counts: readonly number[];
  /** Rows where the column is NULL, over every snapshot. */
  readonly nullCount: number;
  /** Rows read, over every snapshot. */
  readonly rowCount: number;
  /** Storage classes of the non-NULL values, over every snapshot (in {@link STORAGE_CLASSES} order). */
  readonly storageClasses: readonly StorageClass[];
}

/** What the snapshots hold, by column key (`table.column`, lower-case) and lookup-table rows. */
export interface ObservedData {
  readonly columns: ReadonlyMap<string, ObservedColumn>;
  /** Distinct rows (all columns, in column order) of the tables asked for, by table name. */
  readonly rows: ReadonlyMap<string, readonly (readonly GenValue[])[]>;
}

/** Options of {@link readObservedValues}. */
export interface ReadObservedOptions {
  /** Most distinct values kept per column (default 200). */
  readonly maxValuesPerColumn?: number;
  /** Tables whose whole rows are read (lookup tables), at most `maxRowsPerTable` each (default 1000). */
  readonly rowTables?: readonly string[];
  readonly maxRowsPerTable?: number;
}

/**
 * Reads the values of every column of `schema` from the snapshot files. A table or column a
 * snapshot lacks is skipped for that snapshot.
 *
 * @param files - snapshot database paths (opened read-only).
 * @returns per-column values and counts, and the rows of `rowTables`.
 */
export function readObservedValues(files: readonly string[], schema: DatabaseSchema, options: ReadObservedOptions = {}): ObservedData {
  const maxValues = options.maxValuesPerColumn ?? 200;
  const maxRows = options.maxRowsPerTable ?? 1000;
  const counts = new Map<string, Map<string, { value: GenValue; count: number }>>();
  const nulls = new Map<string, number>();
  const totals = new Map<string, number>();
  const classes = new Map<string, Set<string>>();
  const rows = new Map<string, Map<string, GenValue[]>>();
  for (const file of files) {
    const db = scratch.open(file);
    try {
      const present = new Set((db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").column() as string[]).map((n) => n.toLowerCase()));
      for (const table of schema.tables) {
        if (!present.has(table.name.toLowerCase())) continue;
        const t = quoteIdentifier(table.name);
        const existing = new Set((db.prepare('SELECT name FROM pragma_table_xinfo(?)').column(table.name) as string[]).map((n) => n.toLowerCase()));
        for (const column of table.columns) {
          if (!existing.has(column.name.toLowerCase())) continue;
          const key = columnKey(table.name, column.name);
          const c = quoteIdentifier(column.name);
          const stats = db.prepare(`SELECT COUNT(*), COUNT(${c}) FROM ${t}`).row() as [bigint, bigint];
          totals.set(key, (totals.get(key) ?? 0) + Number(stats[0]));
          nulls.set(key, (nulls.get(key) ?? 0) + Number(stats[0] - stats[1]));
          const seen = classes.get(key) ?? new Set<string>();
          for (const name of db.prepare(`SELECT DISTINCT typeof(${c}) FROM ${t} WHERE ${c} IS NOT NULL`).column() as string[]) seen.add(name);
          classes.set(key, seen);
          const frequent = db
            .prepare(`SELECT ${c}, COUNT(*) AS n FROM ${t} WHERE ${c} IS NOT NULL GROUP BY ${c} ORDER BY n DESC, ${c} LIMIT ${maxValues}`).rows() as [unknown, bigint][];
          let byValue = counts.get(key);
          if (byValue === undefined) {
            byValue = new Map();
            counts.set(key, byValue);
          }
          for (const [raw, n] of frequent) {
            const value = fromSafeIntegerCell(raw);
            const k = `${typeof value}:${valueKey(value)}`;
            const entry = byValue.get(k);
            if (entry) entry.count += Number(n);
            else byValue.set(k, { value, count: Number(n) });
          }
        }
        if (options.rowTables?.some((name) => name.toLowerCase() === table.name.toLowerCase())) {
          const names = table.columns.filter((c) => !c.generated && existing.has(c.name.toLowerCase())).map((c) => quoteIdentifier(c.name));
          if (names.length !== table.columns.filter((c) => !c.generated).length) continue;
          const found = db.prepare(`SELECT ${names.join(', ')} FROM ${t} ORDER BY rowid LIMIT ${maxRows}`).rows() as unknown[][];
          let byKey = rows.get(table.name);
          if (byKey === undefined) {
            byKey = new Map();
            rows.set(table.name, byKey);
          }
          for (const row of found) {
            const values = row.map(fromSafeIntegerCell);
            byKey.set(values.map((v) => `${typeof v}:${valueKey(v)}`).join('\u0001'), values);
          }
        }
      }
    } finally {
      db.close();
    }
  }
  const columns = new Map<string, ObservedColumn>();
  for (const table of schema.tables) {
    for (const column of table.columns) {
      const key = columnKey(table.name, column.name);
      const entries = [...(counts.get(key)?.values() ?? [])].sort((a, b) => b.count - a.count || compareValues(a.value, b.value));
      const kept = entries.slice(0, maxValues);
      const seen = classes.get(key);
      columns.set(key, {
        values: kept.map((e) => e.value),
        counts: kept.map((e) => e.count),
        nullCount: nulls.get(key) ?? 0,
        rowCount: totals.get(key) ?? 0,
        storageClasses: STORAGE_CLASSES.filter((name) => seen?.has(name) === true),
      });
    }
  }
  return { columns, rows: new Map([...rows].map(([name, byKey]) => [name, [...byKey.values()]])) };
}

/** A total order over generator values (NULL < numbers < text < blobs, as SQLite sorts them). */
export function compareValues(a: GenValue, b: GenValue): number {
  const rank = (v: GenValue): number => (v === null ? 0 : typeof v === 'bigint' || typeof v === 'number' ? 1 : typeof v === 'string' ? 2 : 3);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 1) {
    const x = a as bigint | number;
    const y = b as bigint | number;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
    return Number(x) - Number(y);
  }
  if (ra === 2) return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  if (ra === 3) return Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array));
  return 0;
}
