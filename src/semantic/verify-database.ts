/**
 * The final check of a database the generator drew or edited: `PRAGMA integrity_check`,
 * `PRAGMA foreign_key_check` and every invariant's violation query, on the open in-memory
 * database before it is written, or on a file.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { GeneratorPlan } from './generator-plan.js';
import { invariantViolationSql } from './invariant-sql.js';
import { describeInvariant, type BoundInvariant } from './invariants.js';
import type { DatabaseSchema } from './schema-reader.js';

/** Integrity, foreign keys and every checkable invariant on an open database; `null` when all hold. */
export function verifyOpenDatabase(plan: GeneratorPlan, db: Database.Database): string | null {
  const integrity = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
  if (integrity.length !== 1 || integrity[0] !== 'ok') return `integrity_check: ${integrity.slice(0, 3).join('; ')}`;
  const fk = db.prepare('PRAGMA foreign_key_check').raw(true).all() as unknown[][];
  if (fk.length > 0) return `foreign_key_check: ${fk.length} violating rows (first in ${String(fk[0]![0])})`;
  for (const invariant of plan.invariants) {
    const sql = invariantViolationSql(invariant, plan.schema);
    if (sql === null) continue;
    const violations = Number(db.prepare(sql).pluck().get());
    if (violations > 0) return `${describeInvariant(invariant)}: ${violations} violating ${violations === 1 ? 'row' : 'rows'}`;
  }
  return null;
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
