/**
 * Filling the tables of one database being drawn, parents first: the rows of each table
 * (row-generator.ts draws them), `children` counts per parent row, `lookup` tables copied from
 * the snapshots, then the deferred foreign keys of cycles and self-references.
 */
import type { ScratchDatabase } from '../scratch/scratch-database.js';
import type { ChildrenInvariant } from '../../fixtures/fixture-invariant.js';
import { nullAllowed } from './database-contract.js';
import { bindable, isConstraintError } from './database-repair.js';
import { drawProfile, type DrawProfile } from './draw-value.js';
import type { GenValue } from '../model/gen-value.js';
import type { GeneratorPlan } from './generator-plan.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import type { BoundInvariant } from '../model/invariants.js';
import type { Prng } from '../model/prng.js';
import { RowGenerator, type StoredRow } from './row-generator.js';
import { findTable, insertableColumns, type TableSchema } from '../model/schema-reader.js';

/** Rows per table for one database. */
export interface RowRange {
  /** Fewest rows per table (integer ≥ 0). */
  readonly min: number;
  /** Most rows per table (integer ≥ min). */
  readonly max: number;
}

/** Fills the tables of one database (one instance per draw). */
export class TableFiller {
  /** Rows inserted so far, by table name. */
  readonly rows = new Map<string, StoredRow[]>();
  /** Rows that could not be drawn within the constraints (skipped). */
  skipped = 0;
  readonly #profile: DrawProfile;
  readonly #fkSkew: number;

  constructor(
    readonly plan: GeneratorPlan,
    readonly db: ScratchDatabase,
    readonly rng: Prng,
    readonly tier: RowRange,
  ) {
    const profileRng = rng.fork('profile');
    this.#profile = drawProfile(profileRng);
    this.#fkSkew = profileRng.pick([0, 0, 0.5, 0.8]);
  }

  /** Fills one table (its parents are filled already); `sizeRng` draws its row count. */
  fill(table: TableSchema, sizeRng: Prng): void {
    const rng = this.rng.fork(`table/${table.name}`);
    const columns = insertableColumns(table);
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
      const parentColumns = insertableColumns(parentTable);
      const keyOf = (row: StoredRow): GenValue[] => deferred.foreignKey.parentColumns.map((pc) => row.values[parentColumns.indexOf(pc)] ?? null);
      // NULL only where the contract allows it; otherwise a row left without a parent keeps the
      // value it was drawn with, and the repair deletes it when that value is an orphan.
      const nullOk = nullAllowed(this.plan.contract, table, deferred.foreignKey.columns);
      const all = this.rows.get(parentTable.name) ?? [];
      const parentRows = nullOk ? all : all.filter((row) => keyOf(row).every((v) => v !== null));
      const sets = deferred.foreignKey.columns.map((c) => `${quoteIdentifier(c)} = ?`).join(', ');
      const update = this.db.prepare(`UPDATE ${quoteIdentifier(table.name)} SET ${sets} WHERE rowid = ?`);
      for (const row of this.rows.get(table.name) ?? []) {
        let values: GenValue[];
        if (parentRows.length === 0 || (nullOk && rng.chance(this.#profile.nullRate + 0.1))) {
          if (!nullOk) continue;
          values = deferred.foreignKey.columns.map(() => null);
        } else {
          values = keyOf(rng.pick(parentRows));
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
