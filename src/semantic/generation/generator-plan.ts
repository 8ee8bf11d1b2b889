/**
 * The generator's plan: everything fixed for one schema, gold set and invariant set (value pools,
 * the snapshots' values, the fill order), read once and used by every draw (generate-database.ts)
 * and every edit of a drawn database (edit-database.ts).
 */
import { createDatabaseContract, type DatabaseContract } from './database-contract.js';
import { computeFillOrder, type FillOrder } from './fill-order.js';
import type { GoldLiteral } from '../model/gold-literals.js';
import type { BoundInvariant } from '../model/invariants.js';
import { readObservedValues, type ObservedData } from '../model/observed-values.js';
import type { DatabaseSchema } from '../model/schema-reader.js';
import { buildValuePools, type ColumnPool, type NullPolicy } from './value-pools.js';

/** Everything fixed for one schema, gold set and invariant set: the input of every draw. */
export interface GeneratorPlan {
  readonly schema: DatabaseSchema;
  readonly invariants: readonly BoundInvariant[];
  readonly pools: ReadonlyMap<string, ColumnPool>;
  readonly observed: ObservedData;
  readonly order: FillOrder;
  /** What every database drawn or edited from this plan must obey (database-contract.ts). */
  readonly contract: DatabaseContract;
}

/** Inputs of {@link createGeneratorPlan}. */
export interface CreatePlanInput {
  readonly schema: DatabaseSchema;
  /** Snapshot files whose values seed the pools (opened read-only). */
  readonly snapshots: readonly string[];
  /** Gold constants to place in their columns (gold-literals.ts). */
  readonly literals?: readonly GoldLiteral[];
  /** Invariants bound to `schema` (see `bindInvariants`). */
  readonly invariants?: readonly BoundInvariant[];
  /** Where NULLs may go: `allowed` by the schema (default) or only where `observed` in the snapshots. */
  readonly nulls?: NullPolicy;
  /**
   * The snapshots' values when already read (`readObservedValues` with the `lookup` tables'
   * rows): `snapshots` is then not read again. Lets a caller build many plans that differ only
   * in their literals (one per gold/prediction pair) from one read.
   */
  readonly observed?: ObservedData;
}

/**
 * Reads the snapshots' values and builds the pools and the fill order.
 * @throws LadderError from reading a snapshot (`db_not_found`).
 */
export function createGeneratorPlan(input: CreatePlanInput): GeneratorPlan {
  const invariants = input.invariants ?? [];
  const rowTables = invariants.filter((i) => i.kind === 'lookup').map((i) => i.tableName);
  const observed = input.observed ?? readObservedValues(input.snapshots, input.schema, { rowTables });
  const nulls = input.nulls ?? 'allowed';
  const pools = buildValuePools({ schema: input.schema, observed, literals: input.literals ?? [], invariants, nulls });
  const contract = createDatabaseContract({ schema: input.schema, invariants, pools, nulls });
  return { schema: input.schema, invariants, pools, observed, order: computeFillOrder(input.schema), contract };
}
