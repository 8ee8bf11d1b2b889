/**
 * The main job end to end: `npm run eval` (scripts/eval.sh) on promptfooconfig.yaml completes with
 * exit code 0, under 60 s, connecting to nothing but the dead loopback proxy; both candidates are
 * graded on every item with the rung metrics; the ladder summary is printed. Then the same
 * assertions through the built package (`package:text2sql-ladder/assertions:ladder`, dist/).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'pf-main-'));

interface Row {
  provider: { label?: string };
  failureReason: number;
  namedScores: Record<string, number>;
  vars: Record<string, unknown>;
  metadata: Record<string, unknown>;
  gradingResult: { reason: string } | null;
}

describe('npm run eval (the main job)', () => {
  it('runs offline, exits 0, grades both candidates on every item with rung metrics, under 60 s', async () => {
    const output = path.join(work, 'eval.json');
    const netLog = path.join(work, 'net.log');
    writeFileSync(netLog, '');
    const started = Date.now();
    const { stdout } = await run('bash', ['scripts/eval.sh'], {
      env: { ...process.env, OUTPUT: output, PROMPTFOO_CONFIG_DIR: path.join(work, '.promptfoo'), NET_LOG: netLog, NODE_OPTIONS: `--import ${path.resolve('tests-shared/net-log.mjs')}` },
      maxBuffer: 1 << 26,
    });
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`main job wall time: ${seconds.toFixed(1)} s\n`);

    const result = JSON.parse(readFileSync(output, 'utf8')) as { results: { results: Row[]; stats: { errors: number } } };
    const rows = result.results.results;
    const labels = [...new Set(rows.map((row) => row.provider.label))].sort();
    expect(labels).toEqual(['strong', 'weak']);
    expect(result.results.stats.errors).toBe(0);
    const items = new Set(rows.map((row) => row.vars['id']));
    expect(rows).toHaveLength(items.size * 2);
    expect(items.size).toBeGreaterThanOrEqual(60);
    for (const row of rows) {
      expect(row.metadata['ladder_verdict'], String(row.vars['id'])).toMatch(/^(pass|fail|unscored)$/);
      expect(row.gradingResult?.reason).not.toMatch(/internal error/);
    }
    const scored = rows.filter((row) => 'end_to_end' in row.namedScores);
    expect(scored.length).toBeGreaterThan(rows.length * 0.9);
    const strong = rows.filter((row) => row.provider.label === 'strong' && row.namedScores['end_to_end'] === 1).length;
    const weak = rows.filter((row) => row.provider.label === 'weak' && row.namedScores['end_to_end'] === 1).length;
    expect(strong).toBeGreaterThan(weak);
    expect(stdout).toMatch(/│ ladder summary +│ (strong|weak) +│ (strong|weak) +│/);

    const connections = readFileSync(netLog, 'utf8').trim().split('\n').filter(Boolean);
    expect([...new Set(connections)].filter((target) => target !== '127.0.0.1:9')).toEqual([]);
    // The acceptance bound; MAIN_JOB_MAX_SECONDS raises it on a machine shared by many jobs.
    expect(seconds).toBeLessThan(Number(process.env['MAIN_JOB_MAX_SECONDS'] ?? 60));
  });
});

describe('the package form', () => {
  it('loads the generator, provider, assertion and hooks from dist/ through package: and file://node_modules-style paths', async () => {
    // tsc emits even when some other module has a type error; that error is not this test's subject.
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { maxBuffer: 1 << 26 }).catch(() => undefined);
    expect(existsSync('dist/assertions/index.js')).toBe(true);
    const dir = path.resolve('out', 'package-form');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'run.jsonl'), '{"id":"wh-001","output":"SELECT COUNT(*) FROM products"}\n{"id":"wh-002","output":"SELECT name FROM product"}\n');
    writeFileSync(
      path.join(dir, 'promptfooconfig.yaml'),
      [
        'prompts: ["{{question}}"]',
        'providers:',
        '  - id: file://../../dist/providers/replay.js',
        '    label: packaged',
        '    config: { predictions: run.jsonl }',
        'tests:',
        '  - path: file://../../dist/datasets/promptfoo-tests.js:loadTests',
        '    config:',
        '      file: datasets/warehouse.yaml',
        '      ids: [wh-001, wh-002]',
        '      assert: [{ type: javascript, value: "package:text2sql-ladder/assertions:ladder" }]',
        'extensions:',
        '  - file://../../dist/assertions/summary-hooks.js:afterEach',
        '  - file://../../dist/assertions/summary-hooks.js:afterAll',
        '',
      ].join('\n'),
    );
    const output = path.join(work, 'package.json-out.json');
    await run('bash', ['scripts/eval.sh'], { env: { ...process.env, CONFIG: path.join(dir, 'promptfooconfig.yaml'), OUTPUT: output, PROMPTFOO_CONFIG_DIR: path.join(work, '.promptfoo-pkg') }, maxBuffer: 1 << 26 });
    const rows = (JSON.parse(readFileSync(output, 'utf8')) as { results: { results: Row[] } }).results.results;
    expect(rows.map((row) => [row.vars['id'], row.failureReason, row.namedScores['end_to_end']]).sort()).toEqual([
      ['wh-001', 0, 1],
      ['wh-002', 1, 0],
    ]);
    expect(rows.find((row) => row.vars['id'] === 'wh-002')?.metadata['L2_schema']).toMatch(/^fail: no such table: product/);
  });
});
