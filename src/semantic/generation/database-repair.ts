/**
 * The repair steps shared by the generator and by edits of a generated database (shrinking a
 * counterexample): derived columns, row checks and children counts kept, orphans removed. The
 * final check, of the whole contract, is database-contract.ts.
 */
import { scratch } from '../scratch/scratch-engine.js';
import type { ScratchDatabase } from '../scratch/scratch-database.js';
import type { CheckInvariant, ChildrenInvariant, DeriveInvariant } from '../../fixtures/fixture-invariant.js';
import type { GenValue } from '../model/gen-value.js';
import type { GeneratorPlan } from './generator-plan.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { describeInvariant, type BoundInvariant } from '../model/invariants.js';
import { findTable } from '../model/schema-reader.js';
import { nullAllowed } from './database-contract.js';

/** better-sqlite3 binds Uint8Array only as Buffer. */
export function bindable(value: GenValue): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value;
}

/** True for SQLite's constraint errors (`SQLITE_CONSTRAINT_*`) and `SQLITE_MISMATCH`: the row is redrawn or the edit skipped, not a failure. */
export function isConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH');
}

/** Derives columns, deletes rows that break row checks or children counts, until stable. */
export function repairAndDerive(plan: GeneratorPlan, db: ScratchDatabase): { ok: true; deleted: number } | { ok: false; reason: string } {
  const derives = plan.invariants.filter((i): i is BoundInvariant & DeriveInvariant => i.kind === 'derive');
  const checks = plan.invariants.filter((i): i is BoundInvariant & CheckInvariant => i.kind === 'check');
  const children = plan.invariants.filter((i): i is BoundInvariant & ChildrenInvariant => i.kind === 'children');
  let deleted = 0;
  for (let round = 0; round < 4; round += 1) {
    deleted += deleteOrphans(plan, db);
    for (const derive of derives) {
      const t = quoteIdentifier(derive.tableName);
      const c = quoteIdentifier(derive.columnName!);
      const column = findTable(plan.schema, derive.tableName)!.columns.find((col) => col.name === derive.columnName)!;
      // A column that may not be NULL (NOT NULL, or the NULL policy) whose rule gives NULL for some
      // row (an order without lines): drop those rows.
      if (column.notNull || !nullAllowed(plan.contract, findTable(plan.schema, derive.tableName)!, [column.name])) deleted += db.prepare(`DELETE FROM ${t} WHERE (${derive.sql}) IS NULL`).run().changes;
      try {
        db.prepare(`UPDATE ${t} SET ${c} = (${derive.sql})`).run();
      } catch (error) {
        return { ok: false, reason: `${describeInvariant(derive)}: ${(error as Error).message}` };
      }
    }
    let changed = 0;
    for (const check of checks) changed += db.prepare(`DELETE FROM ${quoteIdentifier(check.tableName)} WHERE NOT (${check.sql})`).run().changes;
    for (const rule of children) {
      const table = findTable(plan.schema, rule.tableName)!;
      const fk = table.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === rule.columnName)!;
      const p = quoteIdentifier(fk.parentTable);
      const pc = quoteIdentifier(fk.parentColumns[0]!);
      const t = quoteIdentifier(table.name);
      const c = quoteIdentifier(rule.columnName!);
      if (rule.max !== undefined) {
        changed += db
          .prepare(`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER (PARTITION BY ${c} ORDER BY rowid) AS n FROM ${t} WHERE ${c} IS NOT NULL) WHERE n > ${rule.max})`)
          .run().changes;
      }
      if (rule.min > 0) {
        changed += db.prepare(`DELETE FROM ${p} WHERE (SELECT COUNT(*) FROM ${t} AS child WHERE child.${c} = ${p}.${pc}) < ${rule.min}`).run().changes;
      }
    }
    deleted += changed;
    if (changed === 0 && deleteOrphans(plan, db) === 0) return { ok: true, deleted };
  }
  return { ok: false, reason: 'repairs did not settle in 4 rounds (a check, children rule and derived column keep breaking each other)' };
}

/**
 * Deletes rows whose foreign key has no parent, or sets the key to NULL where the contract allows
 * NULL there (the schema and the NULL policy: under `nulls: 'observed'` a column whose snapshots
 * hold no NULL never gets one, so its orphans are deleted); repeats until none.
 */
export function deleteOrphans(plan: GeneratorPlan, db: ScratchDatabase): number {
  let total = 0;
  for (;;) {
    let changed = 0;
    for (const table of plan.schema.tables) {
      for (const fk of table.foreignKeys) {
        const t = quoteIdentifier(table.name);
        const p = quoteIdentifier(fk.parentTable);
        const present = fk.columns.map((c) => `${t}.${quoteIdentifier(c)} IS NOT NULL`).join(' AND ');
        const match = fk.columns.map((c, i) => `${p}.${quoteIdentifier(fk.parentColumns[i]!)} = ${t}.${quoteIdentifier(c)}`).join(' AND ');
        const orphan = `${present} AND NOT EXISTS (SELECT 1 FROM ${p} WHERE ${match})`;
        if (nullAllowed(plan.contract, table, fk.columns)) {
          changed += db.prepare(`UPDATE ${t} SET ${fk.columns.map((c) => `${quoteIdentifier(c)} = NULL`).join(', ')} WHERE ${orphan}`).run().changes;
        } else {
          const n = db.prepare(`DELETE FROM ${t} WHERE ${orphan}`).run().changes;
          changed += n;
          total += n;
        }
      }
    }
    if (changed === 0) return total;
  }
}
