import { describe, expect, it } from 'vitest';
import { createSeededRandom, createXoshiro128 } from '../../src/report/seeded-random.js';

describe('createXoshiro128', () => {
  it('follows the xoshiro128** reference recurrence (state 1, 2, 3, 4, worked by hand)', () => {
    // result = rotl(s1·5, 7)·9, then the state update of the reference implementation.
    const next = createXoshiro128(1, 2, 3, 4);
    expect([next(), next(), next()]).toEqual([11520, 0, 5927040]);
  });

  it('never starts from the all-zero state', () => {
    const next = createXoshiro128(0, 0, 0, 0);
    expect([next(), next(), next(), next()].some((value) => value !== 0)).toBe(true);
  });
});

describe('createSeededRandom', () => {
  it('gives the same sequence for the same seed and stream, another for another stream or seed', () => {
    const take = (seed: number | string, stream: string) => {
      const random = createSeededRandom(seed, stream);
      return Array.from({ length: 5 }, () => random.next());
    };
    expect(take(1, 'metric:end_to_end')).toEqual(take(1, 'metric:end_to_end'));
    expect(take(1, 'metric:end_to_end')).not.toEqual(take(1, 'metric:L4_execution'));
    expect(take(1, 'metric:end_to_end')).not.toEqual(take(2, 'metric:end_to_end'));
    expect(take('1', 'x')).toEqual(take(1, 'x'));
  });

  it('draws uniform doubles in [0, 1) with 53-bit resolution', () => {
    const random = createSeededRandom(42);
    let sum = 0;
    let belowHalf = 0;
    let fractional = 0;
    const draws = 100_000;
    for (let i = 0; i < draws; i += 1) {
      const u = random.next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
      if (u < 0.5) belowHalf += 1;
      if (!Number.isInteger(u * 2 ** 32)) fractional += 1;
    }
    expect(Math.abs(sum / draws - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / draws));
    expect(Math.abs(belowHalf / draws - 0.5)).toBeLessThan(5 * Math.sqrt(0.25 / draws));
    expect(fractional).toBeGreaterThan(draws * 0.99); // more than 32 bits per draw
  });
});
