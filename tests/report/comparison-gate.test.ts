import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare-runs.js';
import { evaluateGate, formatP } from '../../src/report/comparison-gate.js';
import { mcnemarExact } from '../../src/report/paired-statistics.js';
import { createSeededRandom, type RandomSource } from '../../src/report/seeded-random.js';
import { endToEndRun, item, run } from './helpers.js';

const ALPHA = 0.05;

/** C(n, k) / 2^n for small n, exactly enough for sizes. */
function halfBinomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i += 1) c = (c * (n - i + 1)) / i;
  return c / 2 ** n;
}

/** P(gate fails | D discordant pairs, no change): c regressions of D, each a fair coin. */
function exactSizes(discordant: number, midP = false): { twoSided: number; gate: number } {
  let twoSided = 0;
  let gate = 0;
  for (let c = 0; c <= discordant; c += 1) {
    const b = discordant - c;
    const test = mcnemarExact(b, c);
    if ((midP ? test.midP : test.pValue) <= ALPHA) {
      twoSided += halfBinomial(discordant, c);
      if (c > b) gate += halfBinomial(discordant, c);
    }
  }
  return { twoSided, gate };
}

interface Simulation {
  readonly pairs: number;
  /** Gate failures (`--fail-on significant-regression`). */
  readonly alarms: number;
  /** Two-sided significant results (p ≤ α, either direction). */
  readonly significant: number;
  /** Σ over pairs of the exact gate size at that pair's discordant count, and its variance. */
  readonly expectedAlarms: number;
  readonly alarmVariance: number;
  readonly expectedSignificant: number;
  readonly significantVariance: number;
}

/** Runs `pairs` no-change run pairs through compareRuns + evaluateGate. */
function simulate(pairs: number, makePair: (random: RandomSource) => { base: ('pass' | 'fail')[]; cand: ('pass' | 'fail')[] }, seed: string): Simulation {
  const random = createSeededRandom(seed, 'no-change');
  const sizeCache = new Map<number, { twoSided: number; gate: number }>();
  let alarms = 0;
  let significant = 0;
  let expectedAlarms = 0;
  let alarmVariance = 0;
  let expectedSignificant = 0;
  let significantVariance = 0;
  for (let s = 0; s < pairs; s += 1) {
    const { base, cand } = makePair(random);
    const comparison = compareRuns(endToEndRun('base', base), endToEndRun('cand', cand), { bootstrapReplicates: 0 });
    const gate = evaluateGate(comparison, { failOn: 'significant-regression', alpha: ALPHA });
    const metric = comparison.metrics[0]!;
    if (!gate.pass) alarms += 1;
    if (metric.test.pValue <= ALPHA) significant += 1;
    const discordant = metric.test.discordant;
    let size = sizeCache.get(discordant);
    if (size === undefined) {
      size = exactSizes(discordant);
      sizeCache.set(discordant, size);
    }
    expectedAlarms += size.gate;
    alarmVariance += size.gate * (1 - size.gate);
    expectedSignificant += size.twoSided;
    significantVariance += size.twoSided * (1 - size.twoSided);
  }
  return { pairs, alarms, significant, expectedAlarms, alarmVariance, expectedSignificant, significantVariance };
}

/** Exchangeable outcomes: per item a pass probability, base and candidate drawn independently from it. */
function noChangePair(items: number) {
  return (random: RandomSource) => {
    const base: ('pass' | 'fail')[] = [];
    const cand: ('pass' | 'fail')[] = [];
    for (let i = 0; i < items; i += 1) {
      const p = random.next();
      base.push(random.next() < p ? 'pass' : 'fail');
      cand.push(random.next() < p ? 'pass' : 'fail');
    }
    return { base, cand };
  };
}

/** Exactly `discordant` discordant items of `items`, each direction a fair coin. */
function fixedDiscordantPair(items: number, discordant: number) {
  return (random: RandomSource) => {
    const base: ('pass' | 'fail')[] = [];
    const cand: ('pass' | 'fail')[] = [];
    for (let i = 0; i < items; i += 1) {
      if (i < discordant) {
        const improved = random.next() < 0.5;
        base.push(improved ? 'fail' : 'pass');
        cand.push(improved ? 'pass' : 'fail');
      } else {
        const outcome = i % 2 === 0 ? 'pass' : 'fail';
        base.push(outcome);
        cand.push(outcome);
      }
    }
    return { base, cand };
  };
}

describe('the gate under no change (10 000 seeded simulated run pairs each)', () => {
  it('exact test size: 2.15 % at 10 discordant pairs and 4.14 % at 20 (two-sided), half that for the regression gate', () => {
    expect(exactSizes(10)).toEqual({ twoSided: 22 / 1024, gate: 11 / 1024 }); // 0.021484375
    expect(exactSizes(20)).toEqual({ twoSided: 43400 / 2 ** 20, gate: 21700 / 2 ** 20 }); // 0.0413894…
    expect((100 * 22) / 1024).toBeCloseTo(2.15, 2);
    expect((100 * 43400) / 2 ** 20).toBeCloseTo(4.14, 2);
  });

  it.each([
    [10, 219, 108], // 2.19 % vs 2.148 %; 1.08 % vs 1.074 %
    [20, 409, 207], // 4.09 % vs 4.139 %; 2.07 % vs 2.069 %
  ])('%i discordant pairs: the simulated rates equal the exact size within simulation error', (discordant, significant, alarms) => {
    const result = simulate(10_000, fixedDiscordantPair(50, discordant), `fixed-${discordant}`);
    const { twoSided, gate } = exactSizes(discordant);
    // 4 standard errors of a binomial proportion over 10 000 pairs.
    expect(Math.abs(result.significant / 10_000 - twoSided)).toBeLessThanOrEqual(4 * Math.sqrt((twoSided * (1 - twoSided)) / 10_000));
    expect(Math.abs(result.alarms / 10_000 - gate)).toBeLessThanOrEqual(4 * Math.sqrt((gate * (1 - gate)) / 10_000));
    expect(result.alarms / 10_000).toBeLessThanOrEqual(0.05);
    // Seeded: the counts are reproducible.
    expect([result.significant, result.alarms]).toEqual([significant, alarms]);
  });

  it('random no-change runs (40 items, per-item pass probability uniform): false-alarm rate ≤ 5 % and equal to the exact size for the simulated discordant counts', () => {
    const result = simulate(10_000, noChangePair(40), 'exchangeable-40');
    expect(result.alarms / result.pairs).toBeLessThanOrEqual(0.05);
    expect(result.significant / result.pairs).toBeLessThanOrEqual(0.05);
    expect(Math.abs(result.alarms - result.expectedAlarms)).toBeLessThanOrEqual(4 * Math.sqrt(result.alarmVariance));
    expect(Math.abs(result.significant - result.expectedSignificant)).toBeLessThanOrEqual(4 * Math.sqrt(result.significantVariance));
    // 1.11 % false alarms against an expected 1.293 % (1.6 standard errors); 2.48 % two-sided against 2.585 %.
    expect([result.alarms, result.significant, Number((result.expectedAlarms / result.pairs).toFixed(5)), Number((result.expectedSignificant / result.pairs).toFixed(5))]).toEqual([111, 248, 0.01293, 0.02585]);
  });

  it('the mid-p gate is less conservative, and its size can pass α at a given count (8 discordant pairs: 7.03 % two-sided)', () => {
    expect(exactSizes(8)).toEqual({ twoSided: 2 / 256, gate: 1 / 256 });
    expect(exactSizes(8, true)).toEqual({ twoSided: 18 / 256, gate: 9 / 256 });
    const random = createSeededRandom('mid-p', 'no-change');
    const make = fixedDiscordantPair(50, 8);
    let exactAlarms = 0;
    let midAlarms = 0;
    for (let s = 0; s < 10_000; s += 1) {
      const { base, cand } = make(random);
      const comparison = compareRuns(endToEndRun('base', base), endToEndRun('cand', cand), { bootstrapReplicates: 0 });
      if (!evaluateGate(comparison, { failOn: 'significant-regression' }).pass) exactAlarms += 1;
      if (!evaluateGate(comparison, { failOn: 'significant-regression', midP: true }).pass) midAlarms += 1;
    }
    for (const [alarms, size] of [[exactAlarms, 1 / 256], [midAlarms, 9 / 256]] as const) {
      expect(Math.abs(alarms / 10_000 - size)).toBeLessThanOrEqual(4 * Math.sqrt((size * (1 - size)) / 10_000));
    }
    expect([exactAlarms, midAlarms]).toEqual([37, 358]);
  });
});

describe('evaluateGate', () => {
  const base = run('base', [
    item('q1', { end_to_end: 'pass', L3_safety: 'pass' }),
    item('q2', { end_to_end: 'pass', L3_safety: 'pass' }),
    item('q3', { end_to_end: 'fail', L3_safety: 'pass' }),
    item('q4', { end_to_end: 'fail', L3_safety: 'pass' }, ['required']),
  ]);
  const cand = run('cand', [
    item('q1', { end_to_end: 'pass', L3_safety: 'pass' }),
    item('q2', { end_to_end: 'fail', L3_safety: 'fail' }),
    item('q3', { end_to_end: 'pass', L3_safety: 'pass' }),
    item('q4', { end_to_end: 'fail', L3_safety: 'pass' }, ['required']),
  ]);
  const comparison = compareRuns(base, cand, { bootstrapReplicates: 0 });

  it('no check configured but a required item: only the required check', () => {
    expect(evaluateGate(comparison)).toEqual({
      pass: false,
      checks: [{ kind: 'required', pass: false, message: 'required items: 1 of 1 do not pass in the candidate (q4 fail)' }],
      options: { failOn: null, gateMetrics: ['end_to_end'], alpha: 0.05, midP: false, min: {} },
    });
  });

  it('--fail-on regression names the regressed items; --min checks the candidate rate', () => {
    const gate = evaluateGate(comparison, { failOn: 'regression', gateMetrics: ['end_to_end', 'L3_safety'], min: { end_to_end: 0.5, L3_safety: 1 } });
    expect(gate.checks.map((check) => [check.pass, check.message])).toEqual([
      [false, 'end_to_end: 1 regression (q2)'],
      [false, 'L3_safety: 1 regression (q2)'],
      [true, 'end_to_end ≥ 50.0%: candidate 2/4 = 50.0%'],
      [false, 'L3_safety ≥ 100.0%: candidate 3/4 = 75.0%'],
      [false, 'required items: 1 of 1 do not pass in the candidate (q4 fail)'],
    ]);
    expect(gate.pass).toBe(false);
  });

  it('--fail-on significant-regression: one regression against one improvement is not significant', () => {
    const gate = evaluateGate(comparison, { failOn: 'significant-regression' });
    expect(gate.checks[0]).toEqual({ kind: 'significant-regression', metric: 'end_to_end', pass: true, message: 'end_to_end: no significant regression (1 regressions vs 1 improvements, p = 1, α = 0.05)' });
  });

  it('a significant regression fails, with the exact p-value in the message', () => {
    const many = compareRuns(endToEndRun('b', Array(12).fill('pass')), endToEndRun('c', [...Array(10).fill('fail'), 'pass', 'pass']), { bootstrapReplicates: 0 });
    expect(evaluateGate(many, { failOn: 'significant-regression' }).checks).toEqual([
      { kind: 'significant-regression', metric: 'end_to_end', pass: false, message: 'end_to_end: significant regression: 10 regressions vs 0 improvements, p = 0.001953 ≤ α = 0.05' },
    ]);
    expect(evaluateGate(many, { failOn: 'significant-regression', alpha: 0.001 }).pass).toBe(true);
    expect(evaluateGate(many, { failOn: 'significant-regression', midP: true, alpha: 0.001 }).checks[0]!.message).toBe('end_to_end: significant regression: 10 regressions vs 0 improvements, mid-p = 0.0009766 ≤ α = 0.001');
  });

  it('a metric no candidate item reached fails --min', () => {
    const none = compareRuns(run('b', [item('q1', { end_to_end: 'pass', L6_efficiency: 'pass' })]), run('c', [item('q1', { end_to_end: 'fail' })]), { bootstrapReplicates: 0 });
    expect(evaluateGate(none, { min: { L6_efficiency: 0.5 } }).checks).toEqual([{ kind: 'min', metric: 'L6_efficiency', pass: false, message: 'L6_efficiency ≥ 50.0%: candidate no candidate item reached it' }]);
  });

  it.each<[string, Parameters<typeof evaluateGate>[1], string]>([
    ['unknown --min metric', { min: { L9_magic: 1 } }, '--min: unknown metric "L9_magic"; the runs have: end_to_end, L3_safety'],
    ['unknown gate metric', { failOn: 'regression', gateMetrics: ['e2e'] }, '--gate-metric: unknown metric "e2e"; the runs have: end_to_end, L3_safety'],
    ['alpha out of range', { alpha: 1.5 }, '--alpha must be in (0, 1); received 1.5'],
    ['threshold out of range', { min: { end_to_end: 90 } }, '--min end_to_end: the threshold must be a rate from 0 to 1; received 90'],
    ['unknown fail-on', { failOn: 'regresion' as never }, '--fail-on must be one of regression, significant-regression; received "regresion"'],
  ])('misuse: %s', (_name, options, message) => {
    expect(() => evaluateGate(comparison, options)).toThrow(message);
  });
});

describe('formatP', () => {
  it.each([[1, '1'], [0.5, '0.5'], [0.0213623046875, '0.02136'], [0.00012346, '0.0001235'], [3.637978807091713e-12, '3.64e-12'], [0, '0']])('%s → %s', (p, text) => {
    expect(formatP(p)).toBe(text);
  });
});
