/**
 * `text2sql-ladder spider --judge`: one judge record per item in --out (routed as the ladder's
 * judge step routes), the judge block after the Spider summary, uncalibrated vs calibrated, and
 * the L5 witness overruling the judge with --test-suite. The judge is a `file://` provider written
 * here (promptfoo's own loader; no network) that calls a fixed set of candidates equivalent.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSpiderCommand, type SpiderCommandOptions } from '../../src/cli/spider.js';
import { EQUIVALENCE_PROMPT_HASH } from '../../src/judge/equivalence/equivalence-prompt.js';
import { judgeStatistics } from '../../src/judge/judge-statistics.js';
import { readJudgeRecord } from '../../src/report/ladder-record.js';
import { makeDb, tempDir } from '../compare/helpers.js';
import { SHOP_SCHEMA } from '../semantic/shop-fixture.js';
import { capture } from './capture-io.js';

// Every order of the shop is paid; no order is open or void.
const ITEMS: readonly (readonly [gold: string, pred: string])[] = [
  ['SELECT COUNT(*) FROM customers', 'SELECT COUNT(customer_id) FROM customers'], // match, 3 rows counted: settled pass
  ['SELECT COUNT(*) FROM customers', 'SELECT COUNT(*) FROM orders'], // EX failure, judge: not equivalent
  ['SELECT name FROM customers WHERE customer_id = 1', 'SELECT name, city FROM customers WHERE customer_id = 1'], // EX failure, judge: equivalent
  ["SELECT order_id FROM orders WHERE status = 'void'", 'SELECT order_id FROM orders WHERE amount < 0'], // empty gold, judge: equivalent
  ["SELECT order_id FROM orders WHERE status = 'open'", "SELECT order_id FROM orders WHERE status = 'void'"], // empty gold, judge: not equivalent
  ['SELECT name FROM customers', 'SELECT nope FROM customers'], // the prediction fails: settled invalid
];
const EQUIVALENT = [ITEMS[2]![1], ITEMS[3]![1]];

let dir: string;
let provider: string;
let calibration: string;

beforeAll(() => {
  dir = tempDir('ladder-spider-judge-');
  vi.stubEnv('TEXT2SQL_LADDER_CACHE_DIR', path.join(dir, 'cache'));
  mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
  makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), SHOP_SCHEMA);
  writeFileSync(path.join(dir, 'gold.sql'), ITEMS.map(([gold]) => `${gold}\tshop`).join('\n') + '\n');
  writeFileSync(path.join(dir, 'pred.sql'), ITEMS.map(([, pred]) => pred).join('\n') + '\n');
  const judgeFile = path.join(dir, 'judge.mjs');
  writeFileSync(
    judgeFile,
    `const EQUIVALENT = ${JSON.stringify(EQUIVALENT)};
export default class Scripted {
  id() { return 'scripted'; }
  async callApi(prompt) {
    const candidate = /\\nCANDIDATE:\\n([\\s\\S]*?)\\n\\nEvidence from running both:\\n/.exec(prompt)[1].trim();
    const equivalent = EQUIVALENT.includes(candidate);
    return { output: JSON.stringify({ differences: equivalent ? [] : ['the candidate reads other rows'], equivalent }), tokenUsage: { total: 10 } };
  }
}
`,
  );
  provider = `file://${judgeFile}`;
  calibration = path.join(dir, 'judge-calibration.json');
  const statistics = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
  writeFileSync(
    calibration,
    JSON.stringify({
      kind: 'judge-calibration',
      version: 1,
      judge: { task: 'equivalence', provider: 'scripted', model: 'scripted', promptVersion: 'equivalence-v1', promptHash: EQUIVALENCE_PROMPT_HASH },
      labels: { file: 'pairs.jsonl', sha256: '0'.repeat(64), pairs: 120, positives: 80, negatives: 40 },
      createdAt: '2026-01-01T00:00:00.000Z',
      thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 },
      statistics,
      categories: {},
      errors: 0,
      passed: true,
      failures: [],
      cost: { calls: 120, cacheHits: 0, tokens: 0 },
      wrong: [],
    }),
  );
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const options = (overrides: Partial<SpiderCommandOptions> = {}): SpiderCommandOptions => ({
  gold: path.join(dir, 'gold.sql'),
  pred: path.join(dir, 'pred.sql'),
  db: path.join(dir, 'database'),
  preset: 'default',
  keepDistinct: false,
  judge: provider,
  judgeModel: 'scripted',
  judgeCache: false,
  ...overrides,
});

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

type Judged = { state?: string; outcome?: string | null; route?: string; asked?: boolean; score?: number | null; calibrated?: boolean; witnessOverruled?: boolean };
const judged = (line: Record<string, unknown>): Judged => {
  const record = readJudgeRecord(line.judge);
  expect(record).toBeDefined();
  const { state, outcome, route, asked, score, calibrated, witnessOverruled } = record!;
  return { state, outcome, route, asked, score, calibrated, witnessOverruled };
};

describe('text2sql-ladder spider --judge', () => {
  it('calibrated: one verdict per item with the five outcomes in --out, and the judge block after the summary', async () => {
    const out = path.join(dir, 'calibrated.jsonl');
    const { io, out: stdout } = capture();
    expect(await runSpiderCommand(options({ out, judgeCalibration: [calibration] }), io)).toBe(0);
    const rows = lines(out);
    expect(rows.map((row) => row.exec)).toEqual([1, 0, 0, 1, 1, 0]);
    expect(rows.map(judged)).toEqual([
      { state: 'pass', outcome: 'pass', route: 'settled', asked: false, score: 1, calibrated: true, witnessOverruled: false },
      { state: 'wrong_result', outcome: 'wrong_result', route: 'ex_failure', asked: true, score: 0, calibrated: true, witnessOverruled: false },
      { state: 'review', outcome: 'review', route: 'ex_failure', asked: true, score: 0, calibrated: true, witnessOverruled: false },
      { state: 'pass', outcome: 'pass', route: 'possible_lucky_match', asked: true, score: 1, calibrated: true, witnessOverruled: false },
      { state: 'lucky_match', outcome: 'lucky_match', route: 'possible_lucky_match', asked: true, score: 0, calibrated: true, witnessOverruled: false },
      { state: 'invalid', outcome: 'invalid', route: 'settled', asked: false, score: 0, calibrated: true, witnessOverruled: false },
    ]);
    const text = stdout();
    // EX is the judge's business only in its own block.
    expect(text).toContain('execution            0.500');
    expect(text.slice(text.indexOf('\n=====================   EQUIVALENCE JUDGE'))).toBe(
      [
        '',
        '=====================   EQUIVALENCE JUDGE      =====================',
        `judge scripted: calibrated (${calibration})`,
        '6 items judged, 4 asked (the rest settled by execution)',
        'outcomes: pass 2 | invalid 1 | lucky_match 1 | wrong_result 1 | review 1',
        'end_to_end under the judge: 2 of 6 (review is not a pass until a person accepts it)',
        'judge calls 4 | cache hits 0 | tokens 40',
        '',
      ].join('\n'),
    );
  });

  it('uncalibrated: the same outcomes shown, no score moved', async () => {
    const out = path.join(dir, 'uncalibrated.jsonl');
    const { io, out: stdout } = capture();
    const missing = path.join(dir, 'none.json');
    expect(await runSpiderCommand(options({ out, judgeCalibration: [missing] }), io)).toBe(0);
    const rows = lines(out);
    expect(rows.map((row) => row.exec)).toEqual([1, 0, 0, 1, 1, 0]);
    expect(rows.map((row) => judged(row).state)).toEqual(['pass', 'uncalibrated', 'uncalibrated', 'uncalibrated', 'uncalibrated', 'invalid']);
    expect(rows.map((row) => judged(row).outcome)).toEqual(['pass', 'wrong_result', 'review', 'pass', 'lucky_match', 'invalid']);
    expect(rows.slice(1, 5).map((row) => judged(row).score)).toEqual([null, null, null, null]);
    const text = stdout();
    expect(text).toContain('execution            0.500');
    expect(text.slice(text.indexOf('\n=====================   EQUIVALENCE JUDGE'))).toBe(
      [
        '',
        '=====================   EQUIVALENCE JUDGE      =====================',
        `judge scripted: uncalibrated, its verdicts move no score (no calibration record for the equivalence judge scripted (model scripted, prompt equivalence-v1 ${EQUIVALENCE_PROMPT_HASH.slice(0, 12)}); run \`text2sql-ladder judge calibrate\`)`,
        '6 items judged, 4 asked (the rest settled by execution)',
        'outcomes if it counted: pass 2 | invalid 1 | lucky_match 1 | wrong_result 1 | review 1',
        'judge calls 4 | cache hits 0 | tokens 40',
        '',
      ].join('\n'),
    );
  });

  it('--test-suite: a verified L5 witness overrules the judge on a possible lucky match', async () => {
    const out = path.join(dir, 'witness.jsonl');
    const { io, out: stdout } = capture();
    const gold = path.join(dir, 'gold-witness.sql');
    const pred = path.join(dir, 'pred-witness.sql');
    // Both empty on the shop; a database with a void order tells them apart, and the judge says "equivalent".
    writeFileSync(gold, "SELECT order_id FROM orders WHERE status = 'open'\tshop\n");
    writeFileSync(pred, "SELECT order_id FROM orders WHERE status = 'void'\n");
    const run = options({ gold, pred, out, judgeCalibration: [calibration], testSuite: true, suiteMaxSeconds: 600, searchMaxSeconds: 600 });
    // The same judge identity (so the calibration counts), answering "equivalent" to everything.
    const always = path.join(dir, 'always.mjs');
    writeFileSync(always, `export default class { id() { return 'scripted'; } async callApi() { return { output: '{"differences": [], "equivalent": true}' }; } }\n`);
    expect(await runSpiderCommand({ ...run, judge: `file://${always}` }, io)).toBe(0);
    const [row] = lines(out);
    expect(row!.ts).toBe(0);
    expect(judged(row!)).toEqual({ state: 'lucky_match', outcome: 'lucky_match', route: 'possible_lucky_match', asked: true, score: 0, calibrated: true, witnessOverruled: true });
    expect(stdout()).toContain('\n1 items judged, 1 asked (the rest settled by execution), 1 overruled by an L5 witness\noutcomes: pass 0 | invalid 0 | lucky_match 1 | wrong_result 0 | review 0\nend_to_end under the judge: 0 of 1 (review is not a pass until a person accepts it)\n');
  });

  it('judge flags without --judge are misuse (exit 2, nothing run)', async () => {
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ judge: undefined, judgeModel: undefined, judgeCache: true, judgeShare: 'rows' }), io)).toBe(2);
    expect(err()).toBe('error: --judge-share needs --judge\n');
  });
});
