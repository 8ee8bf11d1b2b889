/**
 * Fixture strength: for each gold, the share of its neighbour queries (near-misses a model could
 * write, neighbours.ts) that the fixture's snapshots tell apart from it; the survivors are the
 * mistakes the fixture would let through. A dataset-level score sums neighbours over golds.
 *
 * Computed from a {@link TestSuite}: its coverage records, per neighbour, the first database that
 * distinguished it, snapshots first. "Before" counts the snapshots only; "after" adds the
 * distilled databases. A suite built with `budget.maxDatabases: 0` measures the snapshots alone.
 */
import type { Coverage } from './distill.js';
import type { NeighbourKind } from '../neighbours/neighbour-types.js';
import type { GoldSuite, TestSuite } from './suite-types.js';

/** A neighbour no database of the measured set distinguishes. */
export interface Survivor {
  readonly kind: NeighbourKind;
  readonly description: string;
  readonly sql: string;
}

/** Strength of one gold. */
export interface GoldStrength {
  /** The dataset item's id, when given. */
  readonly id?: string;
  readonly sql: string;
  readonly neighbours: number;
  readonly distinguished: number;
  /** distinguished / neighbours; 1 for a gold with no neighbours. */
  readonly strength: number;
  readonly survivors: readonly Survivor[];
}

/** Strength of a dataset's golds on a set of databases. */
export interface FixtureStrength {
  /** `snapshots` (the fixture alone) or `suite` (snapshots plus distilled databases). */
  readonly databases: 'snapshots' | 'suite';
  readonly golds: readonly GoldStrength[];
  /** Neighbours over all golds. */
  readonly neighbours: number;
  readonly distinguished: number;
  /** distinguished / neighbours over all golds (1 when there are none). */
  readonly strength: number;
  /** Mean of the golds' strengths (1 when there are no golds). */
  readonly meanStrength: number;
}

/** A gold to report, with the dataset item it belongs to. */
export interface StrengthGold {
  readonly sql: string;
  readonly id?: string;
}

/**
 * Fixture strength of golds from a suite's coverage.
 *
 * @param suite - built with these golds (`buildTestSuite`).
 * @param golds - the golds to report, in report order (default: every gold of the suite).
 * @param databases - `snapshots`: only what the snapshots distinguish; `suite`: snapshots and
 *   distilled databases.
 * @returns per gold and dataset-level strength with survivors.
 * @example
 * fixtureStrength(suite, golds, 'snapshots').strength // e.g. 0.900
 */
export function fixtureStrength(suite: TestSuite, golds: readonly StrengthGold[] | undefined, databases: 'snapshots' | 'suite'): FixtureStrength {
  const wanted: readonly StrengthGold[] = golds ?? suite.golds.map((g) => ({ sql: g.sql }));
  const counts = (coverage: Coverage | null): boolean => coverage !== null && (databases === 'suite' || coverage.index === null);
  const perGold = wanted.map((gold): GoldStrength => {
    const entry = suite.golds.find((g) => g.sql === gold.sql) ?? suiteEntry(suite, gold.sql);
    const distinguished = entry.neighbours.filter((n) => counts(n.coverage)).length;
    const survivors = entry.neighbours.filter((n) => !counts(n.coverage)).map((n) => ({ kind: n.kind, description: n.description, sql: n.sql }));
    return {
      ...(gold.id === undefined ? {} : { id: gold.id }),
      sql: gold.sql,
      neighbours: entry.neighbours.length,
      distinguished,
      strength: entry.neighbours.length === 0 ? 1 : distinguished / entry.neighbours.length,
      survivors,
    };
  });
  const neighbours = perGold.reduce((n, g) => n + g.neighbours, 0);
  const distinguished = perGold.reduce((n, g) => n + g.distinguished, 0);
  return {
    databases,
    golds: perGold,
    neighbours,
    distinguished,
    strength: neighbours === 0 ? 1 : distinguished / neighbours,
    meanStrength: perGold.length === 0 ? 1 : perGold.reduce((n, g) => n + g.strength, 0) / perGold.length,
  };
}

function suiteEntry(suite: TestSuite, sql: string): GoldSuite {
  const entry = suite.golds.find((g) => g.executedSql === sql);
  if (entry === undefined) throw new RangeError(`gold is not in the suite: ${sql.slice(0, 120)}`);
  return entry;
}
