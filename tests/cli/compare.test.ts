/**
 * `text2sql-ladder compare` on two `text2sql-ladder spider` runs over a small Spider-format folder
 * (two snapshots of `shop`), and on the command line itself: formats, files, exit codes, one-line
 * misuse errors.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCompareCommand, parseMinimums, type CompareCommandOptions } from '../../src/cli/compare.js';
import { runSpiderCommand } from '../../src/cli/spider.js';
import type { RunComparison } from '../../src/report/compare-runs.js';
import type { RunIdentity } from '../../src/report/run-identity.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = tempDir('ladder-compare-cli-');
const dbDir = path.join(dir, 'database');
let baseline: string;
let candidate: string;

const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };

function compare(base: string, cand: string, options: CompareCommandOptions = {}): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCompareCommand(base, cand, options, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

beforeAll(async () => {
  mkdirSync(path.join(dbDir, 'shop'), { recursive: true });
  const schema = 'CREATE TABLE items (id INTEGER, name TEXT, price REAL, kind TEXT);';
  makeDb(path.join(dbDir, 'shop', 'shop.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5,'office'),(2,'ink',3,'office'),(3,'cup',3,'kitchen');`);
  makeDb(path.join(dbDir, 'shop', 'shop_edge.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5,'office'),(2,'ink',3,'office'),(3,'cup',3,'kitchen'),(4,'mug',2,'garden');`);
  const gold = [
    'SELECT count(*) FROM items\tshop',
    "SELECT name FROM items WHERE kind = 'office' OR kind = 'kitchen'\tshop",
    'SELECT DISTINCT kind FROM items ORDER BY kind\tshop',
    'SELECT max(price) FROM items\tshop',
    'SELECT name FROM items ORDER BY id\tshop',
  ];
  writeFileSync(path.join(dir, 'gold.sql'), `${gold.join('\n')}\n`);
  // Baseline: 0 and 3 right; 1 works only on the base snapshot; 2 and 4 wrong.
  writeFileSync(path.join(dir, 'base.sql'), ['SELECT COUNT(id) FROM items', 'SELECT name FROM items', 'SELECT kind FROM items', 'SELECT max(price) FROM items', 'SELECT name FROM items ORDER BY id DESC'].join('\n') + '\n');
  // Candidate: fixes 1, 2 and 4, breaks 3.
  writeFileSync(path.join(dir, 'cand.sql'), ['SELECT COUNT(id) FROM items', "SELECT name FROM items WHERE kind IN ('office', 'kitchen')", 'SELECT DISTINCT kind FROM items ORDER BY kind', 'SELECT min(price) FROM items', 'SELECT name FROM items ORDER BY id'].join('\n') + '\n');
  baseline = path.join(dir, 'base.jsonl');
  candidate = path.join(dir, 'cand.jsonl');
  for (const [pred, out] of [['base.sql', baseline], ['cand.sql', candidate]] as const) {
    const code = await runSpiderCommand({ gold: path.join(dir, 'gold.sql'), pred: path.join(dir, pred), db: dbDir, preset: 'default', keepDistinct: false, out }, quiet);
    expect(code).toBe(0);
  }
});

describe('spider --out writes <out>.run.json', () => {
  it('with the gold hash, every snapshot hashed, the policy, the prediction file and the settings', () => {
    const identity = JSON.parse(readFileSync(`${baseline}.run.json`, 'utf8')) as RunIdentity;
    expect(identity).toMatchObject({
      format: 'text2sql-ladder.run-identity/1',
      source: 'spider',
      dataset: { items: 5, files: [{ path: path.join(dir, 'gold.sql') }] },
      prompt: null,
      provider: { label: 'base', id: null, model: null, settings: { predictions: path.join(dir, 'base.sql') } },
      asOfDates: [],
      settings: { preset: 'default', keepDistinct: false, timeoutMs: null, diagnostics: false },
    });
    expect(identity.snapshots.map((snapshot) => `${snapshot.database}/${snapshot.name}`)).toEqual(['shop/shop', 'shop/shop_edge']);
    expect(identity.snapshots.every((snapshot) => /^sha256:[0-9a-f]{64}$/.test(snapshot.hash ?? ''))).toBe(true);
    expect((identity.policies[0] as { preset: string }).preset).toBe('default');
    // The JSONL itself is unchanged: one verdict object per line.
    expect(readFileSync(baseline, 'utf8').trim().split('\n').map((line) => Object.keys(JSON.parse(line) as object))[0]).toEqual(['i', 'db_id', 'exec', 'error', 'flags', 'goldIndex', 'hardness']);
  });
});

describe('compare two spider runs', () => {
  it('pairs items by index and lists improvements and regressions with reasons (table)', () => {
    const { code, out, err } = compare(baseline, candidate, { bootstrap: 1000 });
    expect([code, err]).toEqual([0, '']);
    expect(out).toContain('│ end_to_end │ 5      │ 2/5 (40.0%) │ 4/5 (80.0%) │ +40.0 │');
    expect(out).toContain('end_to_end: 1 regression, 3 improvements\n');
    expect(out).toContain('  regressed 3  now: snapshot shop: gold [3] vs predicted [1.5]\n');
    expect(out).toMatch(/ {2}improved {2}1 {2}was: snapshot shop_edge: .*\n/);
    expect(out).toContain('identity   same dataset sha256:');
    expect(out).toContain('gate: none configured (--fail-on, --min, --required)\n');
  });

  it('JSON: the exact counts, McNemar p and the seeded interval', () => {
    const { code, out } = compare(baseline, candidate, { format: 'json', bootstrap: 1000, seed: 7 });
    expect(code).toBe(0);
    const report = JSON.parse(out) as RunComparison;
    const [metric] = report.metrics;
    expect(metric).toMatchObject({
      metric: 'end_to_end',
      paired: 5,
      difference: 0.4,
      test: { improvements: 3, regressions: 1, discordant: 4, pValue: 0.625, midP: 0.375 },
      interval: { level: 0.95, replicates: 1000, seed: 7, stream: 'metric:end_to_end' },
    });
    expect(metric!.improvements.map((change) => change.id)).toEqual(['1', '2', '4']);
    expect(report.tags.map((tag) => tag.tag)).toEqual(['db_id:shop', 'hardness:easy', 'hardness:medium']);
    // Identical for a fixed seed.
    expect(compare(baseline, candidate, { format: 'json', bootstrap: 1000, seed: 7 }).out).toBe(out);
  });

  it('--fail-on regression fails (exit 1), significant-regression does not (exit 0)', () => {
    expect(compare(baseline, candidate, { failOn: 'regression' }).code).toBe(1);
    expect(compare(baseline, candidate, { failOn: 'significant-regression' }).code).toBe(0);
    expect(compare(baseline, candidate, { min: { end_to_end: 0.8 } }).code).toBe(0);
    expect(compare(baseline, candidate, { min: { end_to_end: 0.81 } }).code).toBe(1);
  });

  it('--markdown and --json write the files as well as stdout', () => {
    const markdown = path.join(dir, 'comment.md');
    const json = path.join(dir, 'report.json');
    const { code, out } = compare(baseline, candidate, { failOn: 'regression', markdown, json, bootstrap: 500 });
    expect(code).toBe(1);
    expect(out).toContain('gate: FAIL\n  FAIL  end_to_end: 1 regression (3)\n');
    const md = readFileSync(markdown, 'utf8');
    expect(md.split('\n').slice(0, 6)).toEqual(['### text2sql-ladder compare: base → cand', '', '**Gate: ❌ failed**', '', '- ❌ end_to_end: 1 regression (3)', '']);
    expect(md).toContain('| `end_to_end` | 5 | 2/5 (40.0%) | 4/5 (80.0%) | +40.0 |');
    expect(md).toContain('| regressed | `3` | execution match | snapshot shop: gold [3] vs predicted [1.5] |');
    expect((JSON.parse(readFileSync(json, 'utf8')) as { gate: { pass: boolean } }).gate.pass).toBe(false);
  });

  it('a run without its run file: a warning, an error with --strict', () => {
    const bare = path.join(dir, 'bare.jsonl');
    writeFileSync(bare, readFileSync(candidate));
    const warned = compare(baseline, bare, { bootstrap: 0 });
    expect([warned.code, warned.err]).toEqual([0, 'warning: the candidate records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked\n']);
    const strict = compare(baseline, bare, { strict: true });
    expect([strict.code, strict.out, strict.err]).toEqual([2, '', 'error: the runs are not comparable (--strict): the candidate records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked\n']);
  });

  it('a different gold file: the dataset warning; items only in one run are listed', () => {
    writeFileSync(path.join(dir, 'gold6.sql'), `${readFileSync(path.join(dir, 'gold.sql'), 'utf8')}SELECT 1\tshop\n`);
    const out = path.join(dir, 'six.jsonl');
    return runSpiderCommand({ gold: path.join(dir, 'gold6.sql'), pred: path.join(dir, 'cand.sql'), db: dbDir, preset: 'default', keepDistinct: false, out }, quiet).then(() => {
      const { code, err } = compare(baseline, out, { bootstrap: 0 });
      expect(code).toBe(0);
      expect(err.split('\n')).toEqual([expect.stringMatching(/^warning: dataset content differs: sha256:[0-9a-f]{12} vs sha256:[0-9a-f]{12} \(5 vs 6 items\)$/), 'warning: 1 item only in the candidate, not compared: 5', '']);
    });
  });

  it('a different preset: the policy warning names the fields', () => {
    const out = path.join(dir, 'spider-preset.jsonl');
    return runSpiderCommand({ gold: path.join(dir, 'gold.sql'), pred: path.join(dir, 'cand.sql'), db: dbDir, preset: 'spider', keepDistinct: false, out }, quiet).then(() => {
      const { err } = compare(baseline, out, { bootstrap: 0 });
      expect(err).toMatch(/^warning: comparison policy differs: .*preset "default" vs "spider".*\n$/);
    });
  });
});

describe('misuse', () => {
  it.each<[string, () => ReturnType<typeof compare>, string]>([
    ['a missing file', () => compare(path.join(dir, 'nope.jsonl'), candidate), `error: cannot read run file ${path.join(dir, 'nope.jsonl')}: no such file\n`],
    ['an unknown --min metric', () => compare(baseline, candidate, { min: { L3_safety: 1 } }), 'error: --min: unknown metric "L3_safety"; the runs have: end_to_end\n'],
    ['an unreadable --required file', () => compare(baseline, candidate, { required: path.join(dir, 'none.txt') }), `error: --required: cannot read file of required ids ${path.join(dir, 'none.txt')}: no such file\n`],
    ['a required id in neither run', () => (writeFileSync(path.join(dir, 'req.txt'), '# ids\n3\n99\n'), compare(baseline, candidate, { required: path.join(dir, 'req.txt') })), `error: required item "99" (${path.join(dir, 'req.txt')}:3) is in neither run\n`],
  ])('%s: exit 2, one line, no report', (_name, run, err) => {
    expect(run()).toEqual({ code: 2, out: '', err });
  });

  it('parseMinimums reads rates and percentages and rejects the rest', () => {
    expect(parseMinimums('end_to_end=0.9, L3_safety=1,L4_execution=85%')).toEqual({ end_to_end: 0.9, L3_safety: 1, L4_execution: 0.85 });
    expect(() => parseMinimums('end_to_end')).toThrow('expected metric=rate (e.g. end_to_end=0.9 or end_to_end=90%); received "end_to_end"');
    expect(() => parseMinimums('end_to_end=1.5')).toThrow('the rate of end_to_end must be from 0 to 1 (or 0% to 100%); received "end_to_end=1.5"');
  });

  const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/text2sql-ladder.ts'), 'compare', ...args], { encoding: 'utf8', cwd: ROOT });

  it.each([
    [['--fail-on', 'regresion'], "error: option '--fail-on <kind>' argument 'regresion' is invalid. --fail-on must be one of regression, significant-regression (text2sql-ladder compare --help lists the options)\n"],
    [['--min', 'e2e'], `error: option '--min <list>' argument 'e2e' is invalid. expected metric=rate (e.g. end_to_end=0.9 or end_to_end=90%); received "e2e" (text2sql-ladder compare --help lists the options)\n`],
    [['--frobnicate'], "error: unknown option '--frobnicate' (text2sql-ladder compare --help lists the options)\n"],
  ])('the command line: %j is exit 2 with one line', (flags, stderr) => {
    const result = cli([baseline, candidate, ...flags]);
    expect([result.status, result.stdout, result.stderr]).toEqual([2, '', stderr]);
  });

  it('the command line: a missing argument is exit 2; a failed gate is exit 1; a passed one 0', () => {
    const missing = cli([baseline]);
    expect([missing.status, missing.stderr]).toEqual([2, "error: missing required argument 'cand' (text2sql-ladder compare --help lists the options)\n"]);
    expect(cli([baseline, candidate, '--fail-on', 'regression', '--bootstrap', '0']).status).toBe(1);
    const ok = cli([baseline, candidate, '--bootstrap', '0', '--format', 'markdown']);
    expect([ok.status, ok.stderr, ok.stdout.split('\n')[0]]).toEqual([0, '', '### text2sql-ladder compare: base → cand']);
  });
});
