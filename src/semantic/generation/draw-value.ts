/**
 * Drawing one value for a column from its pool: a per-database profile weighs the sources
 * (constants, observed values, duplicates of values already drawn, fresh values, NULL), so that
 * the databases of a suite differ in character, not only in their random values.
 */
import { round, type GenValue } from '../model/gen-value.js';
import type { Prng } from '../model/prng.js';
import { dateOfDay } from '../model/value-kind.js';
import type { ColumnPool } from './value-pools.js';

/** Per-database weights of the value sources (varied per database so that suites are diverse). */
export interface DrawProfile {
  /** Probability of NULL in a nullable column. */
  readonly nullRate: number;
  readonly constantWeight: number;
  readonly observedWeight: number;
  readonly duplicateWeight: number;
  readonly freshWeight: number;
}

/** Draws one profile per database. */
export function drawProfile(rng: Prng): DrawProfile {
  return {
    nullRate: rng.pickWeighted([[0, 3], [0.05, 2], [0.2, 2], [0.5, 1]] as const),
    constantWeight: rng.pickWeighted([[0.2, 1], [0.4, 2], [0.7, 1]] as const),
    observedWeight: rng.pickWeighted([[0.1, 1], [0.35, 2], [0.6, 1]] as const),
    duplicateWeight: rng.pickWeighted([[0.05, 1], [0.2, 2], [0.4, 1]] as const),
    freshWeight: rng.pickWeighted([[0.05, 1], [0.2, 2], [0.4, 1]] as const),
  };
}

/**
 * Draws a value for a column.
 * @param pool - the column's pool.
 * @param rng - the database's stream.
 * @param profile - the database's weights.
 * @param previous - values already drawn in this column of this database (for duplicates).
 */
export function drawValue(pool: ColumnPool, rng: Prng, profile: DrawProfile, previous: readonly GenValue[]): GenValue {
  if (pool.nullable && rng.chance(profile.nullRate)) return null;
  if (pool.fixedValues !== undefined) {
    if (pool.fixedValues.length === 0) return null;
    if (pool.constants.length > 0 && rng.chance(profile.constantWeight)) return rng.pick(pool.constants);
    // Half the time as often as the snapshots hold each value (test accounts are rare), else uniformly.
    return rng.chance(0.5) ? rng.pickWeighted(weighted(pool).fixed) : rng.pick(pool.fixedValues);
  }
  const sources: [string, number][] = [];
  if (pool.constants.length > 0) sources.push(['constant', profile.constantWeight]);
  if (pool.observed.length > 0) sources.push(['observed', profile.observedWeight]);
  if (previous.length > 0) sources.push(['duplicate', profile.duplicateWeight]);
  sources.push(['fresh', profile.freshWeight]);
  const source = rng.pickWeighted(sources);
  if (source === 'constant') return rng.pick(pool.constants);
  if (source === 'observed') return rng.chance(0.5) ? rng.pickWeighted(weighted(pool).observed) : rng.pick(pool.observed);
  if (source === 'duplicate') return rng.pick(previous);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const fresh = freshValue(pool, rng);
    if (pool.accepts(fresh)) return fresh;
  }
  return pool.observed.length > 0 ? rng.pick(pool.observed) : pool.constants.length > 0 ? rng.pick(pool.constants) : freshValue(pool, rng);
}

/** What draws read of a pool besides its values, made once per pool (a pool never changes). */
interface PoolLists {
  /** The observed values with their weights, for `pickWeighted`. */
  readonly observed: readonly (readonly [GenValue, number])[];
  /** The fixed values with their weights (empty when the pool has none). */
  readonly fixed: readonly (readonly [GenValue, number])[];
  /** The strings a fresh text value may be a near-duplicate of: observed values, then constants. */
  readonly textBases: readonly string[];
}

const poolLists = new WeakMap<ColumnPool, PoolLists>();

/** The pool's lists (every draw used to rebuild them: thousands of values per draw on a large snapshot). */
function weighted(pool: ColumnPool): PoolLists {
  let lists = poolLists.get(pool);
  if (lists === undefined) {
    lists = {
      observed: pool.observed.map((v, i) => [v, pool.observedWeights[i] ?? 1] as const),
      fixed: (pool.fixedValues ?? []).map((v, i) => [v, pool.fixedWeights?.[i] ?? 1] as const),
      textBases: [...pool.observed, ...pool.constants].filter((v): v is string => typeof v === 'string'),
    };
    poolLists.set(pool, lists);
  }
  return lists;
}

/** A random value of the pool's kind, within its bounds. */
export function freshValue(pool: ColumnPool, rng: Prng): GenValue {
  const { min, max, step, decimals } = pool.numeric;
  switch (pool.kind) {
    case 'integer': {
      const lo = Math.ceil(min) - (min === max ? 5 : 2);
      const hi = Math.floor(max) + (min === max ? 5 : 2);
      const lower = Number.isSafeInteger(lo) ? lo : Number.MIN_SAFE_INTEGER;
      const upper = Number.isSafeInteger(hi) && hi >= lower ? hi : lower + 100;
      return BigInt(rng.int(lower, upper));
    }
    case 'real': {
      const x = min + rng.next() * (max - min + (max === min ? 10 : 0));
      if (step !== null) return Math.round(x / step) * step;
      return round(x, decimals);
    }
    case 'date':
      return dateOfDay(rng.int(pool.days.min, pool.days.max));
    case 'timestamp': {
      const day = dateOfDay(rng.int(pool.days.min, pool.days.max));
      const special = rng.chance(0.15);
      const seconds = special ? rng.pick([0, 86_399, 1, 86_398]) : rng.int(0, 86_399);
      return `${day} ${new Date(seconds * 1000).toISOString().slice(11, 19)}`;
    }
    case 'time':
      return new Date(rng.int(0, 86_399) * 1000).toISOString().slice(11, 19);
    case 'blob':
      return Uint8Array.from({ length: 4 }, () => rng.int(0, 255));
    case 'text': {
      const bases = weighted(pool).textBases;
      if (bases.length > 0 && rng.chance(0.6)) return contaminate(rng.pick(bases), rng);
      const length = rng.int(pool.textLength.min, Math.max(pool.textLength.min, pool.textLength.max));
      return randomText(length, rng);
    }
  }
}

const CHARSET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789';

function randomText(length: number, rng: Prng): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += CHARSET[rng.int(0, CHARSET.length - 1)];
  return out;
}

/** A near-duplicate of a string: text added before or after, a character dropped, the case changed. */
function contaminate(text: string, rng: Prng): string {
  switch (rng.int(0, 5)) {
    case 0:
      return text + randomText(rng.int(1, 4), rng);
    case 1:
      return randomText(rng.int(1, 4), rng) + text;
    case 2:
      return text.length > 1 ? text.slice(0, -1) : text + 'a';
    case 3:
      return text.length > 1 ? text.slice(1) : 'a' + text;
    case 4:
      return text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
    default:
      return `${randomText(rng.int(1, 3), rng)} ${text} ${randomText(rng.int(1, 3), rng)}`;
  }
}
