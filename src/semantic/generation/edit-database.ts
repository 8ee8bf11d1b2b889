/**
 * Edits of a generated database, written to a new file: delete rows, change one cell, or copy
 * the rows in reverse physical order. These are the steps of a counterexample shrinker: every
 * edited database is repaired and checked exactly like a fresh draw (derived columns
 * recomputed; rows that break a check or a children count deleted; the whole contract of
 * generated databases checked, database-contract.ts), so a shrunk witness is still a database the
 * fixture could hold under the item's options.
 *
 * Rows are named by a {@link RowKey}: the rowid, or for a `WITHOUT ROWID` table its primary-key
 * values in key order.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { scratch } from '../scratch/scratch-engine.js';
import type { ScratchDatabase } from '../scratch/scratch-database.js';
import { bindable, isConstraintError, repairAndDerive } from './database-repair.js';
import { fromSafeIntegerCell, valueKey, type GenValue } from '../model/gen-value.js';
import type { GenerateOutcome } from './generate-database.js';
import type { GeneratorPlan } from './generator-plan.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { RANDOM_FUNCTION } from '../model/invariant-sql.js';
import { compareValues } from '../model/observed-values.js';
import { createPrng, type Prng } from '../model/prng.js';
import { findTable, insertableColumns, type DatabaseSchema, type TableSchema } from '../model/schema-reader.js';
import { contractViolation } from './database-contract.js';

/** A row's identity: `[rowid]`, or the primary-key values of a `WITHOUT ROWID` table. */
export type RowKey = readonly GenValue[];

/** One change to a database. */
export type DatabaseEdit =
  /** Delete rows; rows that reference them through a foreign key that may not be NULL (the schema or the NULL policy) go with them. */
  | { readonly kind: 'delete'; readonly table: string; readonly rows: readonly RowKey[] }
  /**
   * Set one cell. When the column is referenced by a foreign key, the referencing cells that held
   * the old value take the new one too (as `ON UPDATE CASCADE` would), so references stay intact.
   */
  | { readonly kind: 'set'; readonly table: string; readonly row: RowKey; readonly column: string; readonly value: GenValue }
  /**
   * Replace values of one column everywhere: each `[from, to]` pair turns every cell holding
   * `from` into `to` (a permutation is fine: values pass through placeholders), and cells that
   * reference the column through a foreign key follow.
   */
  | { readonly kind: 'map'; readonly table: string; readonly column: string; readonly pairs: readonly (readonly [GenValue, GenValue])[] };

/** Rows to delete from one table, by rowid. */
export interface RowRemoval {
  readonly table: string;
  readonly rowids: readonly bigint[];
}

/** The rows of one table as stored. */
export interface StoredTable {
  readonly name: string;
  /** Insertable columns (generated columns left out), in declaration order. */
  readonly columns: readonly string[];
  /** Rows in physical order (rowid, or primary key for `WITHOUT ROWID`). */
  readonly rows: readonly { readonly key: RowKey; readonly values: readonly GenValue[] }[];
}

/** The columns that name a row of `table`: `rowid`, or the primary key of a `WITHOUT ROWID` table. */
export function rowKeyColumns(table: TableSchema): readonly string[] {
  return table.withoutRowid ? table.primaryKey : ['rowid'];
}

/**
 * Reads every table's rows with their keys.
 * @param file - an existing SQLite file, opened read-only.
 * @param schema - its schema (`readSchema`).
 * @returns tables in schema order; values with their storage class (bigint = INTEGER).
 */
export function readStoredTables(file: string, schema: DatabaseSchema): StoredTable[] {
  const db = scratch.open(file);
  try {
    return schema.tables.map((table) => readTable(db, table));
  } finally {
    db.close();
  }
}

function readTable(db: ScratchDatabase, table: TableSchema): StoredTable {
  const columns = insertableColumns(table);
  const keys = rowKeyColumns(table);
  const list = [...keys.map((k) => (k === 'rowid' ? 'rowid' : quoteIdentifier(k))), ...columns.map(quoteIdentifier)].join(', ');
  const order = keys.map((k) => (k === 'rowid' ? 'rowid' : quoteIdentifier(k))).join(', ');
  const raw = db.prepare(`SELECT ${list} FROM ${quoteIdentifier(table.name)} ORDER BY ${order}`).rows() as unknown[][];
  return {
    name: table.name,
    columns,
    rows: raw.map((row) => {
      const values = row.map(fromSafeIntegerCell);
      return { key: values.slice(0, keys.length), values: values.slice(keys.length) };
    }),
  };
}

/**
 * Writes a copy of a database with some edits applied, then repairs and verifies it like a
 * fresh draw.
 *
 * @param plan - the plan the source was generated from (schema and invariants).
 * @param source - an existing database (read, never written).
 * @param edits - applied in order.
 * @param file - output file; overwritten (written through a temporary file and a rename).
 * @param rng - stream for `ladder_random()` in derived columns (default: seeded by `file`'s name).
 * @returns the written database, or why the edited rows cannot make a valid database (a UNIQUE or
 *   CHECK constraint the edit breaks, an invariant violated, …); no file is written then.
 * @throws RangeError for an edit naming no table or column of the schema.
 */
export function editDatabase(plan: GeneratorPlan, source: string, edits: readonly DatabaseEdit[], file: string, rng?: Prng): GenerateOutcome {
  const db = scratch.copyOf(source);
  try {
    const deriveRng = rng ?? createPrng(`edit/${path.basename(file)}`);
    db.defineFunction(RANDOM_FUNCTION, () => deriveRng.next());
    for (const edit of edits) {
      const table = findTable(plan.schema, edit.table);
      if (table === undefined) throw new RangeError(`editDatabase: no table ${edit.table} in the schema`);
      if (edit.kind === 'delete') {
        const remove = db.prepare(`DELETE FROM ${quoteIdentifier(table.name)} WHERE ${keyMatch(table)}`);
        for (const row of edit.rows) remove.run(...row.map(bindable));
      } else {
        const column = table.columns.find((c) => c.name.toLowerCase() === edit.column.toLowerCase());
        if (column === undefined || column.generated) throw new RangeError(`editDatabase: no insertable column ${edit.column} in table ${table.name}`);
        if (edit.kind === 'set') setCell(plan.schema, db, table, edit.row, column.name, edit.value);
        else mapColumn(plan.schema, db, table, column.name, edit.pairs);
      }
    }
    const repaired = repairAndDerive(plan, db);
    if (!repaired.ok) return { ok: false, reason: repaired.reason, attempts: 1, rejected: {} };
    const violation = contractViolation(plan.contract, db);
    if (violation !== null) return { ok: false, reason: `${violation.rule}: ${violation.detail}`, attempts: 1, rejected: { [violation.rule]: 1 } };
    return { ok: true, database: { ...writeDatabase(db, plan.schema, file), tier: 'edited', attempt: 0, droppedRows: repaired.deleted }, rejected: {} };
  } catch (error) {
    if (error instanceof RangeError) throw error;
    if (isConstraintError(error)) return { ok: false, reason: `edit breaks a constraint: ${(error as Error).message}`, attempts: 1, rejected: {} };
    return { ok: false, reason: `editing failed: ${(error as Error).message}`, attempts: 1, rejected: {} };
  } finally {
    db.close();
  }
}

/**
 * Writes a copy of a generated database without some rows (the row-removal step of a
 * counterexample shrinker). Rows that referenced a deleted row are deleted with it, or their
 * reference becomes NULL where the contract allows NULL there; derived columns are recomputed, rows that
 * then break a check or a children count are deleted, and the result is verified like a fresh draw.
 * Rows of a `WITHOUT ROWID` table have no rowid: delete them by key with {@link editDatabase}.
 *
 * @param plan - the plan the source was generated from.
 * @param source - an existing database (opened read-only).
 * @param removals - rows to delete, by table and rowid.
 * @param file - output file; overwritten.
 * @param rng - stream for `ladder_random()` in derived columns (default: seeded by `file`).
 * @returns the written database, or why the remaining rows cannot make a valid database.
 * @throws RangeError for a table the schema does not have, or a `WITHOUT ROWID` table.
 */
export function removeRows(plan: GeneratorPlan, source: string, removals: readonly RowRemoval[], file: string, rng?: Prng): GenerateOutcome {
  for (const removal of removals) {
    const table = findTable(plan.schema, removal.table);
    if (table === undefined) throw new RangeError(`removeRows: no table ${removal.table} in the schema`);
    if (table.withoutRowid) throw new RangeError(`removeRows: table ${table.name} is WITHOUT ROWID; name its rows by key with editDatabase`);
  }
  const edits = removals.map((r): DatabaseEdit => ({ kind: 'delete', table: r.table, rows: r.rowids.map((id) => [id]) }));
  const outcome = editDatabase(plan, source, edits, file, rng ?? createPrng(`remove/${path.basename(file)}`));
  return outcome.ok ? { ...outcome, database: { ...outcome.database, tier: 'shrunk' } } : outcome;
}

/** How {@link writeReorderedCopy} reorders each table's rows. */
export type RowReordering =
  /** Last row first. */
  | 'reverse'
  /** The first row moved to the end (catches orders a reversal leaves unchanged, such as b, a, b). */
  | 'rotate'
  /** Sorted by value, column by column (SQLite's order of storage classes), smallest first. */
  | 'ascending'
  /** Sorted by value, largest first. */
  | 'descending';

/** Every {@link RowReordering}, in the order a refutation is checked on them. */
export const ROW_REORDERINGS: readonly RowReordering[] = ['reverse', 'rotate', 'ascending', 'descending'];

/**
 * Writes a copy whose rows are stored in another physical order: every table's rows are inserted
 * reversed, rotated by one, or sorted by value, so a rowid table (without an INTEGER PRIMARY KEY) is scanned in
 * that order. Values are unchanged, so every constraint and invariant still holds. A query whose
 * result changes on the copy depends on the order SQLite happens to read rows in (a LIMIT without a
 * full ORDER BY, a bare column beside an aggregate, GROUP_CONCAT order): its result on the original
 * is not a property of the data. (Scans in index order are not changed.)
 *
 * @param schema - the database's schema.
 * @param source - an existing database (read, never written).
 * @param file - output file; overwritten.
 * @param reordering - see {@link RowReordering} (default `reverse`).
 */
export function writeReorderedCopy(schema: DatabaseSchema, source: string, file: string, reordering: RowReordering = 'reverse'): void {
  const stored = readStoredTables(source, schema);
  const db = scratch.create();
  try {
    for (const table of schema.tables) db.exec(table.createSql);
    for (const index of schema.indexes) db.exec(index.sql);
    for (const table of stored) {
      if (table.rows.length === 0) continue;
      const insert = db.prepare(`INSERT INTO ${quoteIdentifier(table.name)} (${table.columns.map(quoteIdentifier).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`);
      const rows = reorder(table.rows, reordering);
      for (const row of rows) insert.run(...row.values.map(bindable));
    }
    for (const view of schema.views) db.exec(view.sql);
    writeDatabase(db, schema, file);
  } finally {
    db.close();
  }
}

function reorder<T extends { readonly values: readonly GenValue[] }>(rows: readonly T[], reordering: RowReordering): T[] {
  const byValue = (a: T, b: T): number => {
    for (let i = 0; i < a.values.length; i += 1) {
      const c = compareValues(a.values[i]!, b.values[i]!);
      if (c !== 0) return c;
    }
    return 0;
  };
  switch (reordering) {
    case 'reverse':
      return [...rows].reverse();
    case 'rotate':
      return [...rows.slice(1), ...rows.slice(0, 1)];
    case 'ascending':
      return [...rows].sort(byValue);
    case 'descending':
      return [...rows].sort((a, b) => byValue(b, a));
  }
}

/** Saves to a temporary file, then renames it over `file`; returns the file's facts. */
function writeDatabase(db: ScratchDatabase, schema: DatabaseSchema, file: string): { file: string; checksum: string; rowCounts: Record<string, number> } {
  const rowCounts: Record<string, number> = {};
  for (const table of schema.tables) rowCounts[table.name] = Number(db.prepare(`SELECT COUNT(*) FROM ${quoteIdentifier(table.name)}`).value());
  const temp = `${file}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  db.saveTo(temp);
  renameSync(temp, file);
  return { file, checksum: createHash('sha256').update(readFileSync(file)).digest('hex'), rowCounts };
}

function keyMatch(table: TableSchema): string {
  return rowKeyColumns(table).map((k) => `${k === 'rowid' ? 'rowid' : quoteIdentifier(k)} = ?`).join(' AND ');
}

/** Sets one cell and carries the change into every cell that referenced the old value. */
function setCell(schema: DatabaseSchema, db: ScratchDatabase, table: TableSchema, row: RowKey, column: string, value: GenValue): void {
  const columns = insertableColumns(table);
  const before = db.prepare(`SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(table.name)} WHERE ${keyMatch(table)}`).row(...row.map(bindable)) as unknown[] | undefined;
  if (before === undefined) throw new RangeError(`editDatabase: no row ${JSON.stringify(row.map(String))} in table ${table.name}`);
  const old = before.map(fromSafeIntegerCell);
  db.prepare(`UPDATE ${quoteIdentifier(table.name)} SET ${quoteIdentifier(column)} = ? WHERE ${keyMatch(table)}`).run(bindable(value), ...row.map(bindable));
  const at = (name: string): number => columns.findIndex((c) => c.toLowerCase() === name.toLowerCase());
  for (const child of schema.tables) {
    for (const fk of child.foreignKeys) {
      if (fk.parentTable.toLowerCase() !== table.name.toLowerCase()) continue;
      const position = fk.parentColumns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
      if (position < 0) continue;
      const oldKey = fk.parentColumns.map((c) => old[at(c)] ?? null);
      if (oldKey.some((v) => v === null)) continue;
      const where = fk.columns.map((c) => `${quoteIdentifier(c)} = ?`).join(' AND ');
      db.prepare(`UPDATE ${quoteIdentifier(child.name)} SET ${quoteIdentifier(fk.columns[position]!)} = ? WHERE ${where}`).run(bindable(value), ...oldKey.map(bindable));
    }
  }
}

/** The columns that reference `table.column` through a foreign key: `[child table, child column]`. */
function referencingColumns(schema: DatabaseSchema, table: TableSchema, column: string): [string, string][] {
  const out: [string, string][] = [];
  for (const child of schema.tables) {
    for (const fk of child.foreignKeys) {
      if (fk.parentTable.toLowerCase() !== table.name.toLowerCase()) continue;
      const position = fk.parentColumns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
      if (position >= 0) out.push([child.name, fk.columns[position]!]);
    }
  }
  return out;
}

/**
 * Applies a value mapping to a column and to every column referencing it. Each affected table is
 * rewritten whole (rows read, deleted and inserted again with the same rowids), so that UNIQUE
 * and CHECK constraints see only the final values, never a half-applied permutation.
 */
function mapColumn(schema: DatabaseSchema, db: ScratchDatabase, table: TableSchema, column: string, pairs: readonly (readonly [GenValue, GenValue])[]): void {
  if (pairs.length === 0) return;
  const mapping = new Map(pairs.map(([from, to]) => [`${typeof from}:${valueKey(from)}`, to]));
  const targets = new Map<string, Set<string>>();
  for (const [name, col] of [[table.name, column] as [string, string], ...referencingColumns(schema, table, column)]) {
    const key = name.toLowerCase();
    if (!targets.has(key)) targets.set(key, new Set());
    targets.get(key)!.add(col.toLowerCase());
  }
  for (const [name, columns] of targets) {
    const target = findTable(schema, name)!;
    const insertable = insertableColumns(target);
    const keepRowid = !target.withoutRowid && target.rowidAlias === null;
    const list = [...(keepRowid ? ['rowid'] : []), ...insertable.map(quoteIdentifier)];
    const rows = db.prepare(`SELECT ${list.join(', ')} FROM ${quoteIdentifier(target.name)}`).rows() as unknown[][];
    db.prepare(`DELETE FROM ${quoteIdentifier(target.name)}`).run();
    const insert = db.prepare(`INSERT INTO ${quoteIdentifier(target.name)} (${list.join(', ')}) VALUES (${list.map(() => '?').join(', ')})`);
    const offset = keepRowid ? 1 : 0;
    for (const raw of rows) {
      const values = raw.map(fromSafeIntegerCell);
      insertable.forEach((col, i) => {
        if (!columns.has(col.toLowerCase())) return;
        const value = values[offset + i]!;
        const to = mapping.get(`${typeof value}:${valueKey(value)}`);
        if (to !== undefined) values[offset + i] = to;
      });
      insert.run(...values.map(bindable));
    }
  }
}
