/**
 * What a counterexample search returns: a refutation with its witnesses, "not refuted within
 * budget" (which proves nothing), or why the search could not run; each with the counts of the
 * databases tried.
 */
import type { ComparisonPolicy } from '../../compare/policy.js';
import type { Witness } from '../../rungs/semantic-details.js';
import type { RejectedDatabases } from '../generation/database-contract.js';
import type { EmptyVsNullRow } from '../model/empty-vs-null-row.js';

/** Databases tried and why some told nothing. */
export interface SearchStats {
  /** Databases judged. */
  readonly databases: number;
  /** Databases judged per size tier. */
  readonly byTier: Readonly<Record<string, number>>;
  /** Draws the generator could not make within the constraints. */
  readonly generationFailures: number;
  /** Databases where some gold could not be used: it failed, or its answer was not determined. */
  readonly unusable: { readonly gold_error: number; readonly nondeterministic: number; readonly ties: number };
  /** Databases where the prediction timed out or the comparison was undecided. */
  readonly noEvidence: number;
  /** Databases whose only difference was an empty result against one row of NULLs (under `emptyVsNullRow: 'same'`). */
  readonly emptyVsNullRow: number;
  /** Distinctions dropped because they did not survive another physical row order (reversed, rotated, sorted). */
  readonly orderDependent: number;
  /** Databases (draws, shrinking edits, witnesses) dropped because they broke the contract of generated databases, by rule (database-contract.ts). */
  readonly rejectedDatabases: RejectedDatabases;
  /** Statements that timed out, went over their memory cap or lost their child process (transient-failures.ts): evidence of the moment, so such an outcome is never cached. */
  readonly transientFailures: number;
  /** Wall time of the call, ms. */
  readonly elapsedMs: number;
}

/** The prediction is refuted: every gold is distinguished from it. */
export interface RefutedOutcome {
  readonly verdict: 'refuted';
  /** The witness (the one database that distinguishes every gold, when there is one). */
  readonly witness: Witness;
  /** All witnesses: one, or one per gold when no single database distinguishes them all. */
  readonly witnesses: readonly Witness[];
  /** One line, e.g. `refuted on a 2-row database: gold returns [3], prediction [2]; INSERT INTO orders …`. */
  readonly reason: string;
  readonly tried: SearchStats;
  readonly policy: ComparisonPolicy;
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** No database within the budget told the prediction apart from every gold (which proves nothing). */
export interface NotRefutedOutcome {
  readonly verdict: 'not_refuted_within_budget';
  /** `databases` or `seconds`: the bound that ended the search. */
  readonly stoppedBy: 'databases' | 'seconds';
  /** Golds some database distinguished (not all, or the prediction would be refuted). */
  readonly distinguishedGolds: readonly number[];
  readonly reason: string;
  readonly tried: SearchStats;
  readonly policy: ComparisonPolicy;
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** The search could not run: the prediction or every gold does not prepare on the schema, or no database could be drawn. */
export interface NotSearchedOutcome {
  readonly verdict: 'not_searched';
  readonly cause: 'prediction_unprepared' | 'golds_unprepared' | 'no_database';
  readonly reason: string;
  readonly tried: SearchStats;
}

/** The result of a search. */
export type SearchOutcome = RefutedOutcome | NotRefutedOutcome | NotSearchedOutcome;
