import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare-runs.js';
import { RUN_IDENTITY_FORMAT, type RunIdentity } from '../../src/report/run-identity.js';
import { item, run } from './helpers.js';

const baseline = run('base', [
  item('a', { end_to_end: 'pass', L1_syntax: 'pass', L4_execution: 'pass' }, ['difficulty:easy']),
  item('b', { end_to_end: 'fail', L1_syntax: 'pass', L4_execution: 'fail' }, ['difficulty:easy', 'trap:fan_out']),
  item('c', { end_to_end: 'pass', L1_syntax: 'pass', L4_execution: 'pass' }, ['difficulty:hard', 'required']),
  item('d', { end_to_end: 'fail', L1_syntax: 'fail' }, ['difficulty:hard']),
  item('e', {}, ['difficulty:hard']), // unscored in both
  item('only-base', { end_to_end: 'pass' }),
]);
const candidate = run('cand', [
  item('a', { end_to_end: 'pass', L1_syntax: 'pass', L4_execution: 'pass' }, ['difficulty:easy']),
  item('b', { end_to_end: 'pass', L1_syntax: 'pass', L4_execution: 'pass' }, ['difficulty:easy', 'trap:fan_out']),
  item('c', { end_to_end: 'fail', L1_syntax: 'fail' }, ['difficulty:hard', 'required']),
  item('d', { end_to_end: 'pass', L1_syntax: 'pass', L4_execution: 'pass' }, ['difficulty:hard']),
  item('e', {}, ['difficulty:hard']),
  item('only-cand', { end_to_end: 'fail' }),
]);

describe('compareRuns', () => {
  const comparison = compareRuns(baseline, candidate, { bootstrapReplicates: 1000 });

  it('pairs items by id and lists the ones only one run has', () => {
    expect(comparison.items).toEqual({ paired: 5, baselineOnly: ['only-base'], candidateOnly: ['only-cand'] });
    expect(comparison.metrics.map((metric) => metric.metric)).toEqual(['end_to_end', 'L1_syntax', 'L4_execution']);
  });

  it('end_to_end: both rates over the paired items, the difference, the changed items with both reasons', () => {
    const metric = comparison.metrics[0]!;
    expect({ ...metric, interval: undefined }).toEqual({
      metric: 'end_to_end',
      paired: 4,
      baseline: { passed: 2, n: 4, rate: 0.5 },
      candidate: { passed: 3, n: 4, rate: 0.75 },
      difference: 0.25,
      test: { improvements: 2, regressions: 1, discordant: 3, pValue: 1, midP: (2 * (1 + 3) - 3) / 8, method: 'exact-rational' },
      interval: undefined,
      improvements: [
        { id: 'b', baselineReason: 'end_to_end fail (b)', candidateReason: 'end_to_end pass (b)' },
        { id: 'd', baselineReason: 'end_to_end fail (d)', candidateReason: 'end_to_end pass (d)' },
      ],
      regressions: [{ id: 'c', baselineReason: 'end_to_end pass (c)', candidateReason: 'end_to_end fail (c)' }],
      overall: { baseline: { passed: 3, n: 5, rate: 0.6 }, candidate: { passed: 3, n: 5, rate: 0.6 } },
      reachedInOneRun: { baseline: 0, candidate: 0 },
    });
    expect(metric.interval).toMatchObject({ level: 0.95, replicates: 1000, seed: 1, stream: 'metric:end_to_end' });
  });

  it('a rung: pairs only items that reached it in both runs, counts the others apart', () => {
    const l4 = comparison.metrics.find((metric) => metric.metric === 'L4_execution')!;
    expect([l4.paired, l4.improvements.map((i) => i.id), l4.regressions.map((i) => i.id), l4.reachedInOneRun]).toEqual([2, ['b'], [], { baseline: 1, candidate: 1 }]);
  });

  it('tag slices on end_to_end, sorted', () => {
    expect(comparison.tags.map((tag) => [tag.tag, tag.paired, tag.baseline.passed, tag.candidate.passed, tag.improved, tag.regressed])).toEqual([
      ['difficulty:easy', 2, 1, 2, ['b'], []],
      ['difficulty:hard', 2, 1, 1, ['d'], ['c']],
      ['required', 1, 1, 0, [], ['c']],
      ['trap:fan_out', 1, 0, 1, ['b'], []],
    ]);
  });

  it('required items: by tag and from a file; a regressed one fails, one missing from the candidate is missing', () => {
    const withFile = compareRuns(baseline, candidate, { bootstrapReplicates: 0, requiredIds: [{ id: 'a', source: 'req.txt:1' }, { id: 'c', source: 'req.txt:2' }, { id: 'only-base', source: 'req.txt:3' }] });
    expect(withFile.required).toEqual([
      { id: 'a', source: 'req.txt:1', status: 'pass', reason: 'end_to_end pass (a)' },
      { id: 'c', source: 'tag required, req.txt:2', status: 'fail', reason: 'end_to_end fail (c)' },
      { id: 'only-base', source: 'req.txt:3', status: 'missing', reason: 'not in the candidate run cand.json' },
    ]);
    const unscored = compareRuns(baseline, candidate, { bootstrapReplicates: 0, requiredTags: [], requiredIds: [{ id: 'e', source: 'req.txt:1' }] });
    expect(unscored.required).toEqual([{ id: 'e', source: 'req.txt:1', status: 'unscored', reason: 'the candidate has no end_to_end verdict for it (unscored)' }]);
  });

  it('misuse: a required id in neither run, runs without a shared id', () => {
    expect(() => compareRuns(baseline, candidate, { requiredIds: [{ id: 'zz', source: 'req.txt:4' }] })).toThrow('required item "zz" (req.txt:4) is in neither run');
    expect(() => compareRuns(run('x', [item('1', { end_to_end: 'pass' })]), run('y', [item('2', { end_to_end: 'pass' })]))).toThrow(
      'the runs share no item id (baseline x.json: 1 items, e.g. "1"; candidate y.json: 1 items, e.g. "2")',
    );
  });

  it('the same seed gives the same intervals; bootstrap 0 gives none', () => {
    const again = compareRuns(baseline, candidate, { bootstrapReplicates: 1000 });
    expect(again.metrics.map((metric) => metric.interval)).toEqual(comparison.metrics.map((metric) => metric.interval));
    expect(compareRuns(baseline, candidate, { bootstrapReplicates: 0 }).metrics.every((metric) => metric.interval === undefined)).toBe(true);
  });
});

/** An identity for the identity checks. */
function identity(overrides: Partial<RunIdentity> = {}): RunIdentity {
  return {
    format: RUN_IDENTITY_FORMAT,
    tool: { name: 'text2sql-ladder', version: '0.1.0' },
    source: 'promptfoo',
    recordedAt: '2025-01-01T00:00:00.000Z',
    dataset: { contentHash: `sha256:${'a'.repeat(64)}`, items: 6, files: [] },
    snapshots: [
      { database: 'warehouse', role: null, name: 'base', hash: `sha256:${'1'.repeat(64)}` },
      { database: 'warehouse', role: null, name: 'edge', hash: `sha256:${'2'.repeat(64)}` },
    ],
    policies: [{ preset: 'default', floatTolerance: { kind: 'relative', value: 1e-6 } }],
    prompt: { label: 'text2sql', id: null, renderedHash: null },
    provider: { label: 'weak', id: 'replay:weak.jsonl', model: null, settings: {} },
    asOfDates: [],
    settings: {},
    ...overrides,
  };
}

describe('compareRuns: identity differences', () => {
  const items = [item('a', { end_to_end: 'pass' })];
  const differences = (b: RunIdentity | undefined, c: RunIdentity | undefined) => compareRuns(run('b', items, b), run('c', items, c), { bootstrapReplicates: 0 }).identityDifferences;

  it('the same identity apart from the provider: one informational line', () => {
    expect(differences(identity(), identity({ provider: { label: 'strong', id: 'openai:chat:gpt-4.1-mini', model: 'gpt-4.1-mini', settings: { temperature: 0 } } }))).toEqual([
      { field: 'provider', blocking: false, message: 'provider weak (replay:weak.jsonl) vs strong (openai:chat:gpt-4.1-mini) model gpt-4.1-mini' },
    ]);
  });

  it('a changed snapshot checksum, a changed dataset and a changed policy are blocking', () => {
    const changed = identity({
      dataset: { contentHash: `sha256:${'b'.repeat(64)}`, items: 7, files: [] },
      snapshots: [
        { database: 'warehouse', role: null, name: 'base', hash: `sha256:${'1'.repeat(64)}` },
        { database: 'warehouse', role: null, name: 'edge', hash: `sha256:${'3'.repeat(64)}` },
        { database: 'warehouse', role: 'analyst', name: 'base', hash: null },
      ],
      policies: [{ preset: 'spider', floatTolerance: { kind: 'relative', value: 1e-6 } }],
      tool: { name: 'text2sql-ladder', version: '0.2.0' },
    });
    expect(differences(identity(), changed)).toEqual([
      { field: 'dataset', blocking: true, message: 'dataset content differs: sha256:aaaaaaaaaaaa vs sha256:bbbbbbbbbbbb (6 vs 7 items)' },
      { field: 'snapshots', blocking: true, message: 'snapshot checksums differ: warehouse/edge sha256:222222222222 vs sha256:333333333333' },
      { field: 'snapshots', blocking: true, message: 'snapshots differ: only in the candidate: warehouse@analyst/base' },
      { field: 'policy', blocking: true, message: 'comparison policy differs: preset "default" vs "spider"' },
      { field: 'tool', blocking: false, message: 'text2sql-ladder 0.1.0 vs 0.2.0' },
    ]);
  });

  it('a run without identity: blocking, and the dataset check falls back to the derived hash', () => {
    const derivedRun = (hash: string) => run('x', items, undefined, { datasetContentHash: hash, policies: [{ preset: 'default' }] });
    expect(compareRuns(derivedRun('sha256:1'), derivedRun('sha256:2'), { bootstrapReplicates: 0 }).identityDifferences).toEqual([
      { field: 'identity', blocking: true, message: 'the baseline records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked' },
      { field: 'identity', blocking: true, message: 'the candidate records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked' },
      { field: 'dataset', blocking: true, message: 'dataset content differs: sha256:1 vs sha256:2' },
    ]);
  });
});
