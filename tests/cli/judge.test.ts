import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCalibrationRecord } from '../../src/judge/calibration-record.js';
import { runCliCaptured } from '../helpers/run-cli.js';

const PROVIDER = 'file://tests/judge/fixtures/recorded-judge.mjs';
let dir: string;
let labels: string;

/** The four pairs the recorded judge has replies for (two EX failures, two rewrites). */
const PAIRS = [
  { id: 'p1', db: 'warehouse', question: 'How many products?', gold: 'SELECT COUNT(*) FROM products', candidate: "SELECT COUNT(*) FROM products WHERE category = 'Hardware'", label: 'not_equivalent', category: 'filter', labelSource: 'one_edit', why: 'adds a filter' },
  { id: 'p2', db: 'warehouse', question: 'How many products?', gold: 'SELECT COUNT(*) FROM products', candidate: 'SELECT COUNT(product_id) FROM products', label: 'equivalent', category: 'count_star_pk', labelSource: 'construction', why: 'primary key' },
  { id: 'p3', db: 'warehouse', question: 'Negative refunds without a reason?', gold: 'SELECT COUNT(*) FROM refunds WHERE reason IS NULL AND amount < 0', candidate: 'SELECT COUNT(*) FROM refunds WHERE amount > 100000', label: 'not_equivalent', category: 'filter', labelSource: 'one_edit', why: 'another filter' },
  { id: 'p4', db: 'warehouse', question: 'How many products?', gold: 'SELECT COUNT(*) FROM products', candidate: 'SELECT COUNT(*) FROM products WHERE list_price >= 0', label: 'equivalent', category: 'check', labelSource: 'human', why: 'prices are never negative' },
];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'judge-cli-'));
  labels = path.join(dir, 'pairs.jsonl');
  writeFileSync(labels, PAIRS.map((pair) => JSON.stringify(pair)).join('\n'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('text2sql-ladder judge calibrate', () => {
  it('replays the recorded replies, writes the record and exits 1 when the thresholds are not met', async () => {
    const out = path.join(dir, 'record.json');
    const run = await runCliCaptured(['judge', 'calibrate', '--labels', labels, '--provider', PROVIDER, '--out', out, '--no-cache', '--concurrency', '1'], dir);
    expect(run.code).toBe(1);
    expect(run.err).toBe('calibration record written to <dir>/record.json\n');
    expect(run.out).toContain('calibration: FAIL (thresholds: TPR ≥ 0.9, TNR ≥ 0.9, n ≥ 100, not equivalent ≥ 30) — 4 labelled pairs, fewer than 100; 2 negative pairs, fewer than 30; TPR 0.500 < 0.9');
    expect(run.out).toContain('judge calls: 5, cache hits: 0, tokens: 4188; unreadable answers: 1');
    const record = readCalibrationRecord(out);
    expect(record.statistics.counts).toEqual({ tp: 1, fn: 1, fp: 0, tn: 2 });
    expect(record.wrong).toEqual(['p4']);
    expect(record.judge).toMatchObject({ task: 'equivalence', provider: PROVIDER, model: PROVIDER, promptVersion: 'equivalence-v1' });
  });

  it('passes with thresholds the set can meet, and prints JSON with --format json', async () => {
    const out = path.join(dir, 'loose.json');
    const run = await runCliCaptured(['judge', 'calibrate', '--labels', labels, '--provider', PROVIDER, '--out', out, '--no-cache', '--min-pairs', '4', '--min-negatives', '2', '--min-tpr', '0.5', '--format', 'json'], dir);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.out.split('<dir>').join(dir)) as { passed: boolean };
    expect(printed.passed).toBe(true);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(printed);
  });

  it('a judge that answers nothing readable (a provider that cannot be reached) exits 3 and writes no record', async () => {
    const unknown = path.join(dir, 'unknown.jsonl');
    writeFileSync(unknown, JSON.stringify({ ...PAIRS[0], candidate: 'SELECT 42' }));
    const out = path.join(dir, 'none.json');
    const run = await runCliCaptured(['judge', 'calibrate', '--labels', unknown, '--provider', PROVIDER, '--out', out, '--no-cache'], dir);
    expect(run.code).toBe(3);
    expect(run.err).toBe('error: the judge gave no readable answer on any of the 1 pairs (first: provider error: no recorded reply for SELECT 42); no record written\n');
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    [['--provider', PROVIDER], "error: required option '--labels <file>' not specified (text2sql-ladder judge calibrate --help lists the options)\n"],
    [['--labels', 'none.jsonl', '--provider', PROVIDER], /^error: none\.jsonl: cannot read the labelled pairs: /],
    [['--labels', 'LABELS', '--provider', PROVIDER, '--min-tpr', '1.5'], "error: option '--min-tpr <rate>' argument '1.5' is invalid. expected a number in [0, 1] (text2sql-ladder judge calibrate --help lists the options)\n"],
    [['--labels', 'LABELS', '--provider', PROVIDER, '--share', 'all'], /^error: option '--share <level>' argument 'all' is invalid\. expected one of sql, schema, rows/],
    [['--labels', 'LABELS', '--provider', 'file://nope.mjs'], /^error: --provider: provider "file:\/\/nope\.mjs" could not be loaded: ENOENT[^\n]*\n$/],
  ])('misuse %j exits 2 with one line', async (args, message) => {
    const run = await runCliCaptured(['judge', 'calibrate', ...args.map((arg) => (arg === 'LABELS' ? labels : arg))], dir);
    expect(run.code).toBe(2);
    if (typeof message === 'string') expect(run.err).toBe(message);
    else expect(run.err).toMatch(message);
  });
});
