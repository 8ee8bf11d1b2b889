import { describe, expect, it } from 'vitest';
import { computeRves, computeVes, measureTimeRatio, removeOutliers, rvesReward, timeRatio } from '../../src/efficiency/ves.js';
import type { TimingSource } from '../../src/efficiency/ves.js';
import { isLadderError } from '../../src/errors.js';

/** A timing source replaying fixed synthetic timings (ms), recording the call order. */
function fixedTimings(predictedMs: number[], goldMs: number[], calls: string[] = []): TimingSource {
  return async (role, run) => {
    calls.push(`${role}${run}`);
    const value = (role === 'predicted' ? predictedMs : goldMs)[run];
    if (value === undefined) throw new Error(`no synthetic ${role} timing for run ${run}`);
    return value;
  };
}

describe('removeOutliers (BIRD clean_abnormal)', () => {
  it('drops a value beyond mean + 3σ (population σ)', () => {
    // 11 × 1 and one 100: mean 9.25, σ = √748.6875 = 27.362, mean + 3σ = 91.34
    const result = removeOutliers([...Array.from({ length: 11 }, () => 1), 100]);
    expect(result.mean).toBe(9.25);
    expect(result.std).toBeCloseTo(27.36215, 5);
    expect(result.kept).toEqual(Array.from({ length: 11 }, () => 1));
    expect(result.removed).toEqual([100]);
  });
  it('keeps every value when σ = 0 (BIRD would divide by zero and score 0)', () => {
    expect(removeOutliers([2, 2, 2]).kept).toEqual([2, 2, 2]);
  });
});

describe('measureTimeRatio', () => {
  it('alternates predicted and gold each round, as BIRD does', async () => {
    const calls: string[] = [];
    const result = await measureTimeRatio(fixedTimings([2, 4], [8, 8], calls), 2);
    expect(calls).toEqual(['predicted0', 'gold0', 'predicted1', 'gold1']);
    expect(result).toEqual({ ratio: 3, runs: 2, ratios: [4, 2], removed: [] });
  });
  it('defaults to 100 rounds', async () => {
    const calls: string[] = [];
    const source: TimingSource = async (role) => {
      calls.push(role);
      return role === 'gold' ? 3 : 1;
    };
    expect((await measureTimeRatio(source)).runs).toBe(100);
    expect(calls).toHaveLength(200);
  });
  it('rejects a zero timing and a bad run count with invalid_option', async () => {
    await expect(measureTimeRatio(fixedTimings([0], [1]), 1)).rejects.toSatisfy((error: unknown) => isLadderError(error, 'invalid_option'));
    await expect(measureTimeRatio(fixedTimings([1], [1]), 0)).rejects.toThrow('timing runs must be a positive integer, received 0');
    expect(() => timeRatio([])).toThrow('timing runs must be at least 1');
  });
});

describe('rvesReward (BIRD mini-dev buckets)', () => {
  it.each([
    [true, 2, 1.25],
    [true, 7.5, 1.25],
    [true, 1.999, 1],
    [true, 1, 1],
    [true, 0.999, 0.75],
    [true, 0.5, 0.75],
    [true, 0.4999, 0.5],
    [true, 0.25, 0.5],
    [true, 0.2499, 0.25],
    [false, 3, 0],
  ])('correct=%s ratio=%s → %s', (correct, ratio, reward) => {
    expect(rvesReward(correct, ratio)).toBe(reward);
  });
});

describe('VES and R-VES on fixed synthetic timings (hand computation)', () => {
  it('match the formulas', async () => {
    // A: 12 rounds, predicted 10 ms; gold 10 ms except one 1000 ms round → ratios 1 ×11 and 100;
    //    100 > mean + 3σ (91.34) is removed → ratio 1.
    const a = await measureTimeRatio(fixedTimings(Array(12).fill(10), [...Array(11).fill(10), 1000]), 12);
    // B: ratios 8/2 = 4 and 8/4 = 2 → mean 3, σ 1, both kept → ratio 3.
    const b = await measureTimeRatio(fixedTimings([2, 4], [8, 8]), 2);
    // C: one round, gold 3 ms / predicted 10 ms → ratio 0.3.
    const c = await measureTimeRatio(fixedTimings([10], [3]), 1);
    expect([a.ratio, b.ratio, c.ratio]).toEqual([1, 3, 0.3]);
    expect(a.removed).toEqual([100]);
    // D: results differ → counts 0 whatever its timing.
    const items = [
      { correct: true, ratio: a.ratio },
      { correct: true, ratio: b.ratio },
      { correct: true, ratio: c.ratio },
      { correct: false, ratio: 5 },
    ];
    // VES = (√1 + √3 + √0.3 + 0) / 4 × 100 = (1 + 1.7320508 + 0.5477226) / 4 × 100 = 81.99433
    expect(computeVes(items)).toBeCloseTo(((1 + Math.sqrt(3) + Math.sqrt(0.3) + 0) / 4) * 100, 10);
    expect(computeVes(items)).toBeCloseTo(81.99433, 5);
    // R-VES rewards: 1 → 1, 3 → 1.25, 0.3 → 0.5, incorrect → 0;
    // (√1 + √1.25 + √0.5 + 0) / 4 × 100 = (1 + 1.1180340 + 0.7071068) / 4 × 100 = 70.62852
    expect(computeRves(items)).toBeCloseTo(((1 + Math.sqrt(1.25) + Math.sqrt(0.5)) / 4) * 100, 10);
    expect(computeRves(items)).toBeCloseTo(70.62852, 5);
  });
  it('score 0 for no items', () => {
    expect([computeVes([]), computeRves([])]).toEqual([0, 0]);
  });
});
