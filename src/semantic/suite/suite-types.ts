/**
 * The shapes of a built test suite: per gold its kept databases and neighbours with their
 * coverage, and every kept database as a snapshot-like file (test-suite.ts builds them,
 * evaluate-on-suite.ts judges predictions on them).
 */
import type { ComparisonPolicy } from '../../compare/policy.js';
import type { FixtureInvariant } from '../../fixtures/fixture-invariant.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import type { Coverage, SkippedDatabases, StopReason } from './distill.js';
import type { EquivalentCounts, NeighbourKind } from '../neighbours/neighbour-types.js';
import type { ResolvedSuiteBudget } from './suite-budget.js';
import type { RejectedDatabases } from '../generation/database-contract.js';
import type { NullPolicy } from '../generation/value-pools.js';

/** A neighbour as stored in a suite. */
export interface SuiteNeighbour {
  readonly index: number;
  readonly kind: NeighbourKind;
  readonly description: string;
  readonly sql: string;
  /** The database that first distinguished it, `null` when none did. */
  readonly coverage: Coverage | null;
}

/** The suite of one gold. */
export interface GoldSuite {
  /** The gold as given. */
  readonly sql: string;
  /** The gold as it runs (after the policy's SQL rewrites). */
  readonly executedSql: string;
  /** Draw indices of the generated databases kept for this gold, ascending. */
  readonly keptIndices: readonly number[];
  readonly neighbours: readonly SuiteNeighbour[];
  /** Candidates listed / not prepared by SQLite / equivalent by spelling / left out by the cap, and those left out as provably equivalent. */
  readonly neighbourCounts: { readonly candidates: number; readonly unprepared: number; readonly equivalent: number; readonly capped: number; readonly provablyEquivalent: EquivalentCounts };
  /** Neighbours distinguished by the snapshots. */
  readonly bySnapshots: number;
  /** Neighbours distinguished only by generated databases. */
  readonly byGenerated: number;
  /** Neighbours no database distinguished (likely equivalent; listed for review). */
  readonly undistinguished: number;
  readonly drawn: number;
  readonly skipped: SkippedDatabases;
  readonly stopReason: StopReason;
  readonly elapsedMs: number;
  readonly snapshotErrors: readonly string[];
}

/** A generated database kept in a suite (usable as a {@link Snapshot}). */
export interface SuiteDatabase extends Snapshot {
  /** Draw index: regenerate with `generateDatabase(plan, { rng: drawStream(seed, index) })`. */
  readonly index: number;
  /** `gen-<index>`. */
  readonly name: string;
  /** Absolute path in the cache folder. */
  readonly path: string;
  readonly checksum: string;
  readonly rowCounts: Readonly<Record<string, number>>;
  readonly tier: string;
}

/** A built (or loaded) test suite. */
export interface TestSuite {
  /** Content address (sha256 hex). */
  readonly key: string;
  /** The cache folder holding `suite.json` and the kept databases. */
  readonly dir: string;
  readonly generatorVersion: number;
  readonly sqliteVersion: string;
  readonly seed: string;
  readonly policy: ComparisonPolicy;
  readonly budget: ResolvedSuiteBudget;
  readonly snapshots: readonly Snapshot[];
  /** One entry per distinct gold, in first-seen order. */
  readonly golds: readonly GoldSuite[];
  /** Every generated database some gold kept, by index. */
  readonly databases: readonly SuiteDatabase[];
  /** Databases drawn in all. */
  readonly draws: number;
  readonly generationFailures: readonly { readonly index: number; readonly reason: string }[];
  /** Drawn databases dropped because they broke the contract of generated databases, by rule (database-contract.ts). */
  readonly rejectedDatabases: RejectedDatabases;
  /** The NULL policy the databases were drawn under (part of their contract). */
  readonly nulls: NullPolicy;
  /** The fixture invariants the databases keep (part of their contract). */
  readonly invariants: readonly FixtureInvariant[];
  /** Wall time of the build, ms (of the original build when loaded from the cache). */
  readonly buildMs: number;
  readonly fromCache: boolean;
}
