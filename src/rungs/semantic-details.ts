/**
 * The shapes the L5 semantic rung reports (`details` of `L5_semantic`): the test-suite step, the
 * counterexample search step and the witnesses it found.
 *
 * They live here, beside the rung table that names every rung's details (ladder-rungs.ts), and not
 * in src/semantic/ with the rung itself: L5 builds on L4 (it runs `checkExecution` on the suite's
 * databases), so src/semantic/ imports src/rungs/ and never the other way round. Types only.
 */
import type { Verdict } from '../compare/verdict.js';
import type { Cell, ExecutionOutcome, QueryResult, SqliteCell } from '../engine/engine.js';

/**
 * Generated databases dropped because they broke the contract of generated databases (the schema,
 * the fixture's invariants, the NULL policy; src/semantic/generation/database-contract.ts), by rule:
 * `integrity`, `notNull`, `unique`, `check`, `types`, `foreignKeys`, `invariants`, `nullsObserved`.
 * A generator bug, never evidence: such a database refutes nothing and is never shown. Rules with
 * none are left out (`{}` when every database kept the contract).
 */
export type RejectedDatabaseCounts = Readonly<Partial<Record<'integrity' | 'notNull' | 'unique' | 'check' | 'types' | 'foreignKeys' | 'invariants' | 'nullsObserved', number>>>;

/**
 * Which step rejected the prediction: `snapshot` (a snapshot of the fixture already shows the
 * difference under the item's policy: L4 would fail), `suite` (a generated database of the
 * distilled test suite), `search` (only the counterexample search's witness).
 */
export type SemanticRejection = 'snapshot' | 'suite' | 'search';

/** A table of a witness, with its rows (cells as the engine returns them). */
export interface WitnessTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /**
   * The same rows as stored, for `INSERT` statements: the storage class is explicit in the type
   * (bigint = INTEGER, number = REAL; the generator's `GenValue`).
   */
  readonly stored: readonly (readonly SqliteCell[])[];
}

/** What shrinking did to a witness (see `shrinkWitness`). */
export interface WitnessShrink {
  /** Rows before and after, over all tables. */
  readonly rowsBefore: number;
  readonly rowsAfter: number;
  /** Edited databases tried and kept. */
  readonly trials: number;
  readonly accepted: number;
  /** Cells whose value was simplified (a renamed column counts each changed cell). */
  readonly valuesSimplified: number;
  /** `done` when every step ran; otherwise the bound that stopped it. */
  readonly stoppedBy: 'done' | 'trials' | 'deadline';
}

/** One distinguishing database, shrunk and re-run. */
export interface Witness {
  /** Indices (into the input golds) of the golds this database distinguishes from the prediction. */
  readonly golds: readonly number[];
  /** Rows per table, every table of the schema. */
  readonly rowsPerTable: Readonly<Record<string, number>>;
  /** Rows over all tables. */
  readonly totalRows: number;
  /** Rows of the largest table. */
  readonly maxRowsPerTable: number;
  /** The tables that hold rows, parents first, with their rows (cells as the engine returns them). */
  readonly tables: readonly WitnessTable[];
  /** One `INSERT` per table that holds rows, parents first (readable; run after the schema's CREATE statements). */
  readonly inserts: readonly string[];
  /** The whole database as a SQL script (schema and rows, `dumpDatabase`) to replay it in any SQLite. */
  readonly script: string;
  /** sha256 of the witness file. */
  readonly checksum: string;
  /** The kept file (with `keepWitnessIn`), else `null`. */
  readonly file: string | null;
  /** Each distinguished gold's result on the witness, aligned with `golds` (from the final re-run). */
  readonly goldResults: readonly QueryResult[];
  /** The prediction's outcome on the witness (from the final re-run): a result, or the error it failed with. */
  readonly predicted: ExecutionOutcome;
  /** The comparisons, aligned with `golds` (`null` when the prediction failed). */
  readonly verdicts: readonly (Verdict | null)[];
  /** The first gold's difference in one line (the verdict's reason or the prediction's error). */
  readonly difference: string;
  /** Shrinking: rows before and after, trials. */
  readonly shrink: WitnessShrink;
  /** The draw that found it: index and size tier. */
  readonly draw: { readonly index: number; readonly tier: string };
}

/** Two golds of one item that return different results on a suite database. */
export interface GoldDisagreement {
  readonly goldA: number;
  readonly goldB: number;
  readonly database: string;
  /** The verdict's reason (gold A taken as the reference), or the error of the gold that failed. */
  readonly reason: string;
}

/** The first database of an item's test suite where the reported gold and the prediction differ. */
export interface SuiteFailure {
  readonly database: string;
  readonly generated: boolean;
  readonly index: number | null;
  readonly path: string;
  readonly rowCounts: Readonly<Record<string, number>> | null;
  readonly verdict: Verdict | null;
}

/** The suite step's part of the details. */
export interface SuiteStepDetails {
  /** `pass` when some gold matches on every database; `unscored` when no gold runs everywhere or the comparison is undecided. */
  readonly status: 'pass' | 'fail' | 'unscored';
  readonly reason: string;
  /** Databases of the item's suite (snapshots included) and how many of them are generated. */
  readonly databases: number;
  readonly generated: number;
  /** Where the prediction first differs; `null` on a pass. */
  readonly failing: SuiteFailure | null;
  /** The suite's content address (its cache folder's name). */
  readonly key: string;
  /** Databases dropped by the contract while the suite was built and while the item was judged on it. */
  readonly rejectedDatabases: RejectedDatabaseCounts;
}

/** The search step's part of the details. */
export interface SearchStepDetails {
  /** The search's verdict (a search that finds nothing proves nothing: never "equivalent"). */
  readonly verdict: 'refuted' | 'not_refuted_within_budget' | 'not_searched';
  readonly reason: string;
  /** The shrunk, re-run witnesses of a refutation (one, or one per gold); empty otherwise. */
  readonly witnesses: readonly Witness[];
  /** Databases judged and the wall time of the search, ms. */
  readonly databases: number;
  readonly elapsedMs: number;
  /** What ended a search that refuted nothing: its database budget or its time budget (`null` otherwise). */
  readonly stoppedBy: 'databases' | 'seconds' | null;
  /** Statements of the search that timed out, went over their memory cap or lost their child process (such a verdict is never cached). */
  readonly transientFailures: number;
  /** Databases (draws, shrinking edits, witnesses) dropped by the contract. */
  readonly rejectedDatabases: RejectedDatabaseCounts;
}

/**
 * What the L5 verdict cache did with a verdict (src/semantic/verdict-cache.ts): `hit` (read from
 * the cache: the rest of the result is the stored one, its times those of the run that stored
 * it), `stored`, `not_stored` (with the reason: a time budget or deadline stopped a step, a
 * statement timed out, the write failed), or `off`.
 */
export type VerdictCacheStatus =
  | { readonly status: 'hit' | 'stored' | 'off' }
  | { readonly status: 'not_stored'; readonly reason: string };

/** `details` of the L5 rung. */
export interface SemanticDetails {
  /** The step that rejected the prediction (`null` unless the status is `fail`); the reason names the database (`refuted on snapshot jan: …`, `refuted on generated database gen-3 (…): …`, `refuted on a 2-row database: …`). */
  readonly rejectedBy: SemanticRejection | null;
  /** Generated databases dropped by the contract in both steps, by rule (`{ nullsObserved: 3 }`); `{}` when none. */
  readonly rejectedDatabases: RejectedDatabaseCounts;
  /** `null` when the suite step is off. */
  readonly suite: SuiteStepDetails | null;
  /** Pairs of the item's golds that disagree on some database of the suite. */
  readonly goldAmbiguity: readonly GoldDisagreement[];
  /** `null` when the search is off or did not run (the suite could not score the item). */
  readonly search: SearchStepDetails | null;
  /** Whether this verdict came from the verdict cache, was stored in it, or why not. */
  readonly verdictCache: VerdictCacheStatus;
  /**
   * Set (the gold's 0-based index) when the prediction is that gold's text up to formatting: no
   * database tells them apart, so the search did not run (`search` is `null`), nor, for an item
   * with one gold, the suite.
   */
  readonly sameAsGold?: number;
}
