/** toMatchGoldResult with `judge`: any async function as the judge, counted only under a calibration. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { EQUIVALENCE_PROMPT_HASH } from '../../src/judge/equivalence/equivalence-prompt.js';
import { judgeStatistics } from '../../src/judge/judge-statistics.js';
import { createFixtureFolder, failureOf, SHOP_SCRIPT, type FixtureFolder } from '../matchers/helpers.js';

let fixtures: FixtureFolder;
let shop: string;
let calibration: string;
const NO_BIG_ORDERS = 'SELECT COUNT(*) FROM orders WHERE total > 1000';

/** A judge that says "not equivalent" with one difference. */
async function strictJudge(): Promise<string> {
  return 'The thresholds differ.\n{"differences": ["total > 1000 vs total > 5000"], "equivalent": false}';
}

beforeAll(() => {
  fixtures = createFixtureFolder();
  shop = fixtures.build('shop', SHOP_SCRIPT);
  calibration = path.join(fixtures.dir, 'judge-calibration.json');
  const statistics = judgeStatistics({ tp: 95, fn: 5, fp: 3, tn: 47 });
  writeFileSync(calibration, JSON.stringify({ kind: 'judge-calibration', version: 1, judge: { task: 'equivalence', provider: 'function:strictJudge', model: 'function:strictJudge', promptVersion: 'equivalence-v1', promptHash: EQUIVALENCE_PROMPT_HASH }, statistics, passed: true }));
});
afterAll(() => fixtures.remove());

describe('toMatchGoldResult with an equivalence judge', () => {
  it('a calibrated judge fails a match on an all-zero gold result as a lucky match, and says why', async () => {
    const message = await failureOf(() => expect('SELECT COUNT(*) FROM orders WHERE total > 5000').toMatchGoldResult(NO_BIG_ORDERS, { db: shop, judge: { provider: strictJudge, question: 'How many orders over 1000?', calibration, cache: false } }));
    expect(message).toContain('judge: lucky_match: results match on an empty or trivially small gold result; judge says not equivalent (total > 1000 vs total > 5000)');
    expect(message).toContain('Judge (function:strictJudge, equivalence-v1): lucky_match: ');
    expect(message).toContain('  - total > 1000 vs total > 5000');
  });

  it('an uncalibrated judge moves nothing: the match passes, the message of .not shows it uncalibrated', async () => {
    await expect('SELECT COUNT(*) FROM orders WHERE total > 5000').toMatchGoldResult(NO_BIG_ORDERS, { db: shop, judge: { provider: strictJudge, calibration: path.join(fixtures.dir, 'none.json'), cache: false } });
    const message = await failureOf(() => expect('SELECT COUNT(*) FROM orders WHERE total > 5000').not.toMatchGoldResult(NO_BIG_ORDERS, { db: shop, judge: { provider: strictJudge, calibration: path.join(fixtures.dir, 'none.json'), cache: false } }));
    expect(message).toContain('judge: uncalibrated (lucky_match if it counted)');
    expect(message).toMatch(/no calibration record for the equivalence judge function:strictJudge/);
  });

  it('names a bad judge option', async () => {
    await expect(expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: shop, judge: { provider: 'openai:gpt-4.1' } })).rejects.toThrow('toMatchGoldResult: options.judge.provider must be an async function (prompt) => string, or an EquivalenceJudge (judgeFromFunction); received a string ("openai:gpt-4.1")');
    await expect(expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: shop, judge: { provider: strictJudge, shar: 'rows' } })).rejects.toThrow(/options\.judge\.shar is not an option \(did you mean options\.judge\.share\?\)/);
  });
});
