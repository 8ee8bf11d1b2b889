/**
 * Runs every gold query of dataset items on every snapshot they name, directly with
 * better-sqlite3 (read-only, `query_only`), and checks what reviewers must know before trusting
 * a dataset (reference 004, "Review after data or schema changes"):
 * - each gold runs without error on each snapshot;
 * - several golds of one item return the same multiset of rows on every snapshot;
 * - which snapshots give an empty gold result (to be paired with a non-empty twin).
 *
 * Cells are compared by a canonical text: integers exactly, other numbers to 12 significant
 * digits (so 0.1 + 0.2 equals 0.3), NULL distinct from 0 and ''. Column names are ignored; column
 * order is not.
 */
import Database from 'better-sqlite3';
import { resolveFixture } from '../fixtures/registry.js';
import type { ResolveFixtureOptions, ResolvedFixture } from '../fixtures/registry.js';
import type { DatasetItem } from './item.js';

/** A result read by position: column names apart from rows of cells. */
export interface GoldRows {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
}

/** One gold on one snapshot. */
export type GoldRun = { readonly ok: true; readonly result: GoldRows } | { readonly ok: false; readonly error: string };

/** One item on one snapshot. */
export interface SnapshotCheck {
  readonly snapshot: string;
  /** Absolute path of the database the golds ran on (role-scoped when the item has a role). */
  readonly path: string;
  /** One entry per gold, in the item's order. */
  readonly runs: readonly GoldRun[];
  /** True when every gold ran and all give the same multiset of rows. */
  readonly agree: boolean;
  /** True when the (first) gold ran and returned no rows. */
  readonly empty: boolean;
}

/** The checks of one item. */
export interface ItemCheck {
  readonly id: string;
  readonly snapshots: readonly SnapshotCheck[];
  /** Human-readable problems (gold errors, disagreeing golds, unknown snapshots); empty when fine. */
  readonly problems: readonly string[];
}

/**
 * Canonical text of a cell: `null` → `NULL`; integral numbers and bigints exactly; other numbers
 * to 12 significant digits; strings quoted; blobs as hex.
 */
export function canonicalCell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : `${Number(value.toPrecision(12))}`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Uint8Array) return `x'${Buffer.from(value).toString('hex')}'`;
  return JSON.stringify(value);
}

/** The sorted canonical rows of a result: equal for two results with the same multiset of rows. */
export function canonicalMultiset(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((row) => row.map(canonicalCell).join('\u0001')).sort();
}

/**
 * Runs one query read-only on one database file.
 * @returns rows by position with the column names kept apart, or the SQLite error message.
 */
export function runQuery(dbPath: string, sql: string): GoldRun {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    db.defaultSafeIntegers(false);
    const statement = db.prepare(sql);
    if (!statement.reader) return { ok: false, error: 'not a query: the statement returns no rows' };
    const columns = statement.columns().map((c) => c.name);
    const rows = statement.raw(true).all() as unknown[][];
    return { ok: true, result: { columns, rows } };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    db.close();
  }
}

/**
 * Checks the golds of `items` on their snapshots (every snapshot of the fixture when an item
 * names none; role-scoped snapshots when it has a role). Items without gold are skipped.
 *
 * @param options - passed to {@link resolveFixture} (`cacheDir`, `fixturesDir`).
 * @returns one {@link ItemCheck} per item with gold SQL, in input order.
 * @throws LadderError from {@link resolveFixture} for an unknown fixture or role.
 */
export async function verifyDatasetGolds(
  items: readonly DatasetItem[],
  options: Omit<ResolveFixtureOptions, 'role'> = {},
): Promise<ItemCheck[]> {
  const fixtures = new Map<string, Promise<ResolvedFixture>>();
  const resolve = (db: string, role: string | undefined): Promise<ResolvedFixture> => {
    const key = `${db}\n${role ?? ''}`;
    let pending = fixtures.get(key);
    if (!pending) {
      pending = resolveFixture(db, { ...options, ...(role !== undefined ? { role } : {}) });
      fixtures.set(key, pending);
    }
    return pending;
  };
  const checks: ItemCheck[] = [];
  for (const item of items) {
    if (item.gold_sql.length === 0) continue;
    const fixture = await resolve(item.db, item.role);
    const problems: string[] = [];
    const wanted = item.snapshots ?? fixture.snapshots.map((s) => s.name);
    const snapshotChecks: SnapshotCheck[] = [];
    for (const name of wanted) {
      const snapshot = fixture.snapshots.find((s) => s.name === name);
      if (!snapshot) {
        problems.push(`snapshot "${name}" is not one of ${fixture.snapshots.map((s) => s.name).join(', ')}`);
        continue;
      }
      const runs = item.gold_sql.map((sql) => runQuery(snapshot.path, sql));
      runs.forEach((run, index) => {
        if (!run.ok) problems.push(`gold ${index + 1} fails on ${name}: ${run.error}`);
      });
      const multisets = runs.map((run) => (run.ok ? canonicalMultiset(run.result.rows).join('\n') : undefined));
      const agree = multisets.every((m) => m !== undefined && m === multisets[0]);
      if (!agree && runs.every((r) => r.ok)) problems.push(`golds disagree on ${name}`);
      const first = runs[0];
      snapshotChecks.push({ snapshot: name, path: snapshot.path, runs, agree, empty: first !== undefined && first.ok && first.result.rows.length === 0 });
    }
    checks.push({ id: item.id, snapshots: snapshotChecks, problems });
  }
  return checks;
}
