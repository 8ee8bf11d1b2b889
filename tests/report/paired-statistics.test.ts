import { describe, expect, it } from 'vitest';
import {
  createBinomialSampler,
  drawBootstrapDifferences,
  EXACT_SUM_LIMIT,
  logFactorial,
  mcnemarExact,
  pairedBootstrap,
} from '../../src/report/paired-statistics.js';
import { createSeededRandom } from '../../src/report/seeded-random.js';

describe('mcnemarExact: argument validation', () => {
  it.each([
    [-1, 2, 'improvements must be a non-negative integer; received -1'],
    [1.5, 2, 'improvements must be a non-negative integer; received 1.5'],
    [1, Number.NaN, 'regressions must be a non-negative integer; received NaN'],
  ])('(%s, %s) throws a RangeError', (b, c, message) => {
    expect(() => mcnemarExact(b, c)).toThrow(new RangeError(message));
  });
});

describe('mcnemarExact: p-values equal the hand computation', () => {
  // p = min(1, 2·Σ_{i≤k} C(n,i)/2^n), mid-p = 2·Σ_{i≤k} C(n,i)/2^n − C(n,k)/2^n, n = b + c, k = min(b, c).
  it.each<[number, number, number, number]>([
    [0, 0, 1, 1],
    [3, 3, 1, 1], // b = c
    [0, 1, 1, 1 / 2], // 2·1/2 capped; mid-p 1 − 1/2
    [0, 5, 2 / 32, 1 / 32],
    [1, 9, (2 * (1 + 10)) / 1024, (2 * (1 + 10) - 10) / 1024], // 0.021484375: the size example at n = 10
    [9, 1, (2 * (1 + 10)) / 1024, (2 * (1 + 10) - 10) / 1024],
    [2, 8, (2 * (1 + 10 + 45)) / 1024, (2 * 56 - 45) / 1024],
    [4, 6, (2 * (1 + 10 + 45 + 120 + 210)) / 1024, (2 * 386 - 210) / 1024],
    [5, 15, (2 * (1 + 20 + 190 + 1140 + 4845 + 15504)) / 2 ** 20, (2 * 21700 - 15504) / 2 ** 20], // 0.04139: the size example at n = 20
    [6, 14, (2 * (21700 + 38760)) / 2 ** 20, (2 * 60460 - 38760) / 2 ** 20],
    [39, 0, 2 / 2 ** 39, 1 / 2 ** 39],
  ])('b=%i c=%i', (b, c, p, midP) => {
    const result = mcnemarExact(b, c);
    expect(Math.abs(result.pValue - p)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(result.midP - midP)).toBeLessThanOrEqual(1e-9);
    expect(result.pValue).toBe(p); // exact rational arithmetic: equal to the last bit here
    expect(result.midP).toBe(midP);
    expect([result.discordant, result.method]).toEqual([b + c, 'exact-rational']);
  });

  // Reference values from exact rational arithmetic outside this code (Python fractions.Fraction
  // over math.comb), printed with 17 significant digits.
  it.each<[number, number, number, number, 'exact-rational' | 'log-space']>([
    [7, 25, 0.0021024015732109547, 0.0013187271542847157, 'exact-rational'],
    [100, 130, 0.055613577781392386, 0.04816305344074454, 'exact-rational'],
    [250, 300, 0.036578745549102704, 0.033071515917357935, 'exact-rational'],
    [1000, 1100, 0.030720707864242296, 0.029110633685909038, 'exact-rational'],
    [9990, 10010, 0.8931260239225577, 0.8875403329267083, 'exact-rational'],
    [9900, 10200, 0.034943412912758, 0.03434355578101784, 'log-space'],
    [10050, 10150, 0.48607813972449243, 0.4816952025021978, 'log-space'],
    [12000, 13000, 2.631745508336495e-10, 2.5282060091997197e-10, 'log-space'],
  ])('b=%i c=%i against an exact reference', (b, c, p, midP, method) => {
    const result = mcnemarExact(b, c);
    expect(result.method).toBe(method);
    expect(Math.abs(result.pValue - p)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(result.midP - midP)).toBeLessThanOrEqual(1e-9);
    // Relative agreement, which matters for tiny p-values.
    expect(Math.abs(result.pValue - p) / p).toBeLessThan(1e-10);
    expect(Math.abs(result.midP - midP) / midP).toBeLessThan(1e-10);
  });

  it('switches to log space just above the exact limit without a jump', () => {
    expect(EXACT_SUM_LIMIT).toBe(20_000);
    const exact = mcnemarExact(9_800, 10_200);
    const log = mcnemarExact(9_800, 10_201);
    expect([exact.method, log.method]).toEqual(['exact-rational', 'log-space']);
    // One more regression can only lower the p-value, by a little.
    expect(log.pValue).toBeLessThan(exact.pValue);
    expect(exact.pValue - log.pValue).toBeLessThan(exact.pValue * 0.05);
  });

  it('is symmetric in b and c, and a tiny p-value does not underflow to 0 too early', () => {
    expect(mcnemarExact(13, 2)).toEqual({ ...mcnemarExact(2, 13), improvements: 13, regressions: 2 });
    expect(mcnemarExact(0, 1000).pValue).toBe(2 / 2 ** 1000);
    expect(mcnemarExact(0, 1074).pValue).toBe(2 ** -1073);
    expect(mcnemarExact(0, 1100).pValue).toBe(0);
  });
});

describe('logFactorial', () => {
  it.each([[0, 0], [1, 0], [5, Math.log(120)], [255, undefined], [256, undefined], [10_000, undefined]])('ln(%i!)', (m, expected) => {
    let sum = 0;
    for (let i = 2; i <= m; i += 1) sum += Math.log(i);
    expect(Math.abs(logFactorial(m) - (expected ?? sum))).toBeLessThan(1e-9 * Math.max(1, sum));
  });
});

describe('pairedBootstrap', () => {
  it('validates its arguments', () => {
    expect(() => pairedBootstrap({ n: 5, improvements: 4, regressions: 2 })).toThrow(new RangeError('improvements + regressions (6) must not exceed n (5)'));
    expect(() => pairedBootstrap({ n: 5, improvements: 1, regressions: 1, replicates: 0 })).toThrow(new RangeError('replicates must be an integer from 1 to 10000000; received 0'));
    expect(() => pairedBootstrap({ n: 5, improvements: 1, regressions: 1, level: 1 })).toThrow(new RangeError('level must be in (0, 1); received 1'));
    expect(() => pairedBootstrap({ n: -1, improvements: 0, regressions: 0 })).toThrow(new RangeError('n must be a non-negative integer; received -1'));
  });

  it('is identical for a fixed seed, and differs for another seed', () => {
    const options = { n: 70, improvements: 39, regressions: 0 };
    const first = pairedBootstrap(options);
    expect(pairedBootstrap(options)).toEqual(first);
    expect(first).toEqual({ lower: 31 / 70, upper: 47 / 70, level: 0.95, replicates: 10_000, seed: 1, stream: '' });
    const draws = (seed: number) => drawBootstrapDifferences(70, 39, 0, 1000, createSeededRandom(seed, 'metric:end_to_end'));
    expect(draws(7)).toEqual(draws(7));
    expect(draws(7)).not.toEqual(draws(8));
  });

  it('gives exact intervals on a regression example (pinned; p = 0.047, so the interval excludes 0 as well)', () => {
    expect(mcnemarExact(12, 25).pValue).toBeCloseTo(0.0470, 4);
    expect(pairedBootstrap({ n: 200, improvements: 12, regressions: 25, seed: 'pr-42', stream: 'metric:end_to_end' })).toEqual({
      lower: -25 / 200,
      upper: -1 / 200,
      level: 0.95,
      replicates: 10_000,
      seed: 'pr-42',
      stream: 'metric:end_to_end',
    });
  });

  it('has nothing to resample for n = 0 and a zero-width interval without discordant pairs', () => {
    expect(pairedBootstrap({ n: 0, improvements: 0, regressions: 0 })).toBeUndefined();
    expect(pairedBootstrap({ n: 10, improvements: 0, regressions: 0 })).toMatchObject({ lower: 0, upper: 0 });
    expect(pairedBootstrap({ n: 3, improvements: 3, regressions: 0 })).toMatchObject({ lower: 1, upper: 1 });
  });

  it('draws b* − c* with the distribution of resampling the items (exact multinomial law)', () => {
    // n = 20 items: 5 improvements, 3 regressions, 12 concordant. Resampling 20 items with
    // replacement gives (b*, c*, rest) ~ Multinomial(20; 5/20, 3/20, 12/20).
    const n = 20;
    const [pb, pc] = [5 / n, 3 / n];
    const exact = new Map<number, number>();
    const logF = (m: number): number => logFactorial(m);
    for (let b = 0; b <= n; b += 1) {
      for (let c = 0; b + c <= n; c += 1) {
        const r = n - b - c;
        const p = Math.exp(logF(n) - logF(b) - logF(c) - logF(r) + b * Math.log(pb) + c * Math.log(pc) + r * Math.log(1 - pb - pc));
        exact.set(b - c, (exact.get(b - c) ?? 0) + p);
      }
    }
    const replicates = 200_000;
    const draws = drawBootstrapDifferences(n, 5, 3, replicates, createSeededRandom(3, 'law'));
    const counts = new Map<number, number>();
    for (const t of draws) counts.set(t, (counts.get(t) ?? 0) + 1);
    let checked = 0;
    for (const [t, p] of exact) {
      if (p < 1e-4) continue;
      const frequency = (counts.get(t) ?? 0) / replicates;
      expect(Math.abs(frequency - p), `t = ${t}`).toBeLessThanOrEqual(5 * Math.sqrt((p * (1 - p)) / replicates));
      checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe('createBinomialSampler', () => {
  it('handles the degenerate cases', () => {
    const random = createSeededRandom(1);
    expect(createBinomialSampler(0, 0.5)(random)).toBe(0);
    expect(createBinomialSampler(10, 0)(random)).toBe(0);
    expect(createBinomialSampler(10, 1)(random)).toBe(10);
  });

  it('has the binomial mean and variance', () => {
    const random = createSeededRandom(11);
    const sample = createBinomialSampler(1000, 0.3);
    let sum = 0;
    let squares = 0;
    const draws = 100_000;
    for (let i = 0; i < draws; i += 1) {
      const x = sample(random);
      sum += x;
      squares += x * x;
    }
    const mean = sum / draws;
    const variance = squares / draws - mean * mean;
    expect(Math.abs(mean - 300)).toBeLessThan(5 * Math.sqrt(210 / draws));
    expect(Math.abs(variance - 210) / 210).toBeLessThan(0.03);
  });
});
