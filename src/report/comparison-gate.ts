/**
 * The CI gate over a {@link RunComparison}: the checks a candidate must pass to ship.
 *
 * - `failOn: 'regression'`: no item may regress (pass in the baseline, fail in the candidate) on
 *   the gate metrics (default `end_to_end`).
 * - `failOn: 'significant-regression'`: fails when, on a gate metric, the candidate has more
 *   regressions than improvements and the two-sided exact McNemar p-value (the mid-p value with
 *   `midP`) is at most `alpha` (default 0.05). Under no change its false-alarm rate is half the
 *   test's size, at most α/2 (tests/report/comparison-gate.test.ts simulates it).
 * - `min`: the candidate's own pass rate of each named metric (over all its items that reached it,
 *   as the ladder summary counts) must be at least the threshold; a metric no candidate item
 *   reached fails.
 * - required items (compare-runs.ts) must pass `end_to_end` in the candidate.
 */
import { LadderError } from '../errors.js';
import type { RunComparison } from './compare-runs.js';
import { END_TO_END } from './run-record.js';

/** What fails the gate on paired changes. */
export type FailOn = 'regression' | 'significant-regression';

/** The values of {@link FailOn}. */
export const FAIL_ON_VALUES: readonly FailOn[] = ['regression', 'significant-regression'];

/** Options of {@link evaluateGate}. */
export interface GateOptions {
  /** Off when absent. */
  readonly failOn?: FailOn;
  /** Metrics `failOn` looks at. Default `['end_to_end']`. */
  readonly gateMetrics?: readonly string[];
  /** Significance level of `significant-regression`, in (0, 1). Default 0.05. */
  readonly alpha?: number;
  /** Use the mid-p value instead of the exact p-value. Default false. */
  readonly midP?: boolean;
  /** Metric → minimum candidate pass rate in [0, 1]. */
  readonly min?: Readonly<Record<string, number>>;
}

/** One check of the gate. */
export interface GateCheck {
  readonly kind: 'regression' | 'significant-regression' | 'min' | 'required';
  /** The metric checked (absent for `required`). */
  readonly metric?: string;
  readonly pass: boolean;
  /** One line for a person. */
  readonly message: string;
}

/** The gate's verdict. */
export interface GateResult {
  /** False when any check failed. */
  readonly pass: boolean;
  readonly checks: readonly GateCheck[];
  /** The options as applied (defaults filled in). */
  readonly options: { readonly failOn: FailOn | null; readonly gateMetrics: readonly string[]; readonly alpha: number; readonly midP: boolean; readonly min: Readonly<Record<string, number>> };
}

/**
 * Applies the gate (see the module doc). With no check configured and no required item the gate
 * passes with no checks.
 * @throws LadderError `invalid_option` for a metric the runs do not have, an alpha outside (0, 1),
 *   a threshold outside [0, 1], or an unknown `failOn`.
 */
export function evaluateGate(comparison: RunComparison, options: GateOptions = {}): GateResult {
  // Apply defaults.
  const gateMetrics = options.gateMetrics ?? [END_TO_END];
  const alpha = options.alpha ?? 0.05;
  const midP = options.midP ?? false;
  const min = options.min ?? {};
  const failOn = options.failOn ?? null;
  // Validate.
  const known = comparison.metrics.map((metric) => metric.metric);
  const checkMetric = (name: string, option: string): void => {
    if (!known.includes(name)) throw new LadderError('invalid_option', `${option}: unknown metric ${JSON.stringify(name)}; the runs have: ${known.join(', ')}`);
  };
  if (failOn !== null && !FAIL_ON_VALUES.includes(failOn)) throw new LadderError('invalid_option', `--fail-on must be one of ${FAIL_ON_VALUES.join(', ')}; received ${JSON.stringify(failOn)}`);
  if (failOn !== null) for (const name of gateMetrics) checkMetric(name, '--gate-metric');
  if (!(alpha > 0 && alpha < 1)) throw new LadderError('invalid_option', `--alpha must be in (0, 1); received ${String(alpha)}`);
  for (const [name, threshold] of Object.entries(min)) {
    checkMetric(name, '--min');
    if (!(threshold >= 0 && threshold <= 1)) throw new LadderError('invalid_option', `--min ${name}: the threshold must be a rate from 0 to 1; received ${String(threshold)}`);
  }

  const checks: GateCheck[] = [];
  const byName = new Map(comparison.metrics.map((metric) => [metric.metric, metric]));
  if (failOn !== null) {
    for (const name of gateMetrics) {
      const metric = byName.get(name)!;
      const regressed = metric.regressions.length;
      const improved = metric.improvements.length;
      if (failOn === 'regression') {
        const ids = metric.regressions.map((item) => item.id);
        checks.push({
          kind: 'regression',
          metric: name,
          pass: regressed === 0,
          message: regressed === 0 ? `${name}: no regression` : `${name}: ${regressed} regression${regressed === 1 ? '' : 's'} (${listSome(ids)})`,
        });
      } else {
        const p = midP ? metric.test.midP : metric.test.pValue;
        const worse = regressed > improved;
        const significant = p <= alpha;
        const label = midP ? 'mid-p' : 'p';
        const message = worse && significant
          ? `${name}: significant regression: ${regressed} regressions vs ${improved} improvements, ${label} = ${formatP(p)} ≤ α = ${alpha}`
          : `${name}: no significant regression (${regressed} regressions vs ${improved} improvements, ${label} = ${formatP(p)}, α = ${alpha})`;
        checks.push({ kind: 'significant-regression', metric: name, pass: !(worse && significant), message });
      }
    }
  }
  for (const [name, threshold] of Object.entries(min)) {
    const rate = byName.get(name)!.overall.candidate;
    const pass = rate.rate !== undefined && rate.rate >= threshold;
    const value = rate.rate === undefined ? 'no candidate item reached it' : `${rate.passed}/${rate.n} = ${percent(rate.rate)}`;
    checks.push({ kind: 'min', metric: name, pass, message: `${name} ≥ ${percent(threshold)}: candidate ${value}` });
  }
  if (comparison.required.length > 0) {
    const failing = comparison.required.filter((item) => item.status !== 'pass');
    const message = failing.length === 0
      ? `required items: all ${comparison.required.length} pass in the candidate`
      : `required items: ${failing.length} of ${comparison.required.length} do not pass in the candidate (${listSome(failing.map((item) => `${item.id} ${item.status}`))})`;
    checks.push({ kind: 'required', pass: failing.length === 0, message });
  }
  return { pass: checks.every((check) => check.pass), checks, options: { failOn, gateMetrics, alpha, midP, min } };
}

/** A p-value for people: 4 significant digits, scientific below 0.0001. */
export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p < 1e-4) return p.toExponential(2);
  return String(Number(p.toPrecision(4)));
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

function listSome(values: readonly string[], max = 10): string {
  return values.length <= max ? values.join(', ') : `${values.slice(0, max).join(', ')}, … ${values.length - max} more`;
}
