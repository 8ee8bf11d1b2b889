/**
 * The judge step in the promptfoo ladder assertion, with recorded judge replies replayed through a
 * `file://` provider (promptfoo's own loader; no network).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { EQUIVALENCE_PROMPT_HASH } from '../../src/judge/equivalence/equivalence-prompt.js';
import { judgeStatistics } from '../../src/judge/judge-statistics.js';
import { readLadderRecord } from '../../src/report/ladder-record.js';
import { summarizeLadder } from '../../src/report/ladder-summary.js';
import { renderLadderSummary } from '../../src/report/render-summary.js';
import { toSummaryRecord } from '../../src/promptfoo/summary-hooks.js';

const PROVIDER = 'file://tests/judge/fixtures/recorded-judge.mjs';
const COUNT = 'SELECT COUNT(*) FROM products';
const NO_REFUNDS = 'SELECT COUNT(*) FROM refunds WHERE reason IS NULL AND amount < 0';

let dir: string;
let calibration: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ladder-judge-'));
  calibration = path.join(dir, 'judge-calibration.json');
  const statistics = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
  writeFileSync(calibration, JSON.stringify({
    kind: 'judge-calibration', version: 1,
    judge: { task: 'equivalence', provider: PROVIDER, model: PROVIDER, promptVersion: 'equivalence-v1', promptHash: EQUIVALENCE_PROMPT_HASH },
    labels: { file: 'pairs.jsonl', sha256: '0'.repeat(64), pairs: 120, positives: 80, negatives: 40 }, createdAt: '2026-01-01T00:00:00.000Z',
    thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 }, statistics, categories: {}, errors: 0, passed: true, failures: [],
    cost: { calls: 120, cacheHits: 0, tokens: 0 }, wrong: [],
  }));
});
afterAll(async () => {
  await closeSharedEngine();
  rmSync(dir, { recursive: true, force: true });
});

function context(gold: string, judge: Record<string, unknown>): AssertionContext {
  return {
    vars: { id: 'wh-j1', question: 'How many products are in the catalogue?', db: 'warehouse', expected_behavior: 'answer', gold_sql: [gold] },
    test: { metadata: { id: 'wh-j1' } },
    config: { judge: { provider: PROVIDER, cache: false, ...judge } },
    providerResponse: { metadata: {} },
  };
}

describe('ladder assertion with the equivalence judge', () => {
  it('an EX failure the judge calls not equivalent: wrong_result, counted under the calibration', async () => {
    const result = await ladder("SELECT COUNT(*) FROM products WHERE category = 'Hardware'", context(COUNT, { calibration }));
    expect([result.pass, result.score, result.namedScores?.['judge'], result.namedScores?.['end_to_end']]).toEqual([false, 0, 0, 0]);
    expect(result.reason).toMatch(/; judge: wrong_result: results differ; judge says not equivalent \(WHERE category = 'Hardware' restricts the count to one category\)$/);
    const record = readLadderRecord(result.metadata?.['text2sqlLadder']);
    expect(record?.judge).toMatchObject({ judge: PROVIDER, state: 'wrong_result', route: 'ex_failure', asked: true, calibrated: true, calibration, calls: 1, tokens: 853, promptHash: EQUIVALENCE_PROMPT_HASH });
  });

  it('a match on an all-zero gold result the judge calls not equivalent: a lucky match fails the row', async () => {
    const result = await ladder('SELECT COUNT(*) FROM refunds WHERE amount > 100000', context(NO_REFUNDS, { calibration }));
    expect([result.pass, result.score, result.namedScores?.['judge'], result.namedScores?.['end_to_end'], result.namedScores?.['L4_execution']]).toEqual([false, 0, 0, 0, 1]);
    expect((result.metadata?.['graderOutputs'] as Record<string, string>)['judge']).toMatch(/^lucky_match: results match on an empty or trivially small gold result; judge says not equivalent/);
  });

  it('without a calibration record the verdict is shown uncalibrated and the row keeps its ladder verdict', async () => {
    const result = await ladder('SELECT COUNT(*) FROM refunds WHERE amount > 100000', context(NO_REFUNDS, { calibration: path.join(dir, 'none.json') }));
    expect([result.pass, result.score, result.namedScores?.['judge']]).toEqual([true, 1, undefined]);
    expect(result.reason).toMatch(/; judge: uncalibrated \(lucky_match if it counted\): /);
  });

  it('does not ask about an item execution settles; trivialRows widens what is asked', async () => {
    const settled = await ladder('SELECT COUNT(product_id) FROM products', context(COUNT, { calibration }));
    expect(readLadderRecord(settled.metadata?.['text2sqlLadder'])?.judge).toMatchObject({ state: 'pass', route: 'settled', asked: false, calls: 0 });
    expect([settled.pass, settled.namedScores?.['judge']]).toEqual([true, 1]);
    const asked = await ladder('SELECT COUNT(product_id) FROM products', context(COUNT, { calibration, trivialRows: 1 }));
    expect(readLadderRecord(asked.metadata?.['text2sqlLadder'])?.judge).toMatchObject({ state: 'pass', route: 'possible_lucky_match', asked: true, equivalent: true, calls: 1 });
  });

  it('an unreadable reply is retried once, then judge_error for the item; the run goes on', async () => {
    const result = await ladder('SELECT COUNT(*) FROM products WHERE list_price >= 0', context(COUNT, { calibration, trivialRows: 1 }));
    expect(result.pass).toBe(true);
    expect(readLadderRecord(result.metadata?.['text2sqlLadder'])?.judge).toMatchObject({ state: 'judge_error', calls: 2, tokens: 1618, error: 'no JSON object in the reply: "I believe these are the same."' });
    expect(result.namedScores?.['judge']).toBeUndefined();
  });

  it('the summary shows the judge per column: calibration, routes, outcomes, cost', async () => {
    const rows = await Promise.all([
      ladder("SELECT COUNT(*) FROM products WHERE category = 'Hardware'", context(COUNT, { calibration })),
      ladder('SELECT COUNT(*) FROM refunds WHERE amount > 100000', context(NO_REFUNDS, { calibration })),
      ladder('SELECT COUNT(product_id) FROM products', context(COUNT, { calibration })),
    ]);
    const records = rows.map((gradingResult, index) => toSummaryRecord({ provider: { id: 'model-a' }, testCase: { vars: { id: `wh-${index}` } }, gradingResult } as never)!);
    const [summary] = summarizeLadder(records);
    expect(summary?.judges).toEqual([{ judge: `${PROVIDER} (${PROVIDER}, equivalence-v1)`, calibrated: true, items: 3, asked: 2, routes: { ex_failure: 1, possible_lucky_match: 1 }, states: { wrong_result: 1, lucky_match: 1, pass: 1 }, witnessOverruled: 0, calls: 2, cacheHits: 0, tokens: 1750 }]);
    expect(renderLadderSummary(summarizeLadder(records))).toContain('calls 2 · cache hits 0 · tokens 1750');
  });

  it('rejects a misspelt judge option naming it', async () => {
    await expect(ladder(COUNT, context(COUNT, { sahre: 'rows' }))).rejects.toThrow(/config\.judge\.sahre is not an option \(did you mean config\.judge\.share\?\)/);
  });
});
