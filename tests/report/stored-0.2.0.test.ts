/**
 * Result files written by text2sql-ladder 0.2.0 keep working as `compare` baselines and in the
 * summary: tests/report/fixtures/eval-0.2.0.json is 28 rows of a real `npm run eval` of 0.2.0 (14
 * warehouse items: passes, failures at each gate and at L4, L6 and L7, declines, an unscored item;
 * both columns; the prompt text dropped), single-rung-0.2.0.json the execution, efficiency and
 * answerGrounding assertions of 0.2.0 on the weak column of the same items, and read-by-0.2.0.json
 * what 0.2.0's own readers made of both files (its summary and its `compare` run records).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import { summarizeRows } from '../../src/promptfoo/summary-hooks.js';
import { loadTests } from '../../src/promptfoo/dataset-tests.js';
import ReplayProvider from '../../src/promptfoo/replay-provider.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { findLadderRecords } from '../../src/report/ladder-record.js';
import type { PromptfooRow } from '../../src/report/promptfoo-rows.js';
import { metricsOf, parsePromptfooResult, promptfooRunRecord } from '../../src/report/read-promptfoo-run.js';
import { runCompareCommand } from '../../src/cli/compare.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const read = (name: string): { results: { prompts: never; results: PromptfooRow[] } } => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8'));
const readBy020 = JSON.parse(readFileSync(path.join(FIXTURES, 'read-by-0.2.0.json'), 'utf8')) as Record<string, { summaries: unknown; runs: Array<{ label: string; items: unknown }> }>;

afterAll(async () => {
  await closeSharedEngine();
});

describe.each(['eval-0.2.0.json', 'single-rung-0.2.0.json'])('%s, written by 0.2.0', (file) => {
  const data = read(file);

  it('every row holds records the one guard reads (the ladder record has no version)', () => {
    for (const row of data.results.results) {
      const found = findLadderRecords(row);
      expect(found.ladder !== undefined || found.rungs.length > 0).toBe(true);
      if (found.ladder !== undefined) expect(found.ladder.version).toBeUndefined();
    }
  });

  it('gives the summary 0.2.0 gave, with the items without gold, the errored rows and the roles named', () => {
    const summaries = JSON.parse(JSON.stringify(summarizeRows(data.results.results, data.results.prompts))) as Array<Record<string, unknown>>;
    // Both files hold wh-057 (no gold SQL, unscored) and no errored row.
    expect(summaries.map((summary) => [summary['provider'], summary['withoutGold'], summary['errored']])).toEqual(
      file === 'eval-0.2.0.json' ? [['strong', ['wh-057'], []], ['weak', ['wh-057'], []]] : [['weak', ['wh-057'], []]],
    );
    // The per-role table came later: every figure 0.2.0 gave is the same, and the roles are new.
    expect(summaries.map((summary) => (summary['roles'] as { role: string }[] | undefined)?.map((entry) => entry.role) ?? [])).toEqual(
      file === 'eval-0.2.0.json' ? [['analyst'], ['analyst']] : [['analyst']],
    );
    expect(summaries.map(({ withoutGold: _withoutGold, errored: _errored, roles: _roles, ...rest }) => rest)).toEqual(readBy020[file]!.summaries);
  });

  it("gives compare the run records 0.2.0's reader gave", () => {
    const parsed = parsePromptfooResult(data, file);
    const runs = parsed.columns.map((column) => promptfooRunRecord(parsed, column, `${file}#${column.provider}`));
    expect(runs.map((run) => ({ label: run.label, items: run.items }))).toEqual(readBy020[file]!.runs);
  });
});

describe('a 0.2.0 baseline against a run graded now', () => {
  it('the same items and outputs graded now give every metric the 0.2.0 file holds, with the same reason', async () => {
    const stored = read('eval-0.2.0.json').results.results;
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const tests = await loadTests({ file: 'datasets/warehouse.yaml', ladder: { policy: 'default', timeoutMs: 5000, efficiency: true } });
      const byId = new Map(tests.map((test) => [String(test.vars['id']), test]));
      const differences: string[] = [];
      for (const row of stored) {
        const label = row.provider!.label!;
        const test = byId.get(String(row.testCase!.metadata!['id']))!;
        // The outputs the 0.2.0 run graded, as its file holds them (the recordings have since gained
        // trajectories): the same outputs must get the same metrics.
        const provider = new ReplayProvider({ config: { predictions: `providers/recordings/warehouse-${label}.jsonl`, basePath: ROOT }, label });
        const response = (row as { response?: { output?: unknown; metadata?: Record<string, unknown> } }).response;
        if (response?.output === undefined) throw new Error(`row ${label} ${String(test.vars['id'])} of the 0.2.0 file has no output`);
        const result = await ladder(response.output, { vars: test.vars, test, config: test.assert[0]!.config, providerResponse: { output: response.output, ...(response.metadata !== undefined ? { metadata: response.metadata } : {}) }, provider: { id: () => provider.id(), label } });
        const now = metricsOf({ gradingResult: { ...result, componentResults: [result] } });
        const then = metricsOf(row);
        if (JSON.stringify(now) !== JSON.stringify(then)) differences.push(`${label} ${String(test.vars['id'])}: ${JSON.stringify(then)} → ${JSON.stringify(now)}`);
      }
      // One reason changed since 0.2.0, its verdicts the same: a table outside the item's role
      // fails L2 as not visible to the role (it exists in the fixture), no longer as missing.
      const then = '{"status":"fail","reason":"no such table: users at 1:37"}';
      const now = '{"status":"fail","reason":"table users is not visible to role analyst at 1:37"}';
      expect(differences.map((line) => line.split(' → ')).map(([before, after]) => [before!.includes(then), after!.includes(now), before!.replaceAll('no such table: users at 1:37', 'table users is not visible to role analyst at 1:37') === `weak wh-064: ${after}`])).toEqual([[true, true, true]]);
    } finally {
      process.chdir(cwd);
    }
  }, 120_000);

  it('compare reads the 0.2.0 file as the baseline of either column', () => {
    const file = path.join(FIXTURES, 'eval-0.2.0.json');
    let stdout = '';
    let stderr = '';
    const code = runCompareCommand(`${file}#strong`, `${file}#weak`, { format: 'json', bootstrap: 200 }, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
    expect([code, stderr]).toEqual([0, '']);
    const report = JSON.parse(stdout) as { items: { paired: number }; metrics: Array<{ metric: string; baseline: { passed: number; n: number }; candidate: { passed: number; n: number } }> };
    expect(report.items.paired).toBe(14);
    expect(report.metrics.find((metric) => metric.metric === 'end_to_end')).toMatchObject({ baseline: { passed: 12, n: 13 }, candidate: { passed: 3, n: 13 } });
  });
});
