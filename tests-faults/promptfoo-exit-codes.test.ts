/**
 * The exit-code rule of `promptfoo eval` with the package's test generator and hooks
 * (src/exit-codes.ts), through promptfoo's real command line on a small app: a misspelt ladder
 * option and a misspelt generator key stop the run before any row (2, one line, no stack); a
 * database that cannot be read makes ERROR rows (3, named, in no rate); a gold-less item fails its
 * row and is named, and the run exits 0; a model failure with promptfoo's threshold on exits 100,
 * and an incomplete run exits 3 over it. Uses dist/ (`npm run test:faults` builds it).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const PROMPTFOO = path.join(ROOT, 'node_modules/.bin/promptfoo');
let app: string;

beforeAll(() => {
  app = mkdtempSync(path.join(tmpdir(), 'ladder-exit-codes-'));
  mkdirSync(path.join(app, 'db'));
  const db = new Database(path.join(app, 'db', 'good.sqlite'));
  db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);');
  db.close();
  // Right header, unreadable pages: past the load check, refused by SQLite when a row opens it.
  writeFileSync(path.join(app, 'db', 'corrupt.sqlite'), Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(4080, 0xff)]));
  const items = (db: string) =>
    [
      `- id: q1\n  question: How many rows?\n  db_path: ${db}\n  gold_sql: SELECT COUNT(*) FROM t`,
      `- id: q2\n  question: Which rows?\n  db_path: ${db}\n  gold_sql: SELECT x FROM t ORDER BY x`,
      `- id: q3\n  question: How many rows, no gold yet?\n  db_path: ${db}`,
    ].join('\n') + '\n';
  writeFileSync(path.join(app, 'good.yaml'), items('db/good.sqlite'));
  writeFileSync(path.join(app, 'corrupt.yaml'), items('db/corrupt.sqlite'));
  // q2 is wrong: a model failure.
  writeFileSync(path.join(app, 'preds.jsonl'), ['{"id":"q1","output":"SELECT COUNT(*) FROM t"}', '{"id":"q2","output":"SELECT x FROM t WHERE x > 1"}', '{"id":"q3","output":"SELECT COUNT(*) FROM t"}'].join('\n') + '\n');
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

function config(name: string, generator: string): string {
  const file = path.join(app, `${name}.promptfooconfig.yaml`);
  writeFileSync(
    file,
    `prompts: ['{{question}}']
providers:
  - id: file://${ROOT}/dist/providers/replay.js
    config: { predictions: preds.jsonl }
extensions:
  - file://${ROOT}/dist/extensions/ladder-summary.js:afterEach
  - file://${ROOT}/dist/extensions/ladder-summary.js:afterAll
tests:
  - path: file://${ROOT}/dist/datasets/promptfoo-tests.js:loadTests
    config:
${generator}
`,
  );
  return file;
}

interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function promptfooEval(file: string, env: Record<string, string> = {}): Promise<Finished> {
  const state = path.join(app, `.promptfoo-${path.basename(file)}`);
  const base = {
    ...process.env,
    PROMPTFOO_CONFIG_DIR: state,
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    PROMPTFOO_DISABLE_RUNTIME_WARNINGS: '1',
    PROMPTFOO_DISABLE_DEBUG_LOG: '1',
    PROMPTFOO_DISABLE_ERROR_LOG: '1',
    PROMPTFOO_PASS_RATE_THRESHOLD: '0',
    NODE_NO_WARNINGS: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: 'localhost,127.0.0.1',
    TEXT2SQL_LADDER_CACHE_DIR: path.join(app, 'cache'),
    ...env,
  };
  const output = path.join(app, 'out', `${path.basename(file, '.promptfooconfig.yaml')}.json`);
  try {
    const { stdout, stderr } = await run(PROMPTFOO, ['eval', '-c', file, '--no-cache', '--no-progress-bar', '--no-table', '-o', output], { cwd: app, env: base, maxBuffer: 1 << 24 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('promptfoo eval: misuse stops the run before any row (exit 2, one line, no stack)', () => {
  it('a misspelt option under ladder:', async () => {
    const result = await promptfooEval(config('typo', '      file: good.yaml\n      ladder: { polcy: spider }'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('text2sql-ladder: error: config.ladder.polcy is not an option (did you mean config.ladder.policy?); known options: ');
    expect(result.stderr).toContain('  (tests: loadTests: nothing ran; fix the config or the dataset and run again)\n');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).not.toContain('ladder summary');
  });

  it('a misspelt test-generator key', async () => {
    const result = await promptfooEval(config('generator-typo', '      file: good.yaml\n      fixtureDir: fixtures'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('text2sql-ladder: error: tests: loadTests: config.fixtureDir is not an option (did you mean config.fixturesDir?); known options: file, ladder, assert, ids, strict, fixturesDir, cacheDir\n');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('promptfoo eval: what reaches the rows', () => {
  it('a database that cannot be read: ERROR rows in no rate, named, exit 3', async () => {
    const result = await promptfooEval(config('corrupt', '      file: corrupt.yaml'));
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/│ errored rows +│ 3 +│/);
    expect(result.stdout).toMatch(/│ scored +│ 0 +│/);
    expect(result.stdout).toContain('errored rows (not graded, in no rate; the run exits 3): replay:preds.jsonl: q1, q2, q3');
    expect(result.stderr).toContain(`text2sql-ladder: ERROR: incomplete run: 3 errored rows (not graded, in no rate): replay:preds.jsonl: q1: cannot open ${path.join(app, 'db', 'corrupt.sqlite')}: file is not a database (in assertions/ladder.ts:ladder); `);
  });

  it('a gold-less item fails its row and is named; a model failure is a result: exit 0 with the threshold off', async () => {
    const file = config('good', '      file: good.yaml');
    const result = await promptfooEval(file);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('without gold SQL (unscored, graded by nothing; their rows fail): replay:preds.jsonl: q3');
    expect(result.stdout).toMatch(/│ end-to-end correct +│ 1\/2 \(50\.0%\) +│/);
    expect(result.stdout).toMatch(/│ unscored +│ 1 +│/);
    const rows = (JSON.parse(readFileSync(path.join(app, 'out', 'good.json'), 'utf8')) as { results: { results: { testIdx: number; success: boolean; gradingResult: { reason: string } }[] } }).results.results.sort((a, b) => a.testIdx - b.testIdx);
    expect(rows.map((row) => row.success)).toEqual([true, false, false]);
    expect(rows[2]?.gradingResult.reason).toBe('L4_execution unscored: no gold SQL: nothing checks the result, so the item is unscored (never counted as 0); add gold_sql to grade it');
    // The summary JSON goes beside -o: out/good.json → out/good-summary.json.
    expect(JSON.parse(readFileSync(path.join(app, 'out', 'good-summary.json'), 'utf8'))).toMatchObject([{ withoutGold: ['q3'], unscored: 1, scored: 2 }]);
  });

  it('with promptfoo\'s pass-rate threshold on, a model failure exits 100; an incomplete run exits 3 over it', async () => {
    expect((await promptfooEval(config('good-gated', '      file: good.yaml'), { PROMPTFOO_PASS_RATE_THRESHOLD: '100' })).code).toBe(100);
    expect((await promptfooEval(config('corrupt-gated', '      file: corrupt.yaml'), { PROMPTFOO_PASS_RATE_THRESHOLD: '100' })).code).toBe(3);
  });
});
