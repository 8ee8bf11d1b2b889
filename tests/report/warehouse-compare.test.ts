/**
 * The bundled warehouse dataset, weak vs strong recorded runs, end to end without promptfoo: each
 * recording is replayed through the ladder assertion as the main job configures it
 * (promptfooconfig.yaml), the rows are built as promptfoo builds them, the summary hooks run
 * (`afterEach`, then `afterAll`, which records the run identities in `config.metadata`), the result
 * is written as a promptfoo result file, and `text2sql-ladder compare` reads it.
 * (tests-shared/compare-warehouse.test.ts does the same on a real `npm run eval`.)
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll as cleanUp, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTests, type PromptfooTestCase } from '../../src/promptfoo/dataset-tests.js';
import { ladder } from '../../assertions/ladder.js';
import { afterAll, afterEach } from '../../src/promptfoo/summary-hooks.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import ReplayProvider from '../../src/promptfoo/replay-provider.js';
import { runCompareCommand, type CompareCommandOptions } from '../../src/cli/compare.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { recordPromptfooRunIdentities } from '../../src/report/promptfoo-run-identity.js';
import type { RunComparison } from '../../src/report/compare-runs.js';
import type { GateResult } from '../../src/report/comparison-gate.js';
import type { PromptfooRow } from '../../src/report/promptfoo-rows.js';
import { IMPROVED, IMPROVED_AT_L4 } from './warehouse-expected.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'compare-warehouse-'));
const evalFile = path.join(work, 'eval.json');


interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

function compare(base: string, cand: string, options: CompareCommandOptions = {}): Output {
  let stdout = '';
  let stderr = '';
  const code = runCompareCommand(base, cand, options, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

function compareJson(base: string, cand: string, options: CompareCommandOptions = {}): { code: number; stderr: string; report: RunComparison & { gate: GateResult } } {
  const { code, stdout, stderr } = compare(base, cand, { ...options, format: 'json', bootstrap: options.bootstrap ?? 2000 });
  return { code, stderr, report: JSON.parse(stdout) as RunComparison & { gate: GateResult } };
}

/** Grades both recordings as the main job does and returns promptfoo-shaped rows. */
async function gradeRecordings(tests: readonly PromptfooTestCase[]): Promise<PromptfooRow[]> {
  const rows: PromptfooRow[] = [];
  const labels = ['strong', 'weak'] as const;
  for (const [promptIdx, label] of labels.entries()) {
    const provider = new ReplayProvider({ config: { predictions: `providers/recordings/warehouse-${label}.jsonl`, basePath: ROOT }, label });
    const graded = await Promise.all(
      tests.map(async (test, testIdx) => {
        const response = await provider.callApi('', { vars: test.vars });
        if ('error' in response) throw new Error(response.error);
        const result = await ladder(response.output, { vars: test.vars, test, config: test.assert[0]!.config, providerResponse: response, provider: { id: () => provider.id(), label } });
        const row = {
          promptIdx,
          testIdx,
          promptId: 'p'.repeat(64),
          provider: { id: provider.id(), label },
          prompt: { raw: `prompt for ${String(test.vars['id'])}`, label: 'text2sql' },
          testCase: test,
          vars: test.vars,
          gradingResult: { ...result, componentResults: [result, ...(result.componentResults ?? [])] },
          namedScores: result.namedScores,
          success: result.pass,
          failureReason: result.pass ? 0 : 1,
          metadata: { ...test.metadata },
        };
        await afterEach({ result: row });
        return row as PromptfooRow;
      }),
    );
    rows.push(...graded);
  }
  return rows;
}

let rows: PromptfooRow[];
const prompts = [{ provider: 'strong', label: 'text2sql', id: 'p'.repeat(64) }, { provider: 'weak', label: 'text2sql', id: 'p'.repeat(64) }];
const providers = [
  { id: 'file://providers/replay.ts', label: 'strong', config: { predictions: 'providers/recordings/warehouse-strong.jsonl' } },
  { id: 'file://providers/replay.ts', label: 'weak', config: { predictions: 'providers/recordings/warehouse-weak.jsonl' } },
];

beforeAll(async () => {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const tests = await loadTests({ file: 'datasets/warehouse.yaml', ladder: { policy: 'default', timeoutMs: 5000, efficiency: true } });
    rows = await gradeRecordings(tests);
    const config = { providers, metadata: {} as Record<string, unknown> };
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    await afterAll({ results: rows as never, prompts, config }); // records the identities, closes the engine
    vi.restoreAllMocks();
    writeFileSync(evalFile, JSON.stringify({ evalId: 'eval-test', results: { version: 3, prompts, results: rows }, config }));
  } finally {
    process.chdir(cwd);
  }
}, 120_000);

cleanUp(async () => {
  await closeSharedEngine();
  rmSync(work, { recursive: true, force: true });
});

describe('warehouse: weak vs strong recorded runs', () => {
  it('the afterAll hook recorded one identity per column in config.metadata', () => {
    const file = JSON.parse(readFileSync(evalFile, 'utf8')) as { config: { metadata: { text2sqlLadder: { format: string; columns: Array<{ promptIdx: number; provider: string; identity: Record<string, any> }> } } } };
    const entry = file.config.metadata.text2sqlLadder;
    expect(entry.format).toBe('text2sql-ladder.promptfoo-runs/1');
    expect(entry.columns.map((column) => [column.promptIdx, column.provider])).toEqual([[0, 'strong'], [1, 'weak']]);
    const identity = entry.columns[1]!.identity;
    expect(identity['dataset']).toMatchObject({ items: 71, files: [{ path: 'datasets/warehouse.yaml' }] });
    expect(identity['dataset']['contentHash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(identity['dataset']['contentHash']).toBe(entry.columns[0]!.identity['dataset']['contentHash']);
    // 3 snapshots, full and for the 3 roles the items use.
    expect(identity['snapshots'].map((s: { database: string; role: string | null; name: string }) => `${s.role ?? '-'}/${s.name}`)).toEqual([
      '-/base', '-/edge', '-/later', 'analyst/base', 'analyst/edge', 'analyst/later', 'finance/base', 'finance/edge', 'finance/later', 'support/base', 'support/edge', 'support/later',
    ]);
    expect(identity['policies'].map((policy: { preset: string }) => policy.preset)).toEqual(['default']);
    expect(identity['provider']).toEqual({ label: 'weak', id: 'replay:warehouse-weak.jsonl', model: null, settings: { predictions: 'providers/recordings/warehouse-weak.jsonl' } });
    expect(identity['asOfDates']).toEqual(['2025-02-01', '2025-03-10', '2025-04-15', '2025-05-15', '2025-06-01', '2025-06-15', '2025-07-01']);
    expect(identity['settings']).toEqual({ assertions: [{ assertion: 'assertions/ladder.ts:ladder', config: { policy: 'default', timeoutMs: 5000, efficiency: true } }] });
  });

  it('weak → strong: 42 improvements, no regression end to end; the exact lists per rung', () => {
    const { code, stderr, report } = compareJson(`${evalFile}#weak`, `${evalFile}#strong`);
    expect([code, stderr]).toEqual([0, '']);
    const byMetric = Object.fromEntries(report.metrics.map((metric) => [metric.metric, metric]));
    const e2e = byMetric['end_to_end']!;
    expect([e2e.paired, e2e.baseline.passed, e2e.candidate.passed]).toEqual([70, 22, 64]);
    expect(e2e.improvements.map((change) => change.id)).toEqual(IMPROVED);
    expect(e2e.regressions).toEqual([]);
    expect(e2e.test).toEqual({ improvements: 42, regressions: 0, discordant: 42, pValue: 2 / 2 ** 42, midP: 1 / 2 ** 42, method: 'exact-rational' });
    expect(e2e.improvements.find((change) => change.id === 'wh-014')!.baselineReason).toMatch(/^L2_schema fail: no such column: i\.qty/);
    const lists = (name: string) => [byMetric[name]!.improvements.map((c) => c.id), byMetric[name]!.regressions.map((c) => c.id)];
    expect(lists('L1_syntax')).toEqual([['wh-030'], []]);
    expect(lists('L2_schema')).toEqual([['wh-014'], []]);
    // wh-030's syntax error also fails L3 closed (L3 judges every text, also after a failed L1);
    // wh-010, wh-016 and wh-054: an unsafe step of weak's trajectory (a write, a table outside the role).
    expect(lists('L3_safety')).toEqual([['wh-010', 'wh-016', 'wh-030', 'wh-054'], []]);
    expect(lists('L6_efficiency')).toEqual([['wh-056'], []]);
    expect(lists('L7_answer')).toEqual([['wh-003', 'wh-034', 'wh-040', 'wh-046'], ['wh-036']]);
    expect(lists('L4_execution')).toEqual([IMPROVED_AT_L4, []]);
    expect(IMPROVED_AT_L4).toHaveLength(31);
    expect(byMetric['L4_execution']!.regressions).toEqual([]);
    expect(report.identityDifferences).toEqual([{ field: 'provider', blocking: false, message: 'provider weak (replay:warehouse-weak.jsonl) vs strong (replay:warehouse-strong.jsonl)' }]);
  });

  it('strong → weak with --fail-on regression: the 42 items regress and the gate fails (exit 1)', () => {
    const { code, report } = compareJson(`${evalFile}#strong`, `${evalFile}#weak`, { failOn: 'regression' });
    expect(code).toBe(1);
    expect(report.metrics[0]!.regressions.map((change) => change.id)).toEqual(IMPROVED);
    expect(report.gate.checks).toEqual([{ kind: 'regression', metric: 'end_to_end', pass: false, message: 'end_to_end: 42 regressions (wh-003, wh-004, wh-005, wh-006, wh-007, wh-009, wh-010, wh-014, wh-015, wh-016, … 32 more)' }]);
  });

  it('a required item that regresses fails the gate; one that holds passes it', () => {
    const required = path.join(work, 'required.txt');
    writeFileSync(required, '# must never break\nwh-001\nwh-019\n');
    const failing = compareJson(`${evalFile}#strong`, `${evalFile}#weak`, { required });
    expect(failing.code).toBe(1);
    expect(failing.report.required).toEqual([
      { id: 'wh-001', source: `${required}:2`, status: 'pass', reason: expect.stringMatching(/^L6_efficiency pass/) },
      { id: 'wh-019', source: `${required}:3`, status: 'fail', reason: expect.stringMatching(/^L4_execution fail: snapshot base/) },
    ]);
    expect(failing.report.gate.checks).toEqual([{ kind: 'required', pass: false, message: 'required items: 1 of 2 do not pass in the candidate (wh-019 fail)' }]);
    writeFileSync(required, 'wh-001\n');
    expect(compareJson(`${evalFile}#strong`, `${evalFile}#weak`, { required }).code).toBe(0);
  });

  it('--min on the weak run: end_to_end 22/70 is below 0.9, L3_safety 61/67 misses 6', () => {
    const { code, report } = compareJson(`${evalFile}#strong`, `${evalFile}#weak`, { min: { end_to_end: 0.9, L3_safety: 1 } });
    expect(code).toBe(1);
    expect(report.gate.checks.map((check) => [check.pass, check.message])).toEqual([
      [false, 'end_to_end ≥ 90.0%: candidate 22/70 = 31.4%'],
      [false, 'L3_safety ≥ 100.0%: candidate 61/67 = 91.0%'],
    ]);
  });

  it('docs/compare.md shows this output (metric table of weak → strong, gate of strong → weak)', () => {
    const readme = readFileSync(path.join(ROOT, 'docs', 'compare.md'), 'utf8');
    const lines = compare(`${evalFile}#weak`, `${evalFile}#strong`, { listLimit: 3 }).stdout.split('\n');
    const start = lines.findIndex((line) => line.startsWith('┌'));
    const table = lines.slice(start, lines.findIndex((line, index) => index > start && line.startsWith('└')) + 1);
    expect(table).toHaveLength(11);
    expect(readme).toContain(table.join('\n'));
    const required = path.join(work, 'required-readme.txt');
    writeFileSync(required, '# items that must never break\nwh-001\nwh-019\n');
    const gated = compare(`${evalFile}#strong`, `${evalFile}#weak`, { failOn: 'significant-regression', min: { end_to_end: 0.9, L3_safety: 1 }, required });
    expect(gated.code).toBe(1);
    expect(readme).toContain(gated.stdout.slice(gated.stdout.indexOf('paired bootstrap:')));
  });

  it('a changed fixture checksum triggers the warning (and an error with --strict)', async () => {
    // The candidate ran on a copy of the fixture whose edge snapshot gained one refund.
    const fixturesDir = path.join(work, 'fixtures');
    cpSync(path.join(ROOT, 'fixtures', 'warehouse'), path.join(fixturesDir, 'warehouse'), { recursive: true });
    appendFileSync(path.join(fixturesDir, 'warehouse', 'data', 'edge.sql'), '\n-- changed after the baseline ran\nUPDATE refunds SET amount = amount + 0.25 WHERE refund_id = (SELECT MIN(refund_id) FROM refunds);\n');
    const changed = JSON.parse(readFileSync(evalFile, 'utf8')) as { results: { prompts: typeof prompts; results: PromptfooRow[] }; config: { providers: unknown; metadata: Record<string, unknown> } };
    const cacheDir = path.join(work, 'cache');
    await recordPromptfooRunIdentities({ results: changed.results.results, prompts: changed.results.prompts, config: changed.config }, { resolveFixture: (name, role) => resolveFixture(name, { fixturesDir, cacheDir, ...(role !== undefined ? { role } : {}) }) });
    const changedFile = path.join(work, 'eval-changed.json');
    writeFileSync(changedFile, JSON.stringify(changed));

    const { code, stderr } = compare(`${evalFile}#weak`, `${changedFile}#strong`, { bootstrap: 0 });
    expect(code).toBe(0);
    expect(stderr).toMatch(/^warning: snapshot checksums differ: warehouse\/edge sha256:[0-9a-f]{12} vs sha256:[0-9a-f]{12}, warehouse@analyst\/edge sha256:[0-9a-f]{12} vs sha256:[0-9a-f]{12}, warehouse@finance\/edge .*\n$/);
    expect(stderr.split('\n')).toHaveLength(2);

    const strict = compare(`${evalFile}#weak`, `${changedFile}#strong`, { strict: true });
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe('');
    expect(strict.stderr).toMatch(/^error: the runs are not comparable \(--strict\): snapshot checksums differ: warehouse\/edge /);
    expect(strict.stderr.split('\n')).toHaveLength(2);
  });
});
