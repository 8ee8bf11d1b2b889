/**
 * A seeded pseudo-random number generator, so that a generated database is a pure function of
 * `(generator version, seed, index)` and a test suite can be stored as its seed and the indices it
 * kept.
 *
 * Algorithm: sfc32 (Chris Doty-Humphrey's "small fast counting" generator, PractRand suite), a
 * 128-bit state of four 32-bit words, seeded from the first 16 bytes of sha256(seed key) and
 * warmed up by 12 rounds. Sub-streams (`fork`) hash the parent key with a label, so adding a draw
 * in one place never shifts the values drawn elsewhere.
 */
import { createHash } from 'node:crypto';

/** A deterministic stream of random values. */
export interface Prng {
  /** The key this stream was seeded from (`seed`, or `parent/label` for a fork). */
  readonly key: string;
  /** A uniform 32-bit unsigned integer. */
  uint32(): number;
  /** A uniform float in [0, 1) with 32 bits of randomness. */
  next(): number;
  /**
   * A uniform integer in [min, max], both inclusive.
   * @throws RangeError when the bounds are not safe integers or `min > max`.
   */
  int(min: number, max: number): number;
  /** True with probability `p` (clamped to [0, 1]). */
  chance(p: number): boolean;
  /**
   * One element, uniformly.
   * @throws RangeError for an empty list.
   */
  pick<T>(items: readonly T[]): T;
  /** One element, with probability proportional to its weight (weights ≥ 0, not all 0). */
  pickWeighted<T>(items: readonly (readonly [T, number])[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent stream keyed by this stream's key and `label` (does not advance this one). */
  fork(label: string): Prng;
}

/**
 * Creates a stream from a seed.
 * @param seed - any string or number; the same seed always gives the same stream.
 * @example
 * const rng = createPrng('suite-7');
 * rng.int(1, 6); // the same value on every machine and run
 * rng.fork('db/3').next(); // independent of how many values `rng` has drawn
 */
export function createPrng(seed: string | number): Prng {
  if (typeof seed !== 'string' && !(typeof seed === 'number' && Number.isFinite(seed))) {
    throw new TypeError(`seed must be a string or a finite number; received ${typeof seed}`);
  }
  return fromKey(String(seed));
}

function fromKey(key: string): Prng {
  const digest = createHash('sha256').update(key).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const uint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i += 1) uint32();
  const next = (): number => uint32() / 4294967296;
  const int = (min: number, max: number): number => {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      throw new RangeError(`int(min, max) needs safe integers with min ≤ max; received ${min}, ${max}`);
    }
    const span = max - min + 1;
    if (span <= 4294967296) return min + Math.floor(next() * span);
    // Wide ranges: combine two draws (53 bits).
    const wide = (uint32() * 2097152 + (uint32() >>> 11)) / 9007199254740992;
    return min + Math.floor(wide * span);
  };
  const prng: Prng = {
    key,
    uint32,
    next,
    int,
    chance: (p) => next() < Math.min(1, Math.max(0, p)),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick() needs a non-empty list');
      return items[int(0, items.length - 1)]!;
    },
    pickWeighted<T>(items: readonly (readonly [T, number])[]): T {
      const total = items.reduce((sum, [, weight]) => sum + Math.max(0, weight), 0);
      if (!(total > 0)) throw new RangeError('pickWeighted() needs at least one positive weight');
      let target = next() * total;
      for (const [item, weight] of items) {
        target -= Math.max(0, weight);
        if (target < 0) return item;
      }
      return items[items.length - 1]![0];
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i -= 1) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    fork: (label) => fromKey(`${key}/${label}`),
  };
  return prng;
}
