/**
 * A small seeded pseudo-random generator for the paired bootstrap: the same seed and stream name
 * give the same numbers on every machine and Node version, so a reported confidence interval can be
 * reproduced exactly.
 *
 * Generator: xoshiro128** (Blackman & Vigna, "Scrambled linear pseudorandom number generators",
 * 2021), 128 bits of state, seeded through splitmix32 from a 32-bit hash (FNV-1a) of the seed and
 * the stream name. Each metric and each tag slice of a comparison draws from its own named stream,
 * so adding a metric never changes the interval of another.
 */

/** A source of uniform doubles in [0, 1). */
export interface RandomSource {
  /** The next uniform double in [0, 1), with 53 random bits. */
  next(): number;
}

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit integer. */
function fnv1a(text: string, basis = 0x811c9dc5): number {
  let hash = basis >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** One splitmix32 step: returns the mixed output and the advanced state. */
function splitmix32(state: number): [output: number, next: number] {
  const next = (state + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return [(z ^ (z >>> 16)) >>> 0, next];
}

/**
 * Creates a seeded generator.
 * @param seed - any integer or string; the same (seed, stream) always gives the same sequence.
 * @param stream - a name that selects an independent stream (e.g. `metric:end_to_end`).
 * @example
 * const random = createSeededRandom(1, 'metric:end_to_end');
 * random.next(); // the same value on every run
 */
export function createSeededRandom(seed: number | string, stream = ''): RandomSource {
  let state = fnv1a(`${String(seed)}\u0000${stream}`);
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i += 1) {
    const [output, next] = splitmix32(state);
    words[i] = output;
    state = next;
  }
  const nextUint32 = createXoshiro128(words[0]!, words[1]!, words[2]!, words[3]!);
  return {
    next(): number {
      // 27 + 26 bits → a double with 53 random bits (the construction of MT19937's genrand_res53).
      const high = nextUint32() >>> 5;
      const low = nextUint32() >>> 6;
      return (high * 67108864 + low) / 9007199254740992;
    },
  };
}

/**
 * The raw xoshiro128** generator over the given 128-bit state (four unsigned 32-bit words, not all
 * zero; an all-zero state is replaced by 1, 0, 0, 0). Returns a function giving the next unsigned
 * 32-bit output. Exported for the reference-vector test.
 */
export function createXoshiro128(a: number, b: number, c: number, d: number): () => number {
  let s0 = a >>> 0;
  let s1 = b >>> 0;
  let s2 = c >>> 0;
  let s3 = d >>> 0;
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  return (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = rotl(s3, 11);
    return result;
  };
}

function rotl(value: number, bits: number): number {
  return ((value << bits) | (value >>> (32 - bits))) >>> 0;
}
