import { describe, expect, it } from 'vitest';
import { cohensKappa, confusionOf, judgeStatistics, wilsonInterval, Z_95 } from '../../src/judge/judge-statistics.js';

/**
 * Reference Wilson bounds, computed independently of the module: the interval is the set of p with
 * (p̂ − p)² ≤ z² p (1 − p) / n, so its ends are the roots of
 * (1 + z²/n) p² − (2p̂ + z²/n) p + p̂² = 0.
 */
function wilsonByRoots(k: number, n: number): [number, number] {
  const phat = k / n;
  const a = 1 + (Z_95 * Z_95) / n;
  const b = -(2 * phat + (Z_95 * Z_95) / n);
  const c = phat * phat;
  const root = Math.sqrt(b * b - 4 * a * c);
  return [(-b - root) / (2 * a), (-b + root) / (2 * a)];
}

/**
 * Reference kappa standard error by the multinomial delta method with numeric derivatives: for
 * κ = f(p11, p12, p21, p22), var = (Σ p·f'² − (Σ p·f')²) / n. Asymptotically this is the variance
 * of Fleiss, Cohen & Everitt (1969); computed here without their closed form.
 */
function kappaByDeltaMethod(cells: [number, number, number, number]): { kappa: number; se: number } {
  const n = cells.reduce((sum, value) => sum + value, 0);
  const f = (p: readonly number[]): number => {
    const total = p.reduce((sum, value) => sum + value, 0);
    const q = p.map((value) => value / total);
    const po = q[0]! + q[3]!;
    const pe = (q[0]! + q[1]!) * (q[0]! + q[2]!) + (q[2]! + q[3]!) * (q[1]! + q[3]!);
    return (po - pe) / (1 - pe);
  };
  const p = cells.map((value) => value / n);
  const h = 1e-7;
  const derivatives = p.map((_, index) => {
    const up = p.map((value, j) => (j === index ? value + h : value));
    const down = p.map((value, j) => (j === index ? value - h : value));
    // Derivative along the raw cell (f normalises), then projected as the delta method needs.
    return (f(up) - f(down)) / (2 * h);
  });
  const mean = p.reduce((sum, value, index) => sum + value * derivatives[index]!, 0);
  const second = p.reduce((sum, value, index) => sum + value * derivatives[index]! ** 2, 0);
  return { kappa: f(p), se: Math.sqrt((second - mean * mean) / n) };
}

describe('judgeStatistics', () => {
  it('a judge wrong on 8 of 80 equivalent and 2 of 40 non-equivalent pairs reads TPR 0.900, TNR 0.950', () => {
    const stats = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
    expect(stats.n).toBe(120);
    expect(stats.tpr.value!.toFixed(3)).toBe('0.900');
    expect(stats.tnr.value!.toFixed(3)).toBe('0.950');
    expect(stats.accuracy.value).toBeCloseTo(110 / 120, 12);
    const [tprLow, tprHigh] = wilsonByRoots(72, 80);
    expect(stats.tpr.interval!.low).toBeCloseTo(tprLow, 12);
    expect(stats.tpr.interval!.high).toBeCloseTo(tprHigh, 12);
    const [tnrLow, tnrHigh] = wilsonByRoots(38, 40);
    expect(stats.tnr.interval!.low).toBeCloseTo(tnrLow, 12);
    expect(stats.tnr.interval!.high).toBeCloseTo(tnrHigh, 12);
    // To 4 places (Wilson 72/80: 0.8149–0.9485; 38/40: 0.8350–0.9862, as Python's arithmetic gives them).
    expect(stats.tpr.interval!.low.toFixed(4)).toBe('0.8149');
    expect(stats.tpr.interval!.high.toFixed(4)).toBe('0.9485');
    expect(stats.tnr.interval!.low.toFixed(4)).toBe('0.8350');
    expect(stats.tnr.interval!.high.toFixed(4)).toBe('0.9862');
  });

  it("Cohen's kappa and its interval agree with an independent delta-method computation", () => {
    const stats = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
    // p_o = 110/120; p_e = (80/120)(74/120) + (40/120)(46/120).
    const po = 110 / 120;
    const pe = (80 / 120) * (74 / 120) + (40 / 120) * (46 / 120);
    expect(stats.kappa.value).toBeCloseTo((po - pe) / (1 - pe), 12);
    const reference = kappaByDeltaMethod([72, 8, 2, 38]);
    expect(stats.kappa.value).toBeCloseTo(reference.kappa, 9);
    expect(stats.kappa.standardError).toBeCloseTo(reference.se, 6);
    expect(stats.kappa.interval!.low).toBeCloseTo(reference.kappa - Z_95 * reference.se, 6);
    expect(stats.kappa.interval!.high).toBeCloseTo(reference.kappa + Z_95 * reference.se, 6);
  });

  it('reads the bias as the judged "equivalent" rate against the true rate', () => {
    const stats = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
    expect(stats.bias.judgedPositiveRate.value).toBeCloseTo(74 / 120, 12);
    expect(stats.bias.truePositiveRate).toBeCloseTo(80 / 120, 12);
    expect(stats.bias.difference).toBeCloseTo(-6 / 120, 12);
    const variance = (10 / 120 - (6 / 120) ** 2) / 120;
    expect(stats.bias.interval!.low).toBeCloseTo(-6 / 120 - Z_95 * Math.sqrt(variance), 12);
  });

  it('a judge that always says "equivalent" has kappa 0 and a positive bias', () => {
    const stats = judgeStatistics({ tp: 80, fn: 0, fp: 40, tn: 0 });
    expect(stats.tpr.value).toBe(1);
    expect(stats.tnr.value).toBe(0);
    expect(stats.kappa.value).toBe(0);
    expect(stats.bias.difference).toBeCloseTo(40 / 120, 12);
  });

  it('has no rate, interval or kappa where the denominator is 0', () => {
    const stats = judgeStatistics({ tp: 0, fn: 0, fp: 0, tn: 0 });
    expect(stats.tpr).toEqual({ numerator: 0, denominator: 0, value: null, interval: null });
    expect(stats.kappa).toEqual({ value: null, standardError: null, interval: null });
    expect(cohensKappa({ tp: 5, fn: 0, fp: 0, tn: 0 }).value).toBeNull();
  });

  it('rejects counts that are not non-negative integers', () => {
    expect(() => judgeStatistics({ tp: 1.5, fn: 0, fp: 0, tn: 0 })).toThrow(/tp must be a non-negative integer/);
    expect(() => wilsonInterval(5, 4)).toThrow(/0 ≤ k ≤ n/);
  });

  it('counts a missing answer as the wrong one', () => {
    expect(confusionOf([
      { label: true, judged: true },
      { label: true, judged: null },
      { label: false, judged: null },
      { label: false, judged: false },
    ])).toEqual({ tp: 1, fn: 1, fp: 1, tn: 1 });
  });
});
