import { describe, expect, it } from 'vitest';
import { createPrng } from '../../src/semantic/model/prng.js';

describe('createPrng', () => {
  it('rejects a seed that is neither a string nor a finite number', () => {
    expect(() => createPrng(Number.NaN)).toThrow(new TypeError('seed must be a string or a finite number; received number'));
    expect(() => createPrng({} as unknown as string)).toThrow(TypeError);
  });

  it('gives the same stream for the same seed on every run (sfc32 over sha256 of the seed)', () => {
    const rng = createPrng('seed-1');
    expect([rng.uint32(), rng.uint32(), rng.uint32()]).toEqual([2584666604, 2225811949, 613326964]);
    expect(rng.int(1, 6)).toBe(4);
    expect(rng.next()).toBe(0.4405216190498322);
    expect(rng.pick(['a', 'b', 'c'])).toBe('a');
    expect(rng.shuffle([1, 2, 3, 4, 5])).toEqual([3, 5, 2, 1, 4]);
    expect(rng.pickWeighted([['x', 1], ['y', 3]])).toBe('x');
  });

  it('keys numbers and their text alike, and forks without advancing the parent', () => {
    expect(createPrng(7).uint32()).toBe(4159423805);
    expect(createPrng('7').uint32()).toBe(4159423805);
    const parent = createPrng('seed-1');
    expect(parent.fork('db/3').uint32()).toBe(932483307);
    expect(parent.fork('db/3').key).toBe('seed-1/db/3');
    expect(parent.uint32()).toBe(2584666604);
  });

  it('keeps int() within its inclusive bounds and checks them', () => {
    const rng = createPrng('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i += 1) seen.add(rng.int(-2, 2));
    expect([...seen].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2]);
    expect(() => rng.int(3, 1)).toThrow(new RangeError('int(min, max) needs safe integers with min ≤ max; received 3, 1'));
    expect(() => rng.pick([])).toThrow(new RangeError('pick() needs a non-empty list'));
    expect(() => rng.pickWeighted([['a', 0]])).toThrow(new RangeError('pickWeighted() needs at least one positive weight'));
  });
});
