/**
 * Drawing the rows of one table: foreign keys from the parents' rows, other columns from their
 * value pools, with in-memory checks of primary keys, UNIQUE sets and the declared row `check`s
 * before SQLite sees the row (table-filler.ts inserts it).
 */
import type { ScratchDatabase, ScratchStatement } from '../scratch/scratch-database.js';
import type { CheckInvariant } from '../../fixtures/fixture-invariant.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';
import { bindable } from './database-repair.js';
import { nullAllowed } from './database-contract.js';
import { drawValue, freshValue, type DrawProfile } from './draw-value.js';
import { valueKey, type GenValue } from '../model/gen-value.js';
import type { GeneratorPlan } from './generator-plan.js';
import type { ColumnPool } from './value-pools.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { columnKey, type BoundInvariant } from '../model/invariants.js';
import type { Prng } from '../model/prng.js';
import { findTable, insertableColumns, type TableSchema } from '../model/schema-reader.js';

/** A row as inserted: values by the table's insertable columns, plus its rowid. */
export interface StoredRow {
  readonly values: GenValue[];
  readonly rowid: bigint;
}

/** What a row generator reads of the database being filled. */
export interface FillState {
  readonly plan: GeneratorPlan;
  readonly db: ScratchDatabase;
  /** Rows inserted so far, by table name. */
  readonly rows: ReadonlyMap<string, readonly StoredRow[]>;
}

/** Draws rows of one table. */
export class RowGenerator {
  readonly #previous: GenValue[][];
  /** Per column: the database's profile, with the snapshots' NULL share instead of the profile's for two columns in three. */
  readonly #profiles: DrawProfile[];
  readonly #keys: { readonly positions: number[]; readonly seen: Set<string> }[];
  readonly #checks: { readonly statement: ScratchStatement }[];
  readonly #deferredColumns: Set<string>;
  readonly #brokenColumns: Set<string>;
  readonly #uniqueColumns: Set<number>;
  readonly #sequentialKey: number | null;
  /** Per foreign key, what `draw` reads of it and of its parent table (fixed for the plan). */
  readonly #foreignKeys: readonly { readonly deferred: boolean; readonly parentTable: string; readonly parentPositions: readonly number[]; readonly nullOk: boolean; readonly positions: readonly number[] }[];
  /** Per column: its pool, whether it must hold a value, whether it is a broken foreign key (NULL only) and may hold NULL. */
  readonly #columns: readonly { readonly pool: ColumnPool; readonly required: boolean; readonly broken: boolean; readonly nullOk: boolean }[];
  #nextKey = 1n;

  constructor(
    readonly filler: FillState,
    readonly table: TableSchema,
    readonly columns: readonly string[],
    readonly rng: Prng,
    readonly profile: DrawProfile,
    readonly fkSkew: number,
  ) {
    this.#previous = columns.map(() => []);
    this.#profiles = columns.map((column) => {
      const pool = filler.plan.pools.get(columnKey(table.name, column));
      // Where the snapshots hold NULLs, mostly keep their share (soft-delete columns are mostly NULL).
      return pool !== undefined && pool.observedNullFraction > 0 && rng.chance(2 / 3) ? { ...profile, nullRate: pool.observedNullFraction } : profile;
    });
    const position = (name: string): number => columns.indexOf(name);
    const keys = [...(table.primaryKey.length > 0 ? [table.primaryKey] : []), ...table.uniqueKeys];
    this.#keys = keys.map((key) => ({ positions: key.map(position), seen: new Set<string>() })).filter((k) => k.positions.every((p) => p >= 0));
    this.#uniqueColumns = new Set(this.#keys.filter((k) => k.positions.length === 1).map((k) => k.positions[0]!));
    this.#deferredColumns = new Set(filler.plan.order.deferred.filter((d) => d.table === table.name).flatMap((d) => d.foreignKey.columns));
    // A foreign key to a table or column that does not exist holds only NULL (foreign_key_check
    // reports every other value).
    this.#brokenColumns = new Set(filler.plan.schema.brokenForeignKeys.filter((b) => b.table === table.name).flatMap((b) => b.columns.map((c) => c.toLowerCase())));
    const derived = new Set(filler.plan.invariants.filter((i) => i.kind === 'derive').map((i) => (i.columnName ?? '').toLowerCase()));
    this.#checks = filler.plan.invariants
      .filter((i): i is BoundInvariant & CheckInvariant => i.kind === 'check' && i.tableName === table.name)
      .filter((check) => !tokenizeSqlite(check.sql).some((t) => (t.kind === 'word' || t.kind === 'double_quoted' || t.kind === 'quoted_identifier') && derived.has(t.value.toLowerCase())))
      .map((check) => ({
        statement: filler.db.prepare(
          `SELECT NOT (${check.sql}) FROM (SELECT ${columns.map((c) => `? AS ${quoteIdentifier(c)}`).join(', ')}) AS ${quoteIdentifier(table.name)}`,
        ),
      }));
    const plan = filler.plan;
    this.#foreignKeys = table.foreignKeys.map((fk) => {
      const parentTable = findTable(plan.schema, fk.parentTable)!;
      const parentColumns = insertableColumns(parentTable);
      return {
        deferred: fk.columns.some((c) => this.#deferredColumns.has(c)),
        parentTable: parentTable.name,
        parentPositions: fk.parentColumns.map((pc) => parentColumns.indexOf(pc)),
        nullOk: nullAllowed(plan.contract, table, fk.columns),
        positions: fk.columns.map((c) => columns.indexOf(c)),
      };
    });
    this.#columns = columns.map((name) => {
      const column = table.columns.find((c) => c.name === name)!;
      return {
        pool: plan.pools.get(columnKey(table.name, name))!,
        required: column.notNull || column.primaryKeyPosition > 0,
        broken: this.#brokenColumns.has(name.toLowerCase()),
        nullOk: nullAllowed(plan.contract, table, [name]),
      };
    });
    const integerKey = table.primaryKey.length === 1 && filler.plan.pools.get(columnKey(table.name, table.primaryKey[0]!))?.kind === 'integer';
    this.#sequentialKey = integerKey && rng.chance(0.6) ? position(table.primaryKey[0]!) : null;
    if (this.#sequentialKey !== null) this.#nextKey = BigInt(rng.pick([1, 1, 0, 100]));
  }

  /** One candidate row, or `null` when a required parent has no rows. */
  draw(fixed: { column: string; parentRow: StoredRow; fk: number } | undefined, attempt: number): GenValue[] | null {
    const values: (GenValue | undefined)[] = this.columns.map(() => undefined);
    for (let f = 0; f < this.#foreignKeys.length; f += 1) {
      const fk = this.#foreignKeys[f]!;
      if (fk.deferred) continue;
      const keyOf = (row: StoredRow): GenValue[] => fk.parentPositions.map((p) => row.values[p] ?? null);
      // NULL only where the contract allows it (the schema and the NULL policy): when no parent row
      // exists and NULL is not allowed, the row is not written.
      const all = this.filler.rows.get(fk.parentTable) ?? [];
      const parents = fk.nullOk ? all : all.filter((row) => keyOf(row).every((v) => v !== null));
      let parent: StoredRow | undefined;
      if (fixed !== undefined && fixed.fk === f) parent = fixed.parentRow;
      else if (parents.length === 0 || (fk.nullOk && this.rng.chance(this.profile.nullRate))) parent = undefined;
      else if (this.fkSkew > 0 && this.rng.chance(this.fkSkew)) parent = parents[this.rng.int(0, Math.max(0, Math.ceil(parents.length / 3) - 1))];
      else parent = this.rng.pick(parents);
      if (parent === undefined && !fk.nullOk) return null;
      const key = parent === undefined ? null : keyOf(parent);
      fk.positions.forEach((at, i) => {
        if (at < 0 || values[at] !== undefined) return;
        values[at] = key === null ? null : key[i]!;
      });
    }
    for (let i = 0; i < this.columns.length; i += 1) {
      if (values[i] !== undefined) continue;
      const column = this.#columns[i]!;
      if (column.broken) {
        if (!column.nullOk) return null;
        values[i] = null;
        continue;
      }
      const pool = column.pool;
      if (i === this.#sequentialKey) {
        values[i] = this.#nextKey;
        continue;
      }
      // After a collision, a column of a single-column key takes the next integer above those
      // drawn (integer keys) or a fresh value.
      let value: GenValue;
      if (attempt >= 1 && this.#uniqueColumns.has(i) && pool.fixedValues === undefined && pool.kind === 'integer') value = this.#nextAbove(i);
      else if (attempt >= 2 && this.#uniqueColumns.has(i) && pool.fixedValues === undefined) value = freshValue(pool, this.rng);
      else value = drawValue(pool, this.rng, this.#profiles[i]!, this.#previous[i]!);
      if (value === null && column.required) value = pool.observed.length > 0 ? this.rng.pick(pool.observed) : freshValue(pool, this.rng);
      values[i] = value;
    }
    return values as GenValue[];
  }

  /** One more than the largest integer drawn in column `i` (1 when none). */
  #nextAbove(i: number): bigint {
    let max = 0n;
    for (const v of this.#previous[i]!) {
      const n = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null;
      if (n !== null && n > max) max = n;
    }
    return max + 1n;
  }

  /** True when no primary-key or UNIQUE column set repeats (NULLs never collide, as in SQLite). */
  keysAreFree(values: readonly GenValue[]): boolean {
    return this.#keys.every((key) => {
      const parts = key.positions.map((p) => values[p]!);
      if (parts.some((v) => v === null)) return true;
      return !key.seen.has(parts.map(valueKey).join('\u0001'));
    });
  }

  /** True when every declared row check holds for the candidate. */
  passesRowChecks(values: readonly GenValue[]): boolean {
    return this.#checks.every(({ statement }) => {
      const violated = statement.value(...values.map(bindable)) as bigint | number | null;
      return !(violated === 1n || violated === 1);
    });
  }

  /** Records an inserted row: its values for later duplicates, its keys for uniqueness, the next sequential key. */
  remember(values: readonly GenValue[]): void {
    values.forEach((v, i) => {
      if (v !== null) this.#previous[i]!.push(v);
    });
    for (const key of this.#keys) {
      const parts = key.positions.map((p) => values[p]!);
      if (parts.some((v) => v === null)) continue;
      key.seen.add(parts.map(valueKey).join('\u0001'));
    }
    if (this.#sequentialKey !== null) this.#nextKey += 1n;
  }
}
