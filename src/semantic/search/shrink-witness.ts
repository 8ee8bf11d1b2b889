/**
 * Shrinking a counterexample: make the distinguishing database as small and plain as it can be
 * while it still refutes the prediction, so that a person can read why.
 *
 * Steps, each edit kept only when the edited database still refutes (the caller's check, which
 * runs the queries in the engine):
 * 1. Whole tables, children first (fill order reversed): delete every row of a table (rows that
 *    reference them through a foreign key that may not be NULL go with them).
 * 2. Rows, table by table: delete blocks of rows, halving the block size down to single rows
 *    (the ddmin scheme of Zeller & Hildebrandt, "Simplifying and Isolating Failure-Inducing
 *    Input", 2002, applied per table), until a pass removes nothing.
 * 3. Values, column by column: first rename the column's distinct values to the simplest ones in
 *    the same order (1, 2, 3 …; 'a', 'b', 'c' …), keeping the queries' constants; when that no
 *    longer refutes, simplify cell by cell (a smaller integer, a shorter string, a constant of the
 *    queries, a value the column already holds). References follow a renamed key. Dates, times,
 *    blobs, derived columns and lookup tables are left as they are.
 * 4. Steps 1 and 2 once more when values changed: a renamed reference can leave a row unused.
 *
 * Every edit is repaired and checked like a fresh draw (edit-database.ts), so the result keeps the
 * contract of generated databases (database-contract.ts): the schema, the fixture's invariants and
 * the NULL policy. The work is bounded by a number of trials and a deadline.
 */
import { copyFileSync, renameSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { WitnessShrink } from '../../rungs/semantic-details.js';
import { addRejections, type RejectedDatabases } from '../generation/database-contract.js';
import { editDatabase, readStoredTables, type DatabaseEdit, type StoredTable } from '../generation/edit-database.js';
import { valueKey, type GenValue } from '../model/gen-value.js';
import type { GeneratorPlan } from '../generation/generator-plan.js';
import { columnKey, isLookupTable } from '../model/invariants.js';
import { compareValues } from '../model/observed-values.js';
import { findTable } from '../model/schema-reader.js';
import type { ColumnPool } from '../generation/value-pools.js';

/** Inputs of {@link shrinkWitness}. */
export interface ShrinkInput {
  readonly plan: GeneratorPlan;
  /** The refuting database (read, never written). */
  readonly source: string;
  /** Scratch file for each trial (overwritten). */
  readonly trialFile: string;
  /** Where the smallest refuting database is kept (overwritten; starts as a copy of `source`). */
  readonly bestFile: string;
  /** Runs the queries on a database: true when it still refutes. */
  readonly stillRefutes: (file: string) => Promise<boolean>;
  /** Most edited databases tried (integer ≥ 0). */
  readonly maxTrials: number;
  /** `performance.now()` value after which no new trial starts. */
  readonly deadline: number;
}

/** What {@link shrinkWitness} did: the counts a witness reports, and the file. */
export interface ShrinkResult extends WitnessShrink {
  /** `bestFile`, holding the smallest refuting database found. */
  readonly file: string;
  /** Edited databases dropped because they broke the contract, by rule (database-contract.ts). */
  readonly rejected: RejectedDatabases;
}

/** Simplest integers, reals and strings tried first. */
const SIMPLE_INTEGERS: readonly bigint[] = [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 0n];
const SIMPLE_TEXT: readonly string[] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
/** Candidates tried per cell in the cell-by-cell step. */
const CANDIDATES_PER_CELL = 4;

/**
 * Shrinks a refuting database.
 * @returns the file with the smallest database that still refutes, and counts.
 */
export async function shrinkWitness(input: ShrinkInput): Promise<ShrinkResult> {
  copyFileSync(input.source, input.bestFile);
  const { plan } = input;
  let trials = 0;
  let accepted = 0;
  let valuesSimplified = 0;
  let stoppedBy: ShrinkResult['stoppedBy'] = 'done';
  let rejected: RejectedDatabases = {};
  const rowsOf = (tables: readonly StoredTable[]): number => tables.reduce((n, t) => n + t.rows.length, 0);
  let tables = readStoredTables(input.bestFile, plan.schema);
  const rowsBefore = rowsOf(tables);

  const budgetLeft = (): boolean => {
    if (trials >= input.maxTrials) stoppedBy = 'trials';
    else if (performance.now() >= input.deadline) stoppedBy = 'deadline';
    else return true;
    return false;
  };
  /** Applies edits to the best database; keeps the result when it still refutes. */
  const attempt = async (edits: readonly DatabaseEdit[]): Promise<boolean> => {
    trials += 1;
    const outcome = editDatabase(plan, input.bestFile, edits, input.trialFile);
    rejected = addRejections(rejected, outcome.rejected);
    if (!outcome.ok || !(await input.stillRefutes(input.trialFile))) return false;
    renameSync(input.trialFile, input.bestFile);
    accepted += 1;
    tables = readStoredTables(input.bestFile, plan.schema);
    return true;
  };

  const derived = new Set(plan.invariants.filter((i) => i.kind === 'derive').map((i) => columnKey(i.tableName, i.columnName!)));
  const removeRowSteps = async (): Promise<void> => {
    // 1. Whole tables, children first.
    for (const name of [...plan.order.tables].reverse()) {
      if (!budgetLeft()) break;
      const table = tables.find((t) => t.name === name)!;
      if (table.rows.length === 0) continue;
      await attempt([{ kind: 'delete', table: name, rows: table.rows.map((r) => r.key) }]);
    }

    // 2. Blocks of rows, halving down to single rows, until a pass removes nothing.
    for (let progress = true; progress && stoppedBy === 'done'; ) {
      progress = false;
      for (const name of plan.order.tables) {
        let chunk = Math.ceil((tables.find((t) => t.name === name)?.rows.length ?? 0) / 2);
        while (chunk >= 1 && stoppedBy === 'done') {
          const rows = tables.find((t) => t.name === name)!.rows;
          for (let start = 0; start < rows.length; ) {
            if (!budgetLeft()) break;
            const current = tables.find((t) => t.name === name)!.rows;
            const block = current.slice(start, start + chunk);
            if (block.length === 0 || block.length === current.length) {
              start += chunk;
              continue;
            }
            if (await attempt([{ kind: 'delete', table: name, rows: block.map((r) => r.key) }])) progress = true;
            else start += chunk;
          }
          chunk = chunk === 1 ? 0 : Math.ceil(chunk / 2);
        }
      }
    }
  };

  await removeRowSteps();
  // 3. Values, column by column.
  for (const name of plan.order.tables) {
    if (stoppedBy !== 'done') break;
    const schemaTable = findTable(plan.schema, name)!;
    if (isLookupTable(plan.invariants, schemaTable)) continue;
    const columns = tables.find((t) => t.name === name)!.columns;
    for (let c = 0; c < columns.length && stoppedBy === 'done'; c += 1) {
      const column = columns[c]!;
      const pool = plan.pools.get(columnKey(name, column));
      if (pool === undefined || derived.has(columnKey(name, column)) || !simplifiable(pool)) continue;
      const cells = (): GenValue[] => tables.find((t) => t.name === name)!.rows.map((r) => r.values[c]!);
      // Whole column: distinct values renamed in order.
      const renaming = renameInOrder(cells(), pool);
      if (renaming.length > 0 && budgetLeft()) {
        const before = cells();
        if (await attempt([{ kind: 'map', table: name, column, pairs: renaming }])) {
          valuesSimplified += before.filter((v, i) => valueKey(v) !== valueKey(cells()[i]!)).length;
          continue;
        }
      }
      // Cell by cell.
      const rowCount = tables.find((t) => t.name === name)!.rows.length;
      for (let r = 0; r < rowCount && budgetLeft(); r += 1) {
        const row = tables.find((t) => t.name === name)!.rows[r];
        if (row === undefined) break;
        const value = row.values[c]!;
        for (const candidate of simplerValues(value, pool, cells()).slice(0, CANDIDATES_PER_CELL)) {
          if (!budgetLeft()) break;
          if (await attempt([{ kind: 'set', table: name, row: row.key, column, value: candidate }])) {
            valuesSimplified += 1;
            break;
          }
        }
      }
    }
  }
  // A renamed reference can leave its old parent row unused: remove rows once more.
  if (valuesSimplified > 0 && stoppedBy === 'done') await removeRowSteps();
  return { file: input.bestFile, rowsBefore, rowsAfter: rowsOf(tables), trials, accepted, valuesSimplified, stoppedBy, rejected };
}

function simplifiable(pool: ColumnPool): boolean {
  return pool.kind === 'integer' || pool.kind === 'real' || pool.kind === 'text';
}

/** How plain a value reads: shorter first, then smaller magnitude (0 after 1 … 9: ids read from 1), then positive. */
function plainness(value: GenValue): [number, number, string] {
  const magnitude = (abs: number): number => (abs === 0 ? 9.5 : abs);
  if (typeof value === 'bigint') {
    const abs = value < 0n ? -value : value;
    return [abs.toString().length + (value < 0n ? 1 : 0), magnitude(Number(abs)), ''];
  }
  if (typeof value === 'number') return [String(value).length + (Number.isInteger(value) ? 0 : 1), magnitude(Math.abs(value)), ''];
  if (typeof value === 'string') return [value.length, 0, value];
  return [Number.MAX_SAFE_INTEGER, 0, ''];
}

function plainer(a: GenValue, b: GenValue): boolean {
  const [la, ma, sa] = plainness(a);
  const [lb, mb, sb] = plainness(b);
  return la !== lb ? la < lb : ma !== mb ? ma < mb : sa < sb;
}

type Storage = 'bigint' | 'number' | 'string';

function storageOf(value: GenValue): Storage | null {
  if (typeof value === 'bigint') return 'bigint';
  if (typeof value === 'number') return 'number';
  return typeof value === 'string' ? 'string' : null;
}

/** The simplest values of one storage class the column accepts, plainest first. */
function simpleValuesOf(storage: Storage, pool: ColumnPool): GenValue[] {
  const base: GenValue[] = storage === 'bigint' ? [...SIMPLE_INTEGERS] : storage === 'number' ? SIMPLE_INTEGERS.map((n) => Number(n)) : [...SIMPLE_TEXT];
  const fixed = pool.fixedValues;
  const allowed = (v: GenValue): boolean => pool.accepts(v) && (fixed === undefined || fixed.some((f) => typeof f === typeof v && valueKey(f) === valueKey(v)));
  return (fixed === undefined ? base : [...fixed].filter((v) => storageOf(v) === storage).sort((a, b) => (plainer(a, b) ? -1 : plainer(b, a) ? 1 : 0))).filter(allowed);
}

const keyOf = (v: GenValue): string => `${typeof v}:${valueKey(v)}`;

/**
 * A renaming of the column's distinct values to the simplest ones in the same order (so that
 * comparisons between them keep their truth); values equal to one of the queries' constants keep
 * their value. Only for a column whose values share one storage class, and only when every
 * renamed value gets a plainer one.
 * @returns `[from, to]` pairs that change something; empty when nothing would change.
 */
function renameInOrder(cells: readonly GenValue[], pool: ColumnPool): (readonly [GenValue, GenValue])[] {
  const constants = new Set(pool.constants.map(keyOf));
  const present = cells.filter((v): v is Exclude<GenValue, null> => v !== null);
  const storage = present.length > 0 ? storageOf(present[0]!) : null;
  if (storage === null || present.some((v) => storageOf(v) !== storage)) return [];
  const distinct = new Map<string, GenValue>();
  for (const v of present) if (!constants.has(keyOf(v))) distinct.set(keyOf(v), v);
  const values = [...distinct.values()].sort(compareValues);
  // Kept apart: values that stay (constants present in the column) and the constants themselves.
  const taken = new Set(present.filter((v) => constants.has(keyOf(v))).map((v) => valueKey(v)));
  const simple = simpleValuesOf(storage, pool).filter((v) => !constants.has(keyOf(v)) && !taken.has(valueKey(v)));
  if (simple.length < values.length) return [];
  const targets = simple.slice(0, values.length).sort(compareValues);
  // Numbers keep their side of every numeric constant (`amount > 10` keeps reading the same).
  const sides = (v: GenValue): string => pool.constants.filter((k) => typeof k === 'bigint' || typeof k === 'number').map((k) => Math.sign(compareValues(v, k))).join(',');
  const pairs = values.map((v, i) => [v, targets[i]!] as const);
  if (storage !== 'string' && pairs.some(([from, to]) => sides(from) !== sides(to))) return [];
  const changing = pairs.filter(([from, to]) => keyOf(from) !== keyOf(to));
  return changing.every(([from, to]) => plainer(to, from)) ? changing : [];
}

/**
 * Values plainer than `value` for one cell, in the order they are tried: the plainest value of its
 * storage class, then the queries' constants (plainest first: a witness usually needs a value
 * on the right side of a constant), then the other simple values and the values its column holds.
 */
function simplerValues(value: GenValue, pool: ColumnPool, column: readonly GenValue[]): GenValue[] {
  const storage = storageOf(value);
  if (storage === null) return [];
  const byPlainness = (a: GenValue, b: GenValue): number => (plainer(a, b) ? -1 : plainer(b, a) ? 1 : 0);
  const simple = simpleValuesOf(storage, pool);
  const constants = pool.constants.filter((c) => storageOf(c) === storage).sort(byPlainness);
  const seen = new Set<string>();
  const out: GenValue[] = [];
  for (const candidate of [...simple.slice(0, 1), ...constants, ...simple.slice(1), ...[...column].sort(byPlainness)]) {
    if (candidate === null || storageOf(candidate) !== storage) continue;
    const key = keyOf(candidate);
    if (seen.has(key) || !plainer(candidate, value) || !pool.accepts(candidate)) continue;
    if (pool.fixedValues !== undefined && !pool.fixedValues.some((f) => keyOf(f) === key)) continue;
    seen.add(key);
    out.push(candidate);
  }
  return out;
}
