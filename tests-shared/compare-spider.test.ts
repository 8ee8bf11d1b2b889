/**
 * `text2sql-ladder compare` on the shared Spider slice: DIN-SQL (baseline) vs C3-SQL (candidate),
 * each graded by `text2sql-ladder spider --out` under the default and the spider preset, then
 * compared. Pins the discordant counts, the exact McNemar p-value, the mid-p value and the seeded
 * bootstrap interval; and checks that the official evaluator's per-item verdicts (same JSONL shape,
 * no run identity) give the spider preset's counts.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCompareCommand, type CompareCommandOptions } from '../src/cli/compare.js';
import { runSpiderCommand } from '../src/cli/spider.js';
import type { RunComparison } from '../src/report/compare-runs.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-compare-shared-'));
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
const runs: Record<string, string> = {};

beforeAll(async () => {
  for (const preset of ['default', 'spider'] as const) {
    for (const model of ['DINSQL', 'C3_SQL']) {
      const out = path.join(outDir, `${model}.${preset}.jsonl`);
      const code = await runSpiderCommand({ gold: path.join(slice, 'dev_gold.sql'), pred: path.join(slice, 'predictions', `${model}.sql`), db: path.join(slice, 'database'), preset, keepDistinct: false, out }, quiet);
      expect(code).toBe(0);
      runs[`${model}.${preset}`] = out;
    }
  }
});

function compare(base: string, cand: string, options: CompareCommandOptions = {}): { code: number; stderr: string; report: RunComparison } {
  let stdout = '';
  let stderr = '';
  const code = runCompareCommand(base, cand, { format: 'json', ...options }, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stderr, report: JSON.parse(stdout) as RunComparison };
}

describe('DIN-SQL vs C3-SQL on the shared Spider slice (507 items)', () => {
  it('default preset: 30 improvements, 37 regressions, p = 0.4638, CI [−4.5, +1.8] points', () => {
    const { code, stderr, report } = compare(runs['DINSQL.default']!, runs['C3_SQL.default']!);
    expect([code, stderr]).toEqual([0, '']);
    const metric = report.metrics[0]!;
    expect([metric.metric, metric.paired, metric.baseline.passed, metric.candidate.passed]).toEqual(['end_to_end', 507, 432, 425]);
    expect(metric.test).toEqual({ improvements: 30, regressions: 37, discordant: 67, pValue: 0.4638176178968696, midP: 0.39612484029702977, method: 'exact-rational' });
    expect(Math.abs(metric.test.pValue - 0.46381761789686937)).toBeLessThan(1e-12); // exact binomial reference
    expect(metric.interval).toEqual({ lower: -23 / 507, upper: 9 / 507, level: 0.95, replicates: 10_000, seed: 1, stream: 'metric:end_to_end' });
    expect(metric.improvements.map((change) => change.id)).toEqual(['23', '37', '38', '65', '95', '111', '113', '129', '130', '133', '152', '158', '180', '182', '228', '231', '232', '312', '336', '375', '376', '396', '403', '404', '419', '421', '432', '466', '470', '474']);
    expect(metric.regressions.map((change) => change.id)).toEqual(['6', '7', '57', '58', '76', '97', '98', '99', '100', '101', '104', '124', '128', '140', '142', '153', '157', '160', '166', '177', '213', '226', '241', '243', '258', '308', '309', '322', '345', '350', '362', '380', '427', '434', '490', '496', '498']);
    expect(report.identityDifferences.filter((difference) => difference.blocking)).toEqual([]);
    expect(report.baseline.identity?.snapshots).toHaveLength(10);
    // Not a significant regression at α = 0.05: the gate passes.
    expect(compare(runs['DINSQL.default']!, runs['C3_SQL.default']!, { failOn: 'significant-regression' }).code).toBe(0);
    expect(compare(runs['DINSQL.default']!, runs['C3_SQL.default']!, { failOn: 'regression' }).code).toBe(1);
  });

  it('spider preset: 30 improvements, 31 regressions, p = 1, CI [−3.2, +3.0] points', () => {
    const { report } = compare(runs['DINSQL.spider']!, runs['C3_SQL.spider']!);
    const metric = report.metrics[0]!;
    expect([metric.baseline.passed, metric.candidate.passed]).toEqual([431, 430]);
    expect(metric.test).toEqual({ improvements: 30, regressions: 31, discordant: 61, pValue: 1, midP: 0.899076313652859, method: 'exact-rational' });
    expect(metric.interval).toMatchObject({ lower: -16 / 507, upper: 15 / 507 });
  });

  it('the official per-item verdicts give the spider preset counts (with a warning: they carry no run identity)', () => {
    const official = (model: string) => path.join(slice, 'official-verdicts', `${model}.jsonl`);
    const { code, stderr, report } = compare(official('DINSQL'), official('C3_SQL'), { bootstrap: 0 });
    expect(code).toBe(0);
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(2);
    expect(report.metrics[0]!.test).toMatchObject({ improvements: 30, regressions: 31 });
  });

  it('runs under different presets warn that the policy differs', () => {
    const { stderr } = compare(runs['DINSQL.default']!, runs['C3_SQL.spider']!, { bootstrap: 0 });
    expect(stderr).toMatch(/^warning: comparison policy differs: .*preset "default" vs "spider"/);
  });
});
