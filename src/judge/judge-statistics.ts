/**
 * How well a binary judge agrees with human labels: the confusion table, the true positive and true
 * negative rates, accuracy, Cohen's kappa, and the judge's bias (how often it says "positive"
 * against how often the labels do), each with a 95 % interval. Used to calibrate the equivalence
 * judge ("equivalent" is the positive label) and, with "faithful" as the positive label, the
 * faithfulness judge.
 *
 * Notation (n = tp + fn + fp + tn):
 *
 * |                  | judge: positive | judge: negative |
 * |------------------|-----------------|-----------------|
 * | label: positive  | tp              | fn              |
 * | label: negative  | fp              | tn              |
 *
 * Intervals:
 * - proportions (TPR = tp/(tp+fn), TNR = tn/(tn+fp), accuracy, the judge's positive rate): the
 *   Wilson score interval (E. B. Wilson, "Probable inference, the law of succession, and
 *   statistical inference", JASA 22, 1927), which keeps its coverage near 95 % for small n and
 *   rates near 0 or 1 where the Wald interval does not (Brown, Cai & DasGupta, "Interval
 *   estimation for a binomial proportion", Statistical Science 16, 2001);
 * - Cohen's kappa (J. Cohen, "A coefficient of agreement for nominal scales", 1960):
 *   κ = (p_o − p_e) / (1 − p_e), with the large-sample standard error of Fleiss, Cohen & Everitt
 *   ("Large sample standard errors of kappa and weighted kappa", Psychological Bulletin 72, 1969)
 *   and the interval κ ± z·SE, clipped to [−1, 1];
 * - the bias, judge's positive rate − label positive rate = (fp − fn)/n, a difference of two
 *   proportions measured on the same items: the Wald interval for paired proportions
 *   (var = ((fp + fn)/n − ((fp − fn)/n)²) / n; Agresti, *Categorical Data Analysis*, §10.1).
 * z = 1.959963984540054 (the 0.975 quantile of the standard normal).
 */

/** The 0.975 quantile of the standard normal: a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;

/** A closed interval `[low, high]`. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** A rate with its counts and 95 % interval (`null` rate and interval when the denominator is 0). */
export interface RateEstimate {
  readonly numerator: number;
  readonly denominator: number;
  readonly value: number | null;
  readonly interval: Interval | null;
}

/** The 2 × 2 table of a judge against labels (see the module doc). */
export interface ConfusionCounts {
  readonly tp: number;
  readonly fn: number;
  readonly fp: number;
  readonly tn: number;
}

/** Everything {@link judgeStatistics} measures. */
export interface JudgeStatistics {
  readonly counts: ConfusionCounts;
  /** tp + fn + fp + tn. */
  readonly n: number;
  /** Items labelled positive (tp + fn) and negative (fp + tn). */
  readonly positives: number;
  readonly negatives: number;
  /** Sensitivity, tp / (tp + fn), Wilson interval. */
  readonly tpr: RateEstimate;
  /** Specificity, tn / (tn + fp), Wilson interval. */
  readonly tnr: RateEstimate;
  /** (tp + tn) / n, Wilson interval. */
  readonly accuracy: RateEstimate;
  /** Cohen's kappa with the Fleiss–Cohen–Everitt interval (`null` when n = 0 or p_e = 1). */
  readonly kappa: { readonly value: number | null; readonly standardError: number | null; readonly interval: Interval | null };
  /** How often the judge says positive, against the labels' positive rate. */
  readonly bias: {
    /** (tp + fp) / n, Wilson interval. */
    readonly judgedPositiveRate: RateEstimate;
    /** (tp + fn) / n (the labels: no interval, they are the truth of this set). */
    readonly truePositiveRate: number | null;
    /** judgedPositiveRate − truePositiveRate = (fp − fn) / n, paired Wald interval; > 0 leans to "positive". */
    readonly difference: number | null;
    readonly interval: Interval | null;
  };
}

/**
 * The Wilson score interval of k successes in n trials at the given z.
 * @returns `null` when n = 0.
 * @throws RangeError when k or n is not a non-negative integer or k > n.
 * @example wilsonInterval(72, 80) // { low: 0.8145…, high: 0.9486… }
 */
export function wilsonInterval(k: number, n: number, z: number = Z_95): Interval | null {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) throw new RangeError(`wilsonInterval: need integers 0 ≤ k ≤ n, received k=${k}, n=${n}`);
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** A rate k / n with its Wilson interval. */
export function rateEstimate(k: number, n: number): RateEstimate {
  return { numerator: k, denominator: n, value: n === 0 ? null : k / n, interval: wilsonInterval(k, n) };
}

/**
 * Cohen's kappa of a 2 × 2 table with its large-sample standard error (Fleiss, Cohen & Everitt
 * 1969, the variance under the alternative, for the interval):
 *
 *   var(κ) = [ Σ_i p_ii (1 − (p_i· + p_·i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_·i + p_j·)² − (κ − p_e(1 − κ))² ] / (n (1 − p_e)²)
 *
 * where p_ij are the cell proportions (row i = label, column j = judge), p_i· and p_·j the margins.
 * @returns `null`s when n = 0 or p_e = 1 (both raters constant on one class: kappa is undefined).
 */
export function cohensKappa(counts: ConfusionCounts, z: number = Z_95): JudgeStatistics['kappa'] {
  const n = counts.tp + counts.fn + counts.fp + counts.tn;
  if (n === 0) return { value: null, standardError: null, interval: null };
  // Row i = label (0 positive, 1 negative), column j = judge.
  const p = [
    [counts.tp / n, counts.fn / n],
    [counts.fp / n, counts.tn / n],
  ] as const;
  const row = [p[0][0] + p[0][1], p[1][0] + p[1][1]];
  const col = [p[0][0] + p[1][0], p[0][1] + p[1][1]];
  const po = p[0][0] + p[1][1];
  const pe = row[0]! * col[0]! + row[1]! * col[1]!;
  if (pe >= 1) return { value: null, standardError: null, interval: null };
  const kappa = (po - pe) / (1 - pe);
  let sum = 0;
  for (let i = 0; i < 2; i += 1) {
    for (let j = 0; j < 2; j += 1) {
      const pij = p[i]![j]!;
      if (i === j) sum += pij * (1 - (row[i]! + col[i]!) * (1 - kappa)) ** 2;
      else sum += (1 - kappa) ** 2 * pij * (col[i]! + row[j]!) ** 2;
    }
  }
  const variance = Math.max(0, sum - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2);
  const standardError = Math.sqrt(variance);
  return { value: kappa, standardError, interval: { low: Math.max(-1, kappa - z * standardError), high: Math.min(1, kappa + z * standardError) } };
}

/**
 * Every figure of the module doc from a confusion table.
 * @throws RangeError when a count is not a non-negative integer.
 * @example judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 }).tpr.value // 0.9
 */
export function judgeStatistics(counts: ConfusionCounts): JudgeStatistics {
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`judgeStatistics: ${name} must be a non-negative integer, received ${String(value)}`);
  }
  const { tp, fn, fp, tn } = counts;
  const n = tp + fn + fp + tn;
  const positives = tp + fn;
  const negatives = fp + tn;
  const difference = n === 0 ? null : (fp - fn) / n;
  const variance = n === 0 ? 0 : ((fp + fn) / n - ((fp - fn) / n) ** 2) / n;
  const half = Z_95 * Math.sqrt(Math.max(0, variance));
  return {
    counts: { tp, fn, fp, tn },
    n,
    positives,
    negatives,
    tpr: rateEstimate(tp, positives),
    tnr: rateEstimate(tn, negatives),
    accuracy: rateEstimate(tp + tn, n),
    kappa: cohensKappa(counts),
    bias: {
      judgedPositiveRate: rateEstimate(tp + fp, n),
      truePositiveRate: n === 0 ? null : positives / n,
      difference,
      interval: difference === null ? null : { low: Math.max(-1, difference - half), high: Math.min(1, difference + half) },
    },
  };
}

/**
 * Counts a judge's answers against labels.
 * @param answers - per item: the label and the judge's answer (`null`: the judge gave none, a
 *   `judge_error`, counted as the wrong answer so that errors never flatter the judge).
 */
export function confusionOf(answers: Iterable<{ readonly label: boolean; readonly judged: boolean | null }>): ConfusionCounts {
  let tp = 0;
  let fn = 0;
  let fp = 0;
  let tn = 0;
  for (const { label, judged } of answers) {
    const said = judged ?? !label;
    if (label) {
      if (said) tp += 1;
      else fn += 1;
    } else if (said) fp += 1;
    else tn += 1;
  }
  return { tp, fn, fp, tn };
}
