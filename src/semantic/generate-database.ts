/**
 * The database generator: fills any SQLite schema with random rows that respect it — types,
 * primary keys, UNIQUE, NOT NULL, CHECK, foreign keys — and the fixture's declared invariants,
 * from seeded value pools. The same plan and stream always give the same bytes (for one SQLite
 * version), so a test suite is stored as `{ generator version, seed, kept indices }`.
 *
 * How one database is made (an in-memory SQLite database, then `VACUUM INTO` the file):
 * 1. Create the tables and indexes exactly as the schema declares them (triggers are not copied).
 * 2. Fill tables parents first (fill-order.ts). Per row: foreign keys take a parent row's key
 *    (NULL sometimes when nullable); a `children` invariant fills the child per parent row; a
 *    `lookup` table copies a subset of the snapshots' rows; other columns draw from their pools
 *    (value-pools.ts). A row that breaks a key in memory, a declared row `check`, or any
 *    constraint SQLite enforces on INSERT (CHECK, NOT NULL, UNIQUE, STRICT types) is redrawn, up to
 *    12 times, then skipped.
 * 3. Fill deferred foreign keys (cycles, self-references) from the rows their parents now have.
 * 4. Compute `derive` columns in declaration order (`UPDATE … SET col = (sql)`).
 * 5. Repair: rows that break a `check` that reads derived columns, parents with too few or too
 *    many `children`, and rows whose foreign key lost its parent are deleted (children of deleted
 *    rows with them), then derived columns are recomputed; at most 4 rounds.
 * 6. Create the views; verify `PRAGMA integrity_check`, `PRAGMA foreign_key_check` and every
 *    invariant's violation query; then `VACUUM INTO` the output file. A database that fails is
 *    redrawn from a fresh sub-stream (`attempt/1`, …); after `maxAttempts` the outcome says why.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { bindable, isConstraintError, mayBeNull, repairAndDerive, verifyOpenDatabase } from './database-repair.js';
import { computeFillOrder, type FillOrder } from './fill-order.js';
import { valueKey, type GenValue } from './gen-value.js';
import type { GoldLiteral } from './gold-literals.js';
import {
  RANDOM_FUNCTION,
  columnKey,
  describeInvariant,
  invariantViolationSql,
  quoteIdentifier,
  type BoundInvariant,
  type CheckInvariant,
  type ChildrenInvariant,
} from './invariants.js';
import { readObservedValues, type ObservedData } from './observed-values.js';
import type { Prng } from './prng.js';
import { findTable, type DatabaseSchema, type TableSchema } from './schema-reader.js';
import { buildValuePools, drawProfile, drawValue, freshValue, type ColumnPool, type DrawProfile, type NullPolicy } from './value-pools.js';
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';

export { removeRows, type RowRemoval } from './edit-database.js';

/**
 * Version of the generation procedure. Bumped whenever a change could alter the bytes generated
 * from a seed, so that cached suites are rebuilt instead of regenerated differently.
 */
export const GENERATOR_VERSION = 2;

/** Everything fixed for one schema, gold set and invariant set: the input of every draw. */
export interface GeneratorPlan {
  readonly schema: DatabaseSchema;
  readonly invariants: readonly BoundInvariant[];
  readonly pools: ReadonlyMap<string, ColumnPool>;
  readonly observed: ObservedData;
  readonly order: FillOrder;
}

/** Inputs of {@link createGeneratorPlan}. */
export interface CreatePlanInput {
  readonly schema: DatabaseSchema;
  /** Snapshot files whose values seed the pools (opened read-only). */
  readonly snapshots: readonly string[];
  /** Gold constants to place in their columns (gold-literals.ts). */
  readonly literals?: readonly GoldLiteral[];
  /** Invariants bound to `schema` (see `bindInvariants`). */
  readonly invariants?: readonly BoundInvariant[];
  /** Where NULLs may go: `allowed` by the schema (default) or only where `observed` in the snapshots. */
  readonly nulls?: NullPolicy;
  /**
   * The snapshots' values when already read (`readObservedValues` with the `lookup` tables'
   * rows): `snapshots` is then not read again. Lets a caller build many plans that differ only
   * in their literals (one per gold/prediction pair) from one read.
   */
  readonly observed?: ObservedData;
}

/**
 * Reads the snapshots' values and builds the pools and the fill order.
 * @throws LadderError from reading a snapshot (`db_not_found`).
 */
export function createGeneratorPlan(input: CreatePlanInput): GeneratorPlan {
  const invariants = input.invariants ?? [];
  const rowTables = invariants.filter((i) => i.kind === 'lookup').map((i) => i.tableName);
  const observed = input.observed ?? readObservedValues(input.snapshots, input.schema, { rowTables });
  const pools = buildValuePools({ schema: input.schema, observed, literals: input.literals ?? [], invariants, ...(input.nulls ? { nulls: input.nulls } : {}) });
  return { schema: input.schema, invariants, pools, observed, order: computeFillOrder(input.schema) };
}

/** Rows per table for one database. */
export interface RowRange {
  /** Fewest rows per table (integer ≥ 0). */
  readonly min: number;
  /** Most rows per table (integer ≥ min). */
  readonly max: number;
}

/** Size tiers drawn when no {@link RowRange} is given: from a few rows to a few hundred. */
export const SIZE_TIERS: readonly (readonly [RowRange & { readonly name: string }, number])[] = [
  [{ name: 'tiny', min: 1, max: 3 }, 3],
  [{ name: 'small', min: 2, max: 10 }, 3],
  [{ name: 'medium', min: 8, max: 40 }, 3],
  [{ name: 'large', min: 40, max: 300 }, 1],
];

/** Options of {@link generateDatabase}. */
export interface GenerateOptions {
  /** The database's stream: the same plan and stream give the same bytes. */
  readonly rng: Prng;
  /** Output file; overwritten. */
  readonly file: string;
  /** Rows per table (before constraints skip any); default: a tier of {@link SIZE_TIERS} drawn from `rng`. */
  readonly rows?: RowRange;
  /** Databases drawn (each from a fresh sub-stream) before giving up; default 4. */
  readonly maxAttempts?: number;
}

/** A database written to disk. */
export interface GeneratedDatabase {
  readonly file: string;
  /** sha256 of the file's bytes, lower-case hex. */
  readonly checksum: string;
  /** Rows per table, by table name. */
  readonly rowCounts: Readonly<Record<string, number>>;
  /** The size tier (`tiny` … `large`, or `given`). */
  readonly tier: string;
  /** 0-based attempt that succeeded. */
  readonly attempt: number;
  /** Rows that could not be drawn within the constraints (skipped), plus rows deleted by repairs. */
  readonly droppedRows: number;
}

/** The outcome of {@link generateDatabase}: a database, or why none could be made. */
export type GenerateOutcome =
  | { readonly ok: true; readonly database: GeneratedDatabase }
  | { readonly ok: false; readonly reason: string; readonly attempts: number };

/**
 * Generates one database.
 *
 * @param plan - from {@link createGeneratorPlan}.
 * @param options - stream, output file, optional rows per table.
 * @returns the file with its checksum and row counts, or `ok: false` with the last attempt's reason
 *   (e.g. `invariant check order_items: 2 violating rows`); never leaves a half-written file.
 * @throws RangeError for a bad `rows` range.
 */
export function generateDatabase(plan: GeneratorPlan, options: GenerateOptions): GenerateOutcome {
  if (options.rows !== undefined) {
    const { min, max } = options.rows;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
      throw new RangeError(`rows must be { min, max } with integers 0 ≤ min ≤ max; received ${JSON.stringify(options.rows)}`);
    }
  }
  const maxAttempts = options.maxAttempts ?? 4;
  let reason = 'no attempt was made';
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const rng = attempt === 0 ? options.rng : options.rng.fork(`attempt/${attempt}`);
    const result = drawOnce(plan, rng, options.rows, options.file);
    if (result.ok) {
      const checksum = createHash('sha256').update(readFileSync(options.file)).digest('hex');
      return { ok: true, database: { file: options.file, checksum, rowCounts: result.rowCounts, tier: result.tier, attempt, droppedRows: result.droppedRows } };
    }
    reason = result.reason;
  }
  return { ok: false, reason, attempts: maxAttempts };
}

type DrawResult =
  | { readonly ok: true; readonly rowCounts: Record<string, number>; readonly tier: string; readonly droppedRows: number }
  | { readonly ok: false; readonly reason: string };

function drawOnce(plan: GeneratorPlan, rng: Prng, rows: RowRange | undefined, file: string): DrawResult {
  const tierRng = rng.fork('sizes');
  const tier = rows ? { name: 'given', ...rows } : tierRng.pickWeighted(SIZE_TIERS);
  const db = new Database(':memory:');
  try {
    db.defaultSafeIntegers(true);
    db.pragma('page_size = 4096');
    db.pragma('foreign_keys = OFF');
    const deriveRng = rng.fork('derive');
    db.function(RANDOM_FUNCTION, { deterministic: false, varargs: true, safeIntegers: true }, () => deriveRng.next());
    for (const table of plan.schema.tables) db.exec(table.createSql);
    for (const index of plan.schema.indexes) db.exec(index.sql);

    const filler = new TableFiller(plan, db, rng, tier);
    for (const name of plan.order.tables) filler.fill(findTable(plan.schema, name)!, tierRng);
    filler.fillDeferred();
    const repaired = repairAndDerive(plan, db);
    if (!repaired.ok) return repaired;
    for (const view of plan.schema.views) db.exec(view.sql);
    const problem = verifyOpenDatabase(plan, db);
    if (problem !== null) return { ok: false, reason: problem };
    const rowCounts: Record<string, number> = {};
    for (const table of plan.schema.tables) {
      rowCounts[table.name] = Number(db.prepare(`SELECT COUNT(*) FROM ${quoteIdentifier(table.name)}`).pluck().get());
    }
    const temp = `${file}.tmp-${process.pid}`;
    rmSync(temp, { force: true });
    // The output is a scratch or cache file checked by checksum: no fsync (same bytes, half the time).
    db.pragma('synchronous = OFF');
    db.prepare('VACUUM INTO ?').run(temp);
    renameSync(temp, file);
    return { ok: true, rowCounts, tier: tier.name, droppedRows: filler.skipped + repaired.deleted };
  } catch (error) {
    return { ok: false, reason: `generation failed: ${(error as Error).message}` };
  } finally {
    db.close();
  }
}

/** A row as inserted: values by the table's insertable columns, plus its rowid. */
interface StoredRow {
  readonly values: GenValue[];
  readonly rowid: bigint;
}

class TableFiller {
  readonly rows = new Map<string, StoredRow[]>();
  skipped = 0;
  readonly #profile: DrawProfile;
  readonly #fkSkew: number;

  constructor(
    readonly plan: GeneratorPlan,
    readonly db: Database.Database,
    readonly rng: Prng,
    readonly tier: RowRange,
  ) {
    const profileRng = rng.fork('profile');
    this.#profile = drawProfile(profileRng);
    this.#fkSkew = profileRng.pick([0, 0, 0.5, 0.8]);
  }

  /** Columns that get values on INSERT (generated columns are computed by SQLite). */
  static insertable(table: TableSchema): string[] {
    return table.columns.filter((c) => !c.generated).map((c) => c.name);
  }

  fill(table: TableSchema, sizeRng: Prng): void {
    const rng = this.rng.fork(`table/${table.name}`);
    const columns = TableFiller.insertable(table);
    const stored: StoredRow[] = [];
    this.rows.set(table.name, stored);
    const lookup = this.plan.invariants.some((i) => i.kind === 'lookup' && i.tableName === table.name);
    const insert = this.db.prepare(`INSERT INTO ${quoteIdentifier(table.name)} (${columns.map(quoteIdentifier).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const record = (values: GenValue[]): boolean => {
      try {
        const info = insert.run(...values.map(bindable));
        stored.push({ values, rowid: BigInt(info.lastInsertRowid) });
        return true;
      } catch (error) {
        if (isConstraintError(error)) return false;
        throw error;
      }
    };
    const target = sizeRng.chance(0.04) ? 0 : sizeRng.int(this.tier.min, this.tier.max);
    if (lookup) {
      const available = this.plan.observed.rows.get(table.name) ?? [];
      const chosen = rng.shuffle(available.map((_, i) => i)).slice(0, Math.min(available.length, Math.max(target, this.tier.min)));
      for (const i of chosen.sort((a, b) => a - b)) if (!record([...available[i]!])) this.skipped += 1;
      return;
    }
    const generator = new RowGenerator(this, table, columns, rng, this.#profile, this.#fkSkew);
    const children = this.plan.invariants.find((i): i is BoundInvariant & ChildrenInvariant => i.kind === 'children' && i.tableName === table.name);
    const plan: { fixed?: { column: string; parentRow: StoredRow; fk: number } }[] = [];
    if (children) {
      const fkIndex = table.foreignKeys.findIndex((fk) => fk.columns.length === 1 && fk.columns[0] === children.columnName);
      const fk = table.foreignKeys[fkIndex]!;
      const parents = this.rows.get(fk.parentTable) ?? [];
      const max = children.max ?? Math.max(children.min, 1) + 3;
      for (const parentRow of parents) {
        const count = rng.int(children.min, max);
        for (let k = 0; k < count; k += 1) plan.push({ fixed: { column: children.columnName!, parentRow, fk: fkIndex } });
      }
    } else {
      for (let r = 0; r < target; r += 1) plan.push({});
    }
    for (const slot of plan) {
      let done = false;
      for (let attempt = 0; attempt < 12 && !done; attempt += 1) {
        const values = generator.draw(slot.fixed, attempt);
        if (values === null) break;
        if (!generator.keysAreFree(values) || !generator.passesRowChecks(values)) continue;
        if (record(values)) {
          generator.remember(values);
          done = true;
        }
      }
      if (!done) this.skipped += 1;
    }
  }

  /** Fills deferred foreign keys (cycles, self-references) from the rows the parents now have. */
  fillDeferred(): void {
    for (const deferred of this.plan.order.deferred) {
      const table = findTable(this.plan.schema, deferred.table)!;
      const rng = this.rng.fork(`deferred/${table.name}/${deferred.index}`);
      const parentTable = findTable(this.plan.schema, deferred.foreignKey.parentTable)!;
      const parentRows = this.rows.get(parentTable.name) ?? [];
      const parentColumns = TableFiller.insertable(parentTable);
      const nullable = mayBeNull(table, deferred.foreignKey.columns);
      const nullByChoice = nullable && deferred.foreignKey.columns.every((c) => this.plan.pools.get(columnKey(table.name, c))?.nullable === true);
      const sets = deferred.foreignKey.columns.map((c) => `${quoteIdentifier(c)} = ?`).join(', ');
      const update = this.db.prepare(`UPDATE ${quoteIdentifier(table.name)} SET ${sets} WHERE rowid = ?`);
      for (const row of this.rows.get(table.name) ?? []) {
        let values: GenValue[];
        if (parentRows.length === 0 || (nullByChoice && rng.chance(this.#profile.nullRate + 0.1))) {
          if (!nullable) continue;
          values = deferred.foreignKey.columns.map(() => null);
        } else {
          const parent = rng.pick(parentRows);
          values = deferred.foreignKey.parentColumns.map((pc) => parent.values[parentColumns.indexOf(pc)] ?? null);
        }
        try {
          update.run(...values.map(bindable), row.rowid);
        } catch (error) {
          if (!isConstraintError(error)) throw error;
        }
      }
    }
  }
}

/** Draws rows of one table. */
class RowGenerator {
  readonly #previous: GenValue[][];
  /** Per column: the database's profile, with the snapshots' NULL share instead of the profile's for two columns in three. */
  readonly #profiles: DrawProfile[];
  readonly #keys: { readonly positions: number[]; readonly seen: Set<string> }[];
  readonly #checks: { readonly statement: Database.Statement }[];
  readonly #deferredColumns: Set<string>;
  readonly #brokenColumns: Set<string>;
  readonly #uniqueColumns: Set<number>;
  readonly #sequentialKey: number | null;
  #nextKey = 1n;

  constructor(
    readonly filler: TableFiller,
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
        ).pluck(),
      }));
    const integerKey = table.primaryKey.length === 1 && filler.plan.pools.get(columnKey(table.name, table.primaryKey[0]!))?.kind === 'integer';
    this.#sequentialKey = integerKey && rng.chance(0.6) ? position(table.primaryKey[0]!) : null;
    if (this.#sequentialKey !== null) this.#nextKey = BigInt(rng.pick([1, 1, 0, 100]));
  }

  /** One candidate row, or `null` when a required parent has no rows. */
  draw(fixed: { column: string; parentRow: StoredRow; fk: number } | undefined, attempt: number): GenValue[] | null {
    const values: (GenValue | undefined)[] = this.columns.map(() => undefined);
    for (let f = 0; f < this.table.foreignKeys.length; f += 1) {
      const fk = this.table.foreignKeys[f]!;
      if (fk.columns.some((c) => this.#deferredColumns.has(c))) continue;
      const parentTable = findTable(this.filler.plan.schema, fk.parentTable)!;
      const parentColumns = TableFiller.insertable(parentTable);
      const parents = this.filler.rows.get(parentTable.name) ?? [];
      const nullable = mayBeNull(this.table, fk.columns);
      // NULL by choice only where the NULL policy allows it (the columns' pools); NULL when no
      // parent row exists wherever the schema allows it.
      const nullByChoice = nullable && fk.columns.every((c) => this.filler.plan.pools.get(columnKey(this.table.name, c))?.nullable === true);
      let parent: StoredRow | undefined;
      if (fixed !== undefined && fixed.fk === f) parent = fixed.parentRow;
      else if (parents.length === 0 || (nullByChoice && this.rng.chance(this.profile.nullRate))) parent = undefined;
      else if (this.fkSkew > 0 && this.rng.chance(this.fkSkew)) parent = parents[this.rng.int(0, Math.max(0, Math.ceil(parents.length / 3) - 1))];
      else parent = this.rng.pick(parents);
      if (parent === undefined && !nullable) return null;
      fk.columns.forEach((column, i) => {
        const at = this.columns.indexOf(column);
        if (at < 0 || values[at] !== undefined) return;
        values[at] = parent === undefined ? null : parent.values[parentColumns.indexOf(fk.parentColumns[i]!)] ?? null;
      });
    }
    for (let i = 0; i < this.columns.length; i += 1) {
      if (values[i] !== undefined) continue;
      if (this.#brokenColumns.has(this.columns[i]!.toLowerCase())) {
        if (this.table.columns.find((c) => c.name === this.columns[i])!.notNull) return null;
        values[i] = null;
        continue;
      }
      const pool = this.filler.plan.pools.get(columnKey(this.table.name, this.columns[i]!))!;
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
      const column = this.table.columns.find((c) => c.name === this.columns[i])!;
      if (value === null && (column.notNull || column.primaryKeyPosition > 0)) value = pool.observed.length > 0 ? this.rng.pick(pool.observed) : freshValue(pool, this.rng);
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
      const violated = statement.get(...values.map(bindable)) as bigint | number | null;
      return !(violated === 1n || violated === 1);
    });
  }

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

/** What {@link verifyDatabaseFile} found. */
export interface DatabaseVerification {
  /** `PRAGMA integrity_check` rows (`['ok']` when sound). */
  readonly integrity: readonly string[];
  /** Rows `PRAGMA foreign_key_check` reports. */
  readonly foreignKeyViolations: number;
  /** Invariants with violating rows (lookup and random derives are not checkable alone). */
  readonly invariantViolations: readonly { readonly invariant: string; readonly rows: number }[];
}

/**
 * Checks a database file: integrity, foreign keys and the invariants. Opened read-only.
 * @param file - the database.
 * @param schema - the schema the invariants are bound to.
 * @param invariants - bound invariants.
 */
export function verifyDatabaseFile(file: string, schema: DatabaseSchema, invariants: readonly BoundInvariant[]): DatabaseVerification {
  if (!existsSync(file)) throw new RangeError(`no database at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('query_only = 1');
    const integrity = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
    const foreignKeyViolations = (db.prepare('PRAGMA foreign_key_check').raw(true).all() as unknown[]).length;
    const invariantViolations: { invariant: string; rows: number }[] = [];
    for (const invariant of invariants) {
      const sql = invariantViolationSql(invariant, schema);
      if (sql === null) continue;
      const rows = Number(db.prepare(sql).pluck().get());
      if (rows > 0) invariantViolations.push({ invariant: describeInvariant(invariant), rows });
    }
    return { integrity, foreignKeyViolations, invariantViolations };
  } finally {
    db.close();
  }
}

/**
 * Columns whose values are a known set on every database the fixture can hold, NULL included
 * when the schema (and a `values` list) allows it: `values` invariants, every column of a `lookup`
 * table (its snapshot rows), foreign keys into such a column, and `format: date | timestamp`
 * columns (every valid text of the format). Used to leave out
 * neighbours equivalent over the domain (domain-equivalence.ts).
 * @returns domains by column key (`table.column`, lower-case).
 */
export function finiteDomains(plan: GeneratorPlan): Map<string, GenValue[] | { readonly format: 'date' | 'timestamp'; readonly nullable: boolean }> {
  const out = new Map<string, GenValue[] | { readonly format: 'date' | 'timestamp'; readonly nullable: boolean }>();
  const withNull = (values: readonly GenValue[], nullable: boolean): GenValue[] => (nullable ? [...values, null] : [...values]);
  for (const invariant of plan.invariants) {
    if (invariant.kind === 'values') {
      const table = findTable(plan.schema, invariant.tableName)!;
      const column = table.columns.find((c) => c.name === invariant.columnName)!;
      const pool = plan.pools.get(columnKey(table.name, column.name));
      const values = pool?.fixedValues ?? [];
      out.set(columnKey(table.name, column.name), withNull(values, !column.notNull && invariant.values.includes(null)));
    }
    if (invariant.kind === 'format' && invariant.format !== 'time') {
      const column = findTable(plan.schema, invariant.tableName)!.columns.find((c) => c.name === invariant.columnName)!;
      if (!out.has(columnKey(invariant.tableName, column.name))) out.set(columnKey(invariant.tableName, column.name), { format: invariant.format, nullable: !column.notNull });
    }
    if (invariant.kind === 'lookup') {
      const table = findTable(plan.schema, invariant.tableName)!;
      const rows = plan.observed.rows.get(table.name) ?? [];
      TableFiller.insertable(table).forEach((name, i) => {
        const column = table.columns.find((c) => c.name === name)!;
        const seen = new Map<string, GenValue>();
        for (const row of rows) if (row[i] !== null) seen.set(`${typeof row[i]}:${valueKey(row[i]!)}`, row[i]!);
        out.set(columnKey(table.name, name), withNull([...seen.values()], !column.notNull));
      });
    }
  }
  for (const table of plan.schema.tables) {
    for (const fk of table.foreignKeys) {
      if (fk.columns.length !== 1) continue;
      const parent = out.get(columnKey(fk.parentTable, fk.parentColumns[0]!));
      const column = table.columns.find((c) => c.name === fk.columns[0])!;
      if (Array.isArray(parent) && !out.has(columnKey(table.name, column.name))) {
        out.set(columnKey(table.name, column.name), withNull(parent.filter((v) => v !== null), !column.notNull));
      }
    }
  }
  return out;
}
