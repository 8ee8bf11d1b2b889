/**
 * The database generator: fills any SQLite schema with random rows that respect it — types,
 * primary keys, UNIQUE, NOT NULL, CHECK, foreign keys — and the fixture's declared invariants,
 * from seeded value pools. The same plan and stream always give the same bytes (for one SQLite
 * version), so a test suite is stored as `{ generator version, seed, kept indices }`.
 *
 * How one database is made (an in-memory SQLite database, then `VACUUM INTO` the file):
 * 1. Create the tables, indexes and views exactly as the schema declares them (triggers are not
 *    copied) — once per plan: the plan's later draws empty the tables of the same connection.
 * 2. Fill tables parents first (fill-order.ts, table-filler.ts). Per row (row-generator.ts):
 *    foreign keys take a parent row's key (NULL sometimes where the contract allows NULL; a row
 *    whose parent table is empty is not written when it does not); a `children` invariant
 *    fills the child per parent row; a `lookup` table copies a subset of the snapshots' rows;
 *    other columns draw from their pools (value-pools.ts, draw-value.ts). A row that breaks a key
 *    in memory, a declared row `check`, or any constraint SQLite enforces on INSERT (CHECK, NOT
 *    NULL, UNIQUE, STRICT types) is redrawn, up to 12 times, then skipped.
 * 3. Fill deferred foreign keys (cycles, self-references) from the rows their parents now have.
 * 4. Compute `derive` columns in declaration order (`UPDATE … SET col = (sql)`).
 * 5. Repair: rows that break a `check` that reads derived columns, parents with too few or too
 *    many `children`, and rows whose foreign key lost its parent are deleted (children of deleted
 *    rows with them), then derived columns are recomputed; at most 4 rounds (database-repair.ts).
 * 6. Check the contract of generated databases (database-contract.ts: keys,
 *    constraints, types, foreign keys, invariants, the NULL policy; unless the caller checks it
 *    later, `checkContract: false`); then `VACUUM INTO` the output file. A database that breaks it is dropped, counted by rule, and redrawn from a fresh
 *    sub-stream (`attempt/1`, …); after `maxAttempts` the outcome says why.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { scratch } from '../scratch/scratch-engine.js';
import type { ScratchDatabase, ScratchStatement } from '../scratch/scratch-database.js';
import { repairAndDerive } from './database-repair.js';
import type { GeneratorPlan } from './generator-plan.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import { RANDOM_FUNCTION } from '../model/invariant-sql.js';
import type { Prng } from '../model/prng.js';
import { findTable } from '../model/schema-reader.js';
import { TableFiller, type RowRange } from './table-filler.js';
import { contractViolation, countRejection, type ContractRule, type RejectedDatabases } from './database-contract.js';

// The generator's entry points: make a plan once, then draw databases from it.
export { createGeneratorPlan, type CreatePlanInput, type GeneratorPlan } from './generator-plan.js';

/**
 * Version of the generation procedure. Bumped whenever a change could alter the bytes generated
 * from a seed, so that cached suites are rebuilt instead of regenerated differently.
 */
export const GENERATOR_VERSION = 3;

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
  /**
   * Check the contract before writing (default true). `false` skips step 6's check, for a caller
   * that checks a database itself before it may refute anything (`fileContractViolation`), as the
   * search does for the few draws that tell the queries apart: the check was a fifth of a draw.
   */
  readonly checkContract?: boolean;
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

/**
 * The outcome of {@link generateDatabase}: a database, or why none could be made. `rejected`
 * counts the attempts dropped because they broke the contract (database-contract.ts), by rule: a
 * generator bug, never a database anyone sees.
 */
export type GenerateOutcome =
  | { readonly ok: true; readonly database: GeneratedDatabase; readonly rejected: RejectedDatabases }
  | { readonly ok: false; readonly reason: string; readonly attempts: number; readonly rejected: RejectedDatabases };

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
  let rejected: RejectedDatabases = {};
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const rng = attempt === 0 ? options.rng : options.rng.fork(`attempt/${attempt}`);
    const result = drawOnce(plan, rng, options.rows, options.file, options.checkContract ?? true);
    if (result.ok) {
      const checksum = createHash('sha256').update(readFileSync(options.file)).digest('hex');
      return { ok: true, database: { file: options.file, checksum, rowCounts: result.rowCounts, tier: result.tier, attempt, droppedRows: result.droppedRows }, rejected };
    }
    reason = result.reason;
    if (result.rule !== undefined) rejected = countRejection(rejected, result.rule);
  }
  return { ok: false, reason, attempts: maxAttempts, rejected };
}

type DrawResult =
  | { readonly ok: true; readonly rowCounts: Record<string, number>; readonly tier: string; readonly droppedRows: number }
  | { readonly ok: false; readonly reason: string; readonly rule?: ContractRule };

/**
 * The in-memory connection a plan's databases are drawn in, kept between draws: the schema is
 * created once (tables, indexes, then views) and every statement is compiled once, instead of a
 * new connection per draw (compiling the statements was about a third of a draw). Before each
 * draw every table is emptied; what `VACUUM INTO` writes depends only on the rows and the schema,
 * so the files are the bytes a fresh connection gave.
 */
interface DrawSession {
  readonly db: ScratchDatabase;
  /** The stream `RANDOM_FUNCTION` reads, set per draw. */
  deriveRng: Prng | null;
  /** The statements that empty the tables (and `sqlite_sequence`, when an AUTOINCREMENT table made one). */
  readonly clear: readonly ScratchStatement[];
}

const sessions = new WeakMap<GeneratorPlan, DrawSession>();

/** The plan's draw session, made on first use. */
function sessionOf(plan: GeneratorPlan): DrawSession {
  let session = sessions.get(plan);
  if (session !== undefined) return session;
  // Every statement of a draw is compiled once per session (the texts are the plan's: bounded).
  const db = scratch.create({ reuseStatements: true });
  try {
    for (const table of plan.schema.tables) db.exec(table.createSql);
    for (const index of plan.schema.indexes) db.exec(index.sql);
    for (const view of plan.schema.views) db.exec(view.sql);
    const tables = plan.schema.tables.map((t) => t.name);
    if (db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'").value() !== 0n) tables.push('sqlite_sequence');
    const created: DrawSession = { db, deriveRng: null, clear: tables.map((name) => db.prepare(`DELETE FROM ${quoteIdentifier(name)}`)) };
    db.defineFunction(RANDOM_FUNCTION, () => created.deriveRng!.next());
    session = created;
  } catch (error) {
    db.close();
    throw error;
  }
  sessions.set(plan, session);
  return session;
}

/**
 * Closes the connection a plan's draws reuse (a later draw opens a new one). Optional: an unclosed
 * one is closed when the plan is collected. Idempotent.
 */
export function releaseGeneratorPlan(plan: GeneratorPlan): void {
  sessions.get(plan)?.db.close();
  sessions.delete(plan);
}

function drawOnce(plan: GeneratorPlan, rng: Prng, rows: RowRange | undefined, file: string, checkContract: boolean): DrawResult {
  const tierRng = rng.fork('sizes');
  const tier = rows ? { name: 'given', ...rows } : tierRng.pickWeighted(SIZE_TIERS);
  let session: DrawSession;
  try {
    session = sessionOf(plan);
  } catch (error) {
    return { ok: false, reason: `generation failed: ${(error as Error).message}` };
  }
  const db = session.db;
  try {
    for (const clear of session.clear) clear.run();
    session.deriveRng = rng.fork('derive');

    const filler = new TableFiller(plan, db, rng, tier);
    for (const name of plan.order.tables) filler.fill(findTable(plan.schema, name)!, tierRng);
    filler.fillDeferred();
    const repaired = repairAndDerive(plan, db);
    if (!repaired.ok) return repaired;
    const violation = checkContract ? contractViolation(plan.contract, db) : null;
    if (violation !== null) return { ok: false, reason: `${violation.rule}: ${violation.detail}`, rule: violation.rule };
    const rowCounts: Record<string, number> = {};
    for (const table of plan.schema.tables) {
      rowCounts[table.name] = Number(db.prepare(`SELECT COUNT(*) FROM ${quoteIdentifier(table.name)}`).value());
    }
    const temp = `${file}.tmp-${process.pid}`;
    rmSync(temp, { force: true });
    db.saveTo(temp);
    // The old file goes first: a rename that replaces a file makes ext4 write the new one's data
    // out at once (its replace-by-rename safeguard), which measured slower here than unlinking first.
    rmSync(file, { force: true });
    renameSync(temp, file);
    return { ok: true, rowCounts, tier: tier.name, droppedRows: filler.skipped + repaired.deleted };
  } catch (error) {
    // A draw that threw may have left the connection mid-statement: the next draw starts afresh.
    releaseGeneratorPlan(plan);
    return { ok: false, reason: `generation failed: ${(error as Error).message}` };
  } finally {
    session.deriveRng = null;
  }
}

