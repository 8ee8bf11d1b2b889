/**
 * The contract of every generated database — the draws of a test suite, the draws of the
 * counterexample search and every edit the shrinker makes of a witness: a database the fixture
 * could hold under the options the item is judged with. One check, here, run before any generated
 * database may refute a prediction:
 *
 * | rule            | a database breaks it when                                                        |
 * |-----------------|----------------------------------------------------------------------------------|
 * | `integrity`     | `PRAGMA integrity_check` reports a fault other than the rules below              |
 * | `notNull`       | a NOT NULL or primary-key column holds NULL                                      |
 * | `unique`        | a primary key or UNIQUE column set repeats (NULLs never collide, as in SQLite)   |
 * | `check`         | a row breaks a CHECK constraint                                                  |
 * | `types`         | a column holds a storage class its snapshots, declared type and kind never give  |
 * | `foreignKeys`   | `PRAGMA foreign_key_check` reports a row                                         |
 * | `invariants`    | a row breaks one of the fixture's declared `invariants:`                         |
 * | `nullsObserved` | under `nulls: 'observed'`, a column whose snapshots hold no NULL holds one       |
 *
 * A database that breaks the contract is a generator bug, not evidence: it is dropped, counted by
 * rule (`rejectedDatabases` in L5's details) and never shown. The writers (row-generator.ts,
 * table-filler.ts, database-repair.ts) follow the same NULL rule through {@link nullAllowed}, so
 * the check finds nothing in a correct build. The rest of the contract — judging under the item's
 * comparison policy and `emptyVsNullRow` — is the witness check's (witness-check.ts), which both
 * the suite step and the search use.
 */
import { existsSync } from 'node:fs';
import { scratch } from '../scratch/scratch-engine.js';
import type { ScratchDatabase } from '../scratch/scratch-database.js';
import type { RejectedDatabaseCounts } from '../../rungs/semantic-details.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { invariantViolationSql } from '../model/invariant-sql.js';
import { columnKey, describeInvariant, type BoundInvariant } from '../model/invariants.js';
import type { DatabaseSchema, TableSchema } from '../model/schema-reader.js';
import type { StorageClass } from '../model/gen-value.js';
import type { ColumnPool, NullPolicy } from './value-pools.js';

/** The rules of the contract, in the order they are checked (spelt as L5's details count them). */
export const CONTRACT_RULES = ['integrity', 'notNull', 'unique', 'check', 'types', 'foreignKeys', 'invariants', 'nullsObserved'] as const satisfies readonly (keyof RejectedDatabaseCounts)[];

/** One rule of the contract (the module's table). */
export type ContractRule = (typeof CONTRACT_RULES)[number];

/** The first rule a database breaks, with what broke it (`Has_Pet.StuID: 2 NULLs`). */
export interface ContractViolation {
  readonly rule: ContractRule;
  readonly detail: string;
}

/** Databases dropped because they broke the contract, by rule (rules with none left out); L5's details carry it. */
export type RejectedDatabases = RejectedDatabaseCounts;

/** What one schema's generated databases must obey (built from a generator plan's pools). */
export interface DatabaseContract {
  readonly schema: DatabaseSchema;
  readonly invariants: readonly BoundInvariant[];
  readonly nulls: NullPolicy;
  /** Per column key (`table.column`, lower-case): whether it may hold NULL, and the storage classes it may hold. */
  readonly columns: ReadonlyMap<string, { readonly nullable: boolean; readonly storageClasses: ReadonlySet<StorageClass> }>;
}

/**
 * The contract of a schema under a NULL policy.
 * @param pools - the value pools of the schema (`buildValuePools`; they hold each column's NULL rule and storage classes).
 */
export function createDatabaseContract(input: { readonly schema: DatabaseSchema; readonly invariants: readonly BoundInvariant[]; readonly pools: ReadonlyMap<string, ColumnPool>; readonly nulls: NullPolicy }): DatabaseContract {
  const columns = new Map<string, { nullable: boolean; storageClasses: ReadonlySet<StorageClass> }>();
  for (const [key, pool] of input.pools) columns.set(key, { nullable: pool.nullable, storageClasses: pool.storageClasses });
  return { schema: input.schema, invariants: input.invariants, nulls: input.nulls, columns };
}

/**
 * True when a generated row may hold NULL in every one of these columns: the schema allows it
 * (not NOT NULL, not in the primary key), a `values` invariant lists NULL, and under
 * `nulls: 'observed'` the snapshots hold a NULL there. The writers ask this before they write a
 * NULL — a foreign key whose parent table is empty included: the row is then not written.
 */
export function nullAllowed(contract: DatabaseContract, table: TableSchema, columns: readonly string[]): boolean {
  return columns.every((c) => contract.columns.get(columnKey(table.name, c))?.nullable === true);
}

/**
 * Checks an open database against the contract.
 * @returns the first rule broken (in {@link CONTRACT_RULES} order), or `null` when every rule holds.
 */
export function contractViolation(contract: DatabaseContract, db: ScratchDatabase): ContractViolation | null {
  const integrity = db.prepare('PRAGMA integrity_check').column() as string[];
  if (integrity.length !== 1 || integrity[0] !== 'ok') return integrityViolation(integrity);
  const queries = queriesOf(contract);
  // Every count and storage-class list in one statement (a database is checked once per draw).
  const row = db.prepare(queries.sql).row() as unknown[];
  const at = (i: number): number => Number(row[i] ?? 0);
  for (const check of queries.required) {
    if (at(check.at) > 0) return { rule: 'notNull', detail: `${check.table}: ${plural(at(check.at), 'row')} with NULL in ${check.columns.join(' or ')}` };
  }
  for (const check of queries.keys) {
    if (at(check.at) > 0) return { rule: 'unique', detail: `${check.table}(${check.columns.join(', ')}): ${plural(at(check.at), 'value')} repeated` };
  }
  for (const check of queries.storage) {
    const foreign = String(row[check.at] ?? '').split(',').filter((name) => name !== '' && name !== 'null' && !check.allowed.has(name as StorageClass));
    if (foreign.length > 0) return { rule: 'types', detail: `${check.table}.${check.column} holds ${foreign.join(', ')} (allowed: ${[...check.allowed].join(', ')})` };
  }
  const orphans = db.prepare('PRAGMA foreign_key_check').rows() as unknown[][];
  if (orphans.length > 0) return { rule: 'foreignKeys', detail: `${plural(orphans.length, 'row')} without a parent (first in ${String(orphans[0]![0])})` };
  for (const check of queries.invariants) {
    if (at(check.at) > 0) return { rule: 'invariants', detail: `${describeInvariant(check.invariant)}: ${plural(at(check.at), 'violating row')}` };
  }
  for (const check of queries.nulls) {
    if (at(check.at) > 0) return { rule: 'nullsObserved', detail: `${check.table}.${check.column}: ${plural(at(check.at), 'NULL')}, and no snapshot holds one there` };
  }
  return null;
}

/** The one statement that counts what the rules need, and where each count is in its row. */
interface ContractQueries {
  readonly sql: string;
  /** NOT NULL and primary-key columns of a table: rows with NULL in any of them. */
  readonly required: readonly { readonly at: number; readonly table: string; readonly columns: readonly string[] }[];
  /** A primary key or UNIQUE column set: values held by more than one row. */
  readonly keys: readonly { readonly at: number; readonly table: string; readonly columns: readonly string[] }[];
  /** A column's storage classes (`typeof` names, comma-separated). */
  readonly storage: readonly { readonly at: number; readonly table: string; readonly column: string; readonly allowed: ReadonlySet<StorageClass> }[];
  /** A declared invariant's violating rows. */
  readonly invariants: readonly { readonly at: number; readonly invariant: BoundInvariant }[];
  /** Under `nulls: 'observed'`, a column the schema lets be NULL and the NULL policy does not: its NULLs. */
  readonly nulls: readonly { readonly at: number; readonly table: string; readonly column: string }[];
}

const queryCache = new WeakMap<DatabaseContract, ContractQueries>();

/** The statement of a contract, built once. */
function queriesOf(contract: DatabaseContract): ContractQueries {
  const cached = queryCache.get(contract);
  if (cached !== undefined) return cached;
  const q = quoteIdentifier;
  const items: string[] = [];
  const add = (sql: string): number => items.push(`(${sql})`) - 1;
  const required: { at: number; table: string; columns: string[] }[] = [];
  const keys: { at: number; table: string; columns: string[] }[] = [];
  const storage: { at: number; table: string; column: string; allowed: ReadonlySet<StorageClass> }[] = [];
  const invariants: { at: number; invariant: BoundInvariant }[] = [];
  const nulls: { at: number; table: string; column: string }[] = [];
  for (const table of contract.schema.tables) {
    const t = q(table.name);
    const stored = table.columns.filter((c) => !c.generated);
    const must = stored.filter((c) => c.notNull || c.primaryKeyPosition > 0).map((c) => c.name);
    if (must.length > 0) required.push({ at: add(`SELECT COUNT(*) FROM ${t} WHERE ${must.map((c) => `${q(c)} IS NULL`).join(' OR ')}`), table: table.name, columns: must });
    for (const key of [...(table.primaryKey.length > 0 ? [table.primaryKey] : []), ...table.uniqueKeys]) {
      const cols = key.map(q);
      keys.push({ at: add(`SELECT COUNT(*) FROM (SELECT 1 FROM ${t} WHERE ${cols.map((c) => `${c} IS NOT NULL`).join(' AND ')} GROUP BY ${cols.join(', ')} HAVING COUNT(*) > 1)`), table: table.name, columns: [...key] });
    }
    for (const column of stored) {
      const rule = contract.columns.get(columnKey(table.name, column.name));
      if (rule === undefined) continue;
      storage.push({ at: add(`SELECT group_concat(DISTINCT typeof(${q(column.name)})) FROM ${t}`), table: table.name, column: column.name, allowed: rule.storageClasses });
      if (contract.nulls === 'observed' && !rule.nullable && !column.notNull && column.primaryKeyPosition === 0) {
        nulls.push({ at: add(`SELECT COUNT(*) FROM ${t} WHERE ${q(column.name)} IS NULL`), table: table.name, column: column.name });
      }
    }
  }
  for (const invariant of contract.invariants) {
    const sql = invariantViolationSql(invariant, contract.schema);
    if (sql !== null) invariants.push({ at: add(sql), invariant });
  }
  const queries = { sql: `SELECT ${items.length === 0 ? 'NULL' : items.join(', ')}`, required, keys, storage, invariants, nulls };
  queryCache.set(contract, queries);
  return queries;
}

/**
 * Checks a database file against the contract. The file is read once (opened read-only) into an
 * in-memory copy that is checked: SQLite's integrity check verifies CHECK constraints only on a
 * writable connection.
 * @throws RangeError when the file does not exist.
 */
export function fileContractViolation(contract: DatabaseContract, file: string): ContractViolation | null {
  if (!existsSync(file)) throw new RangeError(`no database at ${file}`);
  const db = scratch.copyOf(file, { integers: 'number', foreignKeys: true });
  try {
    return contractViolation(contract, db);
  } finally {
    db.close();
  }
}

/** Adds one rejected database under its rule (a new object; counts of other rules kept). */
export function countRejection(counts: RejectedDatabases, rule: ContractRule): RejectedDatabases {
  return { ...counts, [rule]: (counts[rule] ?? 0) + 1 };
}

/** The sum of several counts, rules in {@link CONTRACT_RULES} order, zeros left out. */
export function addRejections(...counts: readonly RejectedDatabases[]): RejectedDatabases {
  const out: Partial<Record<ContractRule, number>> = {};
  for (const rule of CONTRACT_RULES) {
    const n = counts.reduce((sum, c) => sum + (c[rule] ?? 0), 0);
    if (n > 0) out[rule] = n;
  }
  return out;
}

/** `integrity_check` lines classified: a CHECK, NOT NULL or UNIQUE fault under its own rule. */
function integrityViolation(lines: readonly string[]): ContractViolation {
  const detail = lines.slice(0, 3).join('; ');
  if (lines.some((l) => l.startsWith('CHECK constraint failed'))) return { rule: 'check', detail };
  if (lines.some((l) => l.startsWith('NULL value in'))) return { rule: 'notNull', detail };
  if (lines.some((l) => l.startsWith('non-unique entry'))) return { rule: 'unique', detail };
  return { rule: 'integrity', detail };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
