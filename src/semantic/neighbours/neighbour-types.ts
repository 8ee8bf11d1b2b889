/**
 * The shapes of neighbour queries: what an edit changed (its kind), a candidate (the gold with
 * one span replaced), the options that bound the edits, and the counts of candidates left out as
 * provably equivalent.
 */
import type { Catalog } from '../../engine/engine.js';
import type { DomainComparison } from './domain-equivalence.js';

/** What a neighbour changed. */
export type NeighbourKind =
  | 'drop_span'
  | 'drop_predicate'
  | 'drop_join_condition'
  | 'drop_clause'
  | 'drop_item'
  | 'swap_aggregate'
  | 'swap_comparison'
  | 'swap_logic'
  | 'swap_order'
  | 'add_desc'
  | 'swap_like'
  | 'swap_in'
  | 'swap_null_test'
  | 'swap_exists'
  | 'swap_between'
  | 'swap_arithmetic'
  | 'swap_column'
  | 'swap_join'
  | 'add_distinct'
  | 'limit'
  | 'literal';

/** Every kind, in documentation order. */
export const NEIGHBOUR_KINDS: readonly NeighbourKind[] = [
  'drop_span', 'drop_predicate', 'drop_join_condition', 'drop_clause', 'drop_item', 'swap_aggregate', 'swap_comparison',
  'swap_logic', 'swap_order', 'add_desc', 'swap_like', 'swap_in', 'swap_null_test', 'swap_exists', 'swap_between',
  'swap_arithmetic', 'swap_column', 'swap_join', 'add_distinct', 'limit', 'literal',
];

/** One neighbour: the gold with one span replaced. */
export interface NeighbourCandidate {
  readonly sql: string;
  readonly kind: NeighbourKind;
  /** 0-based `[start, end)` of the replaced span in the gold, and what replaced it. */
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
  /** One line for people, e.g. `` `>=` → `>` `` or `` dropped `WHERE age > 3` ``. */
  readonly description: string;
}

/** Options of {@link listNeighbourCandidates}. */
export interface NeighbourOptions {
  /** Longest token span dropped as a span (default 4); predicates, clauses and items are dropped whole at any length. */
  readonly maxSpanTokens?: number;
  /** Seed of the random literal perturbations (default 0). */
  readonly seed?: string | number;
  /** Most replacement columns per column reference (default 12, sampled by the seed). */
  readonly maxColumnSwaps?: number;
  /** Catalog with views (from `engine.catalog`), for resolving columns of views. */
  readonly catalog?: Catalog;
  /**
   * Columns with a declared finite domain (`values` invariants, lookup tables), by column key
   * (`table.column`, lower-case), NULL included when allowed: a comparison edit that keeps the
   * comparison's truth over the domain is not a neighbour (domain-equivalence.ts).
   */
  readonly finiteDomains?: ReadonlyMap<string, DomainComparison['domain']>;
}

/** Candidates left out because they provably change nothing, by rule. */
export interface EquivalentCounts {
  /** A lone `AS` / `ASC`, a qualifier, an unused output alias, the `*` of `COUNT(*)`. */
  readonly cosmetic: number;
  /** DISTINCT where rows are already unique (one aggregate row, selected GROUP BY keys or primary key, EXISTS / IN subqueries). */
  readonly redundantDistinct: number;
  /** LEFT ↔ INNER on a NOT NULL foreign key to the joined table's key. */
  readonly keyJoin: number;
  /** A comparison whose truth is unchanged over the column's declared domain. */
  readonly domain: number;
}
