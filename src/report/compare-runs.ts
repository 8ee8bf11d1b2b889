/**
 * Baseline vs candidate: pairs two runs by item id and, per metric (`end_to_end` and each rung)
 * and per tag slice, reports both pass rates over the paired items, the difference, the items that
 * improved and regressed with their reasons, the exact McNemar test on the discordant pairs (and its
 * mid-p value), and a seeded paired bootstrap interval of the difference (paired-statistics.ts).
 * Also: the items only one run has, where the runs' identities differ, and whether the items marked
 * required pass in the candidate. The CI gate on top of it is comparison-gate.ts.
 *
 * Why paired: an average hides which questions changed. Reference 004 ("Compare the candidate
 * against a baseline") has execution success unchanged at 84.62 % while one item improved and one
 * regressed, and result correctness falling from 69.72 % to 46.14 % with five regressions. The same
 * items are graded in both runs, so a paired test (McNemar) is the right test and is far more
 * sensitive than comparing two independent proportions.
 */
import { LadderError } from '../errors.js';
import { mcnemarExact, pairedBootstrap, DEFAULT_BOOTSTRAP_REPLICATES, DEFAULT_BOOTSTRAP_SEED, type BootstrapInterval, type McNemarResult } from './paired-statistics.js';
import { compareRunIdentities, type IdentityDifference, type RunIdentity } from './run-identity.js';
import { END_TO_END, sortMetricNames, type RunItem, type RunRecord } from './run-record.js';
import { compareProcess, type ProcessComparison } from './compare-process.js';

/** A count with its denominator; `rate` is `undefined` when `n` is 0. */
export interface PairedRate {
  readonly passed: number;
  readonly n: number;
  readonly rate: number | undefined;
}

/** An item that changed between the runs, with both runs' reasons. */
export interface ItemChange {
  readonly id: string;
  readonly baselineReason: string;
  readonly candidateReason: string;
}

/** The paired statistics of one metric over a set of items. */
export interface PairedComparison {
  /** Items graded on this metric in both runs. */
  readonly paired: number;
  /** Pass rate of the baseline over the paired items. */
  readonly baseline: PairedRate;
  /** Pass rate of the candidate over the paired items. */
  readonly candidate: PairedRate;
  /** candidate − baseline = (improvements − regressions) / paired; `undefined` when nothing is paired. */
  readonly difference: number | undefined;
  /** Exact McNemar test on the discordant pairs (p-value and mid-p). */
  readonly test: McNemarResult;
  /** Paired bootstrap interval of the difference; `undefined` when nothing is paired or the bootstrap is off. */
  readonly interval: BootstrapInterval | undefined;
}

/** One metric compared. */
export interface MetricComparison extends PairedComparison {
  readonly metric: string;
  /** Fail in the baseline, pass in the candidate (baseline order). */
  readonly improvements: readonly ItemChange[];
  /** Pass in the baseline, fail in the candidate (baseline order). */
  readonly regressions: readonly ItemChange[];
  /** Each run's own pass rate over all its items that reached the metric (paired or not), as the ladder summary counts it. */
  readonly overall: { readonly baseline: PairedRate; readonly candidate: PairedRate };
  /** Items present in both runs that reached the metric in one run only (e.g. L4 skipped after an L2 failure). */
  readonly reachedInOneRun: { readonly baseline: number; readonly candidate: number };
}

/** One tag slice on the slice metric. */
export interface SliceComparison extends PairedComparison {
  readonly tag: string;
  readonly improved: readonly string[];
  readonly regressed: readonly string[];
}

/** Where a required item comes from. */
export interface RequiredItemSource {
  readonly id: string;
  /** e.g. `required.txt:3`. */
  readonly source: string;
}

/** A required item's outcome in the candidate (on `end_to_end`). */
export interface RequiredItemCheck {
  readonly id: string;
  /** `required.txt:3`, `tag required`, or both. */
  readonly source: string;
  /** `pass`; `fail`; `unscored` (the candidate has no end_to_end verdict for it); `missing` (not in the candidate). */
  readonly status: 'pass' | 'fail' | 'unscored' | 'missing';
  readonly reason: string;
}

/** What {@link compareRuns} returns (also the `--format json` output). */
export interface RunComparison {
  readonly baseline: RunSummary;
  readonly candidate: RunSummary;
  readonly items: { readonly paired: number; readonly baselineOnly: readonly string[]; readonly candidateOnly: readonly string[] };
  /** Identity differences, blocking ones first. */
  readonly identityDifferences: readonly IdentityDifference[];
  /** Metrics in display order (`end_to_end` first, then the rungs). */
  readonly metrics: readonly MetricComparison[];
  /** The metric the tag slices are computed on. */
  readonly sliceMetric: string;
  /** Tag slices, sorted by tag. */
  readonly tags: readonly SliceComparison[];
  readonly required: readonly RequiredItemCheck[];
  /** How the trajectories changed (compare-process.ts), when both runs measured them. */
  readonly process?: ProcessComparison;
  readonly settings: { readonly bootstrapReplicates: number; readonly seed: number | string; readonly level: number };
}

/** A run as the comparison reports it. */
export interface RunSummary {
  readonly spec: string;
  readonly label: string;
  readonly format: RunRecord['format'];
  readonly items: number;
  readonly identity: RunIdentity | null;
}

/** Options of {@link compareRuns}. */
export interface CompareRunsOptions {
  /** Bootstrap replicates per metric and slice; 0 turns the bootstrap off. Default {@link DEFAULT_BOOTSTRAP_REPLICATES}. */
  readonly bootstrapReplicates?: number;
  /** Bootstrap seed. Default {@link DEFAULT_BOOTSTRAP_SEED}. */
  readonly seed?: number | string;
  /** Confidence level of the intervals. Default 0.95. */
  readonly level?: number;
  /** Items that must pass in the candidate, e.g. read from a file of ids. */
  readonly requiredIds?: readonly RequiredItemSource[];
  /** Tags that mark an item required (an item is required when it carries the tag, or `<tag>:true`). Default `['required']`. */
  readonly requiredTags?: readonly string[];
  /** Metric of the tag slices. Default `end_to_end`. */
  readonly sliceMetric?: string;
}

/**
 * Compares a candidate run with a baseline run (see the module doc).
 * @throws LadderError `invalid_option` when the runs share no item id, a required id is in neither
 *   run, or the slice metric is unknown; RangeError from the bootstrap on bad numeric options.
 */
export function compareRuns(baseline: RunRecord, candidate: RunRecord, options: CompareRunsOptions = {}): RunComparison {
  // Apply defaults.
  const replicates = options.bootstrapReplicates ?? DEFAULT_BOOTSTRAP_REPLICATES;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  const level = options.level ?? 0.95;
  const requiredTags = options.requiredTags ?? ['required'];
  const sliceMetric = options.sliceMetric ?? END_TO_END;
  // Validate.
  if (!Number.isSafeInteger(replicates) || replicates < 0 || replicates > 10_000_000) throw new RangeError(`bootstrapReplicates must be an integer from 0 to 10000000; received ${String(replicates)}`);

  const candidateById = new Map(candidate.items.map((item) => [item.id, item]));
  const baselineIds = new Set(baseline.items.map((item) => item.id));
  const pairs = baseline.items.flatMap((item) => {
    const other = candidateById.get(item.id);
    return other === undefined ? [] : [{ base: item, cand: other }];
  });
  if (pairs.length === 0) {
    throw new LadderError('invalid_option', `the runs share no item id (baseline ${baseline.spec}: ${describeIds(baseline.items)}; candidate ${candidate.spec}: ${describeIds(candidate.items)})`);
  }
  const metricNames = sortMetricNames([...baseline.items, ...candidate.items].flatMap((item) => Object.keys(item.metrics)));
  if (!metricNames.includes(sliceMetric)) throw new LadderError('invalid_option', `slice metric ${sliceMetric} is in neither run; metrics: ${metricNames.join(', ')}`);
  const bootstrap = (n: number, b: number, c: number, stream: string): BootstrapInterval | undefined =>
    replicates === 0 ? undefined : pairedBootstrap({ n, improvements: b, regressions: c, replicates, seed, stream, level });

  const metrics = metricNames.map((metric): MetricComparison => {
    const improvements: ItemChange[] = [];
    const regressions: ItemChange[] = [];
    let paired = 0;
    let basePassed = 0;
    let candPassed = 0;
    let onlyBase = 0;
    let onlyCand = 0;
    for (const { base, cand } of pairs) {
      const a = base.metrics[metric];
      const b = cand.metrics[metric];
      if (a === undefined || b === undefined) {
        if (a !== undefined) onlyBase += 1;
        if (b !== undefined) onlyCand += 1;
        continue;
      }
      paired += 1;
      if (a.status === 'pass') basePassed += 1;
      if (b.status === 'pass') candPassed += 1;
      if (a.status === 'fail' && b.status === 'pass') improvements.push({ id: base.id, baselineReason: a.reason, candidateReason: b.reason });
      if (a.status === 'pass' && b.status === 'fail') regressions.push({ id: base.id, baselineReason: a.reason, candidateReason: b.reason });
    }
    return {
      metric,
      ...pairedStatistics(paired, basePassed, candPassed, improvements.length, regressions.length, bootstrap, `metric:${metric}`),
      improvements,
      regressions,
      overall: { baseline: overallRate(baseline.items, metric), candidate: overallRate(candidate.items, metric) },
      reachedInOneRun: { baseline: onlyBase, candidate: onlyCand },
    };
  });

  const tags = sliceTags(pairs, sliceMetric, bootstrap);
  const required = checkRequired(baseline, candidate, candidateById, options.requiredIds ?? [], requiredTags);
  const identityDifferences = compareRunIdentities(baseline, candidate).sort((x, y) => Number(y.blocking) - Number(x.blocking));
  const process = compareProcess(pairs, (item) => item.metrics[END_TO_END]?.status);

  return {
    baseline: summaryOf(baseline),
    candidate: summaryOf(candidate),
    items: {
      paired: pairs.length,
      baselineOnly: baseline.items.filter((item) => !candidateById.has(item.id)).map((item) => item.id),
      candidateOnly: candidate.items.filter((item) => !baselineIds.has(item.id)).map((item) => item.id),
    },
    identityDifferences,
    metrics,
    sliceMetric,
    tags,
    required,
    ...(process !== undefined ? { process } : {}),
    settings: { bootstrapReplicates: replicates, seed, level },
  };
}

type Bootstrap = (n: number, b: number, c: number, stream: string) => BootstrapInterval | undefined;

function pairedStatistics(paired: number, basePassed: number, candPassed: number, b: number, c: number, bootstrap: Bootstrap, stream: string): PairedComparison {
  return {
    paired,
    baseline: rateOf(basePassed, paired),
    candidate: rateOf(candPassed, paired),
    difference: paired === 0 ? undefined : (b - c) / paired,
    test: mcnemarExact(b, c),
    interval: paired === 0 ? undefined : bootstrap(paired, b, c, stream),
  };
}

function rateOf(passed: number, n: number): PairedRate {
  return { passed, n, rate: n === 0 ? undefined : passed / n };
}

function overallRate(items: readonly RunItem[], metric: string): PairedRate {
  let passed = 0;
  let n = 0;
  for (const item of items) {
    const outcome = item.metrics[metric];
    if (outcome === undefined) continue;
    n += 1;
    if (outcome.status === 'pass') passed += 1;
  }
  return rateOf(passed, n);
}

function sliceTags(pairs: ReadonlyArray<{ base: RunItem; cand: RunItem }>, metric: string, bootstrap: Bootstrap): SliceComparison[] {
  const byTag = new Map<string, Array<{ base: RunItem; cand: RunItem }>>();
  for (const pair of pairs) {
    for (const tag of new Set([...pair.base.tags, ...pair.cand.tags])) {
      const list = byTag.get(tag) ?? [];
      list.push(pair);
      byTag.set(tag, list);
    }
  }
  return [...byTag.keys()].sort().map((tag) => {
    let paired = 0;
    let basePassed = 0;
    let candPassed = 0;
    const improved: string[] = [];
    const regressed: string[] = [];
    for (const { base, cand } of byTag.get(tag)!) {
      const a = base.metrics[metric];
      const b = cand.metrics[metric];
      if (a === undefined || b === undefined) continue;
      paired += 1;
      if (a.status === 'pass') basePassed += 1;
      if (b.status === 'pass') candPassed += 1;
      if (a.status === 'fail' && b.status === 'pass') improved.push(base.id);
      if (a.status === 'pass' && b.status === 'fail') regressed.push(base.id);
    }
    return { tag, ...pairedStatistics(paired, basePassed, candPassed, improved.length, regressed.length, bootstrap, `tag:${tag}`), improved, regressed };
  });
}

/** True when `tags` marks the item with `tag` (bare, or `tag:true`). */
function hasTag(tags: readonly string[], tag: string): boolean {
  return tags.includes(tag) || tags.includes(`${tag}:true`);
}

function checkRequired(baseline: RunRecord, candidate: RunRecord, candidateById: ReadonlyMap<string, RunItem>, fromFile: readonly RequiredItemSource[], requiredTags: readonly string[]): RequiredItemCheck[] {
  const sources = new Map<string, string[]>();
  const add = (id: string, source: string): void => {
    const list = sources.get(id) ?? [];
    if (!list.includes(source)) list.push(source);
    sources.set(id, list);
  };
  for (const item of [...baseline.items, ...candidate.items]) {
    for (const tag of requiredTags) if (hasTag(item.tags, tag)) add(item.id, `tag ${tag}`);
  }
  const baselineIds = new Set(baseline.items.map((item) => item.id));
  for (const { id, source } of fromFile) {
    if (!baselineIds.has(id) && !candidateById.has(id)) throw new LadderError('invalid_option', `required item "${id}" (${source}) is in neither run`);
    add(id, source);
  }
  const order = new Map<string, number>();
  for (const item of [...baseline.items, ...candidate.items]) if (!order.has(item.id)) order.set(item.id, order.size);
  return [...sources.keys()]
    .sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0))
    .map((id) => {
      const source = sources.get(id)!.join(', ');
      const item = candidateById.get(id);
      if (item === undefined) return { id, source, status: 'missing', reason: `not in the candidate run ${candidate.spec}` };
      const outcome = item.metrics[END_TO_END];
      if (outcome === undefined) return { id, source, status: 'unscored', reason: 'the candidate has no end_to_end verdict for it (unscored)' };
      return { id, source, status: outcome.status, reason: outcome.reason };
    });
}

function summaryOf(run: RunRecord): RunSummary {
  return { spec: run.spec, label: run.label, format: run.format, items: run.items.length, identity: run.identity ?? null };
}

function describeIds(items: readonly RunItem[]): string {
  if (items.length === 0) return 'no items';
  const shown = items.slice(0, 3).map((item) => JSON.stringify(item.id)).join(', ');
  return `${items.length} items, e.g. ${shown}`;
}
