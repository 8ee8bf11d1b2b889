/**
 * The main job for real (`npm run eval` through promptfoo 0.121), then `text2sql-ladder compare
 * out.json#weak out.json#strong` on its result file: the identities recorded by the summary hook
 * survive promptfoo's output sanitizer, and the improvement lists equal the in-process test's
 * (tests/report/warehouse-compare.test.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCompareCommand } from '../src/cli/compare.js';
import type { RunComparison } from '../src/report/compare-runs.js';
import { IMPROVED, IMPROVED_AT_L4 } from '../tests/report/warehouse-expected.js';

const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'compare-main-'));
const output = path.join(work, 'eval.json');

beforeAll(async () => {
  await run('bash', ['scripts/eval.sh'], { env: { ...process.env, OUTPUT: output, PROMPTFOO_CONFIG_DIR: path.join(work, '.promptfoo') }, maxBuffer: 1 << 26 });
});

describe('compare on a real promptfoo result of the main job', () => {
  it('config.metadata.text2sqlLadder holds both columns, digests intact', () => {
    const file = JSON.parse(readFileSync(output, 'utf8')) as { config: { metadata: { text2sqlLadder: { columns: Array<{ provider: string; identity: { dataset: { contentHash: string }; snapshots: Array<{ hash: string }> } }> } } } };
    const columns = file.config.metadata.text2sqlLadder.columns;
    expect(columns.map((column) => column.provider).sort()).toEqual(['strong', 'weak']);
    for (const column of columns) {
      expect(column.identity.dataset.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(column.identity.snapshots).toHaveLength(12);
      expect(column.identity.snapshots.every((snapshot) => /^sha256:[0-9a-f]{64}$/.test(snapshot.hash))).toBe(true);
    }
    expect(readFileSync(output, 'utf8')).not.toContain('[REDACTED]');
  });

  it('weak → strong: the exact improvement lists, no regression end to end, no identity warning', () => {
    let stdout = '';
    let stderr = '';
    const code = runCompareCommand(`${output}#weak`, `${output}#strong`, { format: 'json', failOn: 'regression' }, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
    expect([code, stderr]).toEqual([0, '']);
    const report = JSON.parse(stdout) as RunComparison;
    const byMetric = Object.fromEntries(report.metrics.map((metric) => [metric.metric, metric]));
    expect(byMetric['end_to_end']!.improvements.map((change) => change.id)).toEqual(IMPROVED);
    expect(byMetric['end_to_end']!.regressions).toEqual([]);
    expect(byMetric['L4_execution']!.improvements.map((change) => change.id)).toEqual(IMPROVED_AT_L4);
    expect(byMetric['L7_answer']!.regressions.map((change) => change.id)).toEqual(['wh-036']);
  });
});
