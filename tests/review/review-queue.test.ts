/**
 * The review queue end to end on hand-written judged runs (the judge's records as its step writes
 * them; no provider is called): building the queue with both results per snapshot, accepting on
 * YAML and JSONL, rejecting, a dataset changed since the run, and the next run's verdict after an
 * accept.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import { loadTests } from '../../src/promptfoo/dataset-tests.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { findLadderRecords } from '../../src/report/ladder-record.js';
import type { PromptfooRow } from '../../src/report/promptfoo-rows.js';
import { EQUIVALENCE_PROMPT_HASH } from '../../src/judge/equivalence/equivalence-prompt.js';
import { judgeStatistics } from '../../src/judge/judge-statistics.js';
import { readDecisions, readQueue, reviewIdOf } from '../../src/review/review-entry.js';
import { runCliCaptured } from '../helpers/run-cli.js';
import { writeJudgedRun, type JudgedRow } from './judged-run.js';
import { writeRunReviewQueue } from '../../src/promptfoo/review-queue-hook.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const PARTNER_GOLD = "SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner'";
const PARTNER_CANDIDATE = "SELECT COUNT(*) AS orders FROM orders WHERE channel = 'partner' AND deleted_at IS NULL";
const ACME_CANDIDATE = "SELECT COUNT(*) AS products FROM products WHERE UPPER(brand) = 'ACME'";

let dir: string;
let dataset: string;
let run: string;
let queue: string;

function rows(file: string): JudgedRow[] {
  return [
    {
      item: 'rv-001',
      question: 'How many orders came in through the partner channel?',
      golds: [PARTNER_GOLD],
      candidate: PARTNER_CANDIDATE,
      source: `${file}:9`,
      state: 'review',
      differences: ['The candidate leaves out soft-deleted orders; the gold counts them.'],
      verdicts: { base: '1 missing row', edge: 'row 1: gold 202 vs predicted 199' },
    },
    {
      item: 'rv-002',
      question: 'How many products of the Acme brand do we carry?',
      golds: ["SELECT COUNT(*) AS products FROM products WHERE brand = 'ACME'"],
      candidate: ACME_CANDIDATE,
      source: `${file}:16`,
      state: 'lucky_match',
      emptyMatch: true,
      differences: ['The candidate upper-cases brand; on these snapshots every brand is stored upper-case.'],
    },
    // Not queued: uncalibrated, and a wrong result.
    { item: 'rv-003', question: 'How many real Enterprise customers do we have?', golds: ['SELECT 1'], candidate: 'SELECT 2', source: `${file}:24`, state: 'uncalibrated', calibrated: false },
    { item: 'rv-003', question: 'How many real Enterprise customers do we have?', golds: ['SELECT 1'], candidate: 'SELECT 3', source: `${file}:24`, state: 'wrong_result' },
  ];
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'review-'));
  dataset = path.join(dir, 'review-dataset.yaml');
  copyFileSync(path.join(FIXTURES, 'review-dataset.yaml'), dataset);
  run = path.join(dir, 'eval.json');
  queue = path.join(dir, 'out', 'review.jsonl');
  writeJudgedRun(run, rows(dataset), dataset);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await closeSharedEngine();
});

describe('building the queue', () => {
  it('queues the calibrated review and lucky-match pairs with both results on each snapshot, and lists them', async () => {
    const built = await runCliCaptured(['review', run, '--queue', queue], dir);
    expect(built.code).toBe(0);
    expect(built.err).toBe('wrote <dir>/out/review.jsonl: 2 pairs to review; left out: 1 judge verdict uncalibrated (not queued: they move no score)\n');
    const entries = readQueue(queue);
    expect(entries.map((entry) => [entry.id, entry.item, entry.outcome])).toEqual([
      [reviewIdOf('rv-001', PARTNER_CANDIDATE), 'rv-001', 'review'],
      [reviewIdOf('rv-002', ACME_CANDIDATE), 'rv-002', 'lucky_match'],
    ]);
    const partner = entries[0]!;
    expect(partner.snapshots.map((s) => [s.snapshot, s.gold.ok && s.gold.rows, s.candidate.ok && s.candidate.rows, s.verdict])).toEqual([
      ['base', [[200]], [[200]], 'no match: 1 missing row'],
      ['later', [[266]], [[266]], null],
      ['edge', [[202]], [[199]], 'no match: row 1: gold 202 vs predicted 199'],
    ]);
    expect(partner.dataset).toEqual({ file: dataset, line: 9, hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(partner.run).toEqual({ spec: run, label: 'strong', recordedAt: '2026-12-06T09:00:00.000Z' });
    expect(built.out).toContain(`${partner.id}  rv-001  review: EX failed, the judge says equivalent: a new valid gold?`);
    expect(built.out).toContain('    - The candidate leaves out soft-deleted orders; the gold counts them.');
  });

  it('gives a pair the same id in every run and queues it once when two columns hold it', async () => {
    writeJudgedRun(run, rows(dataset), dataset, ['strong', 'weak']);
    await runCliCaptured(['review', run, '--queue', queue]);
    const entries = readQueue(queue);
    expect(entries.map((entry) => entry.id)).toEqual([reviewIdOf('rv-001', PARTNER_CANDIDATE), reviewIdOf('rv-002', ACME_CANDIDATE)]);
    expect(entries[0]!.run.spec).toBe(`${run}#strong`);
    expect(reviewIdOf('rv-001', `  ${PARTNER_CANDIDATE.replace(' AND ', '\n  AND ')} `)).toBe(entries[0]!.id);
  });
});

describe('accepting and rejecting', () => {
  it('accept: the YAML file is byte-identical apart from the added gold; the decision is recorded; the pair is not queued again', async () => {
    const before = readFileSync(dataset, 'utf8');
    await runCliCaptured(['review', run, '--queue', queue]);
    const id = reviewIdOf('rv-001', PARTNER_CANDIDATE);
    const accepted = await runCliCaptured(['review', '--queue', queue, '--accept', id, '--note', 'soft-deleted orders are not orders'], dir);
    expect(accepted).toEqual({ code: 0, out: `accepted ${id}: <dir>/review-dataset.yaml item rv-001 has gold 2 now; recorded in <dir>/review-dataset.review-decisions.jsonl\n`, err: '' });
    const after = readFileSync(dataset, 'utf8');
    expect(after).toBe(
      before.replace(
        `    gold_sql: ${PARTNER_GOLD}   # every status\n`,
        `    gold_sql:\n      - ${PARTNER_GOLD}   # every status\n      - ${PARTNER_CANDIDATE}\n`,
      ),
    );
    const [decision] = readDecisions(path.join(dir, 'review-dataset.review-decisions.jsonl'));
    expect(decision).toMatchObject({ review: id, decision: 'accept', item: 'rv-001', candidate: PARTNER_CANDIDATE, outcome: 'review', goldIndex: 1, note: 'soft-deleted orders are not orders', run: { spec: run, recordedAt: '2026-12-06T09:00:00.000Z' } });
    expect(readQueue(queue).map((entry) => entry.item)).toEqual(['rv-002']);
    // Rebuilt from the same run: the decided pair stays out.
    const rebuilt = await runCliCaptured(['review', run, '--queue', queue], dir);
    expect(rebuilt.err).toBe('wrote <dir>/out/review.jsonl: 1 pair to review; left out: 1 pair already decided, 1 judge verdict uncalibrated (not queued: they move no score)\n');
  });

  it('two accepts from one run: the second sees the first one\'s edit as its own, not as a changed dataset', async () => {
    await runCliCaptured(['review', run, '--queue', queue]);
    expect((await runCliCaptured(['review', '--queue', queue, '--accept', reviewIdOf('rv-001', PARTNER_CANDIDATE)])).code).toBe(0);
    expect((await runCliCaptured(['review', '--queue', queue, '--accept', reviewIdOf('rv-002', ACME_CANDIDATE)])).code).toBe(0);
    expect(readQueue(queue)).toEqual([]);
    const decisions = readDecisions(path.join(dir, 'review-dataset.review-decisions.jsonl'));
    expect(decisions[1]!.datasetHash!.before).toBe(decisions[0]!.datasetHash!.after);
  });

  it('reject: the dataset is untouched, the decision recorded, the pair not asked again', async () => {
    const before = readFileSync(dataset);
    await runCliCaptured(['review', run, '--queue', queue]);
    const id = reviewIdOf('rv-002', ACME_CANDIDATE);
    const rejected = await runCliCaptured(['review', '--queue', queue, '--reject', id], dir);
    expect(rejected).toEqual({ code: 0, out: `rejected ${id}: item rv-002 keeps its golds; recorded in <dir>/review-dataset.review-decisions.jsonl\n`, err: '' });
    expect(readFileSync(dataset).equals(before)).toBe(true);
    expect(readDecisions(path.join(dir, 'review-dataset.review-decisions.jsonl')).map((d) => [d.review, d.decision])).toEqual([[id, 'reject']]);
    await runCliCaptured(['review', run, '--queue', queue]);
    expect(readQueue(queue).map((entry) => entry.item)).toEqual(['rv-001']);
    const again = await runCliCaptured(['review', '--queue', queue, '--reject', id], dir);
    expect(again.code).toBe(2);
    expect(again.err).toBe(`error: no review "${id}" in <dir>/out/review.jsonl (pending: ${reviewIdOf('rv-001', PARTNER_CANDIDATE)})\n`);
  });

  it('refuses to accept when the dataset changed since the run, and writes nothing', async () => {
    await runCliCaptured(['review', run, '--queue', queue]);
    writeFileSync(dataset, `${readFileSync(dataset, 'utf8')}# edited by hand after the run\n`);
    const changed = readFileSync(dataset);
    const id = reviewIdOf('rv-001', PARTNER_CANDIDATE);
    const refused = await runCliCaptured(['review', '--queue', queue, '--accept', id], dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /^error: <dir>\/review-dataset\.yaml changed since the run <dir>\/eval\.json \(recorded 2026-12-06T09:00:00\.000Z\): the run graded sha256:[0-9a-f]{12}…, the file is now sha256:[0-9a-f]{12}…, and no accepted review explains the change\. The queue's evidence is about the old file: run the eval again and review its queue\.\n$/,
    );
    expect(readFileSync(dataset).equals(changed)).toBe(true);
    expect(existsSync(path.join(dir, 'review-dataset.review-decisions.jsonl'))).toBe(false);
    expect(readQueue(queue).map((entry) => entry.id)).toContain(id);
  });

  it('refuses when the item changed since a run that recorded no digest', async () => {
    await runCliCaptured(['review', run, '--queue', queue]);
    const entries = readQueue(queue).map((entry) => ({ ...entry, dataset: { ...entry.dataset, hash: null } }));
    writeFileSync(queue, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    writeFileSync(dataset, readFileSync(dataset, 'utf8').replace('partner channel?', 'partner channel in total?'));
    const refused = await runCliCaptured(['review', '--queue', queue, '--accept', reviewIdOf('rv-001', PARTNER_CANDIDATE)], dir);
    expect(refused.err).toBe('error: <dir>/review-dataset.yaml: item "rv-001" changed since the run <dir>/eval.json: its question is not the one the run asked. Run the eval again and review its queue.\n');
  });

  it('accepts on a JSONL dataset: only the item\'s line changes', async () => {
    const jsonl = path.join(dir, 'review-dataset.jsonl');
    copyFileSync(path.join(FIXTURES, 'review-dataset.jsonl'), jsonl);
    writeJudgedRun(run, [{ ...rows(jsonl)[0]!, source: `${jsonl}:1` }], jsonl);
    await runCliCaptured(['review', run, '--queue', queue]);
    const before = readFileSync(jsonl, 'utf8').split('\n');
    expect((await runCliCaptured(['review', '--queue', queue, '--accept', reviewIdOf('rv-001', PARTNER_CANDIDATE)])).code).toBe(0);
    const after = readFileSync(jsonl, 'utf8').split('\n');
    expect(after.slice(1)).toEqual(before.slice(1));
    expect(JSON.parse(after[0]!).gold_sql).toEqual([PARTNER_GOLD, PARTNER_CANDIDATE]);
    expect(existsSync(path.join(dir, 'review-dataset.review-decisions.jsonl'))).toBe(true);
  });
});

describe('the next run after an accept', () => {
  async function grade(file: string): Promise<{ verdict: string; goldIndex: unknown }> {
    const tests = await loadTests({ file, ladder: { policy: 'default' } });
    const test = tests.find((entry) => entry.vars['id'] === 'rv-001')!;
    const result = await ladder(PARTNER_CANDIDATE, { vars: test.vars, test, config: test.assert[0]!.config, provider: { id: () => 'candidate', label: 'candidate' } } as never);
    const record = findLadderRecords({ gradingResult: result as never }).ladder!;
    const execution = record.rungs.find((rung) => rung.rung === 'execution')!;
    return { verdict: `${record.verdict}: ${execution.reason}`, goldIndex: (execution.details as { goldIndex: unknown }).goldIndex };
  }

  it('fails the candidate before, and passes it against its new gold after', async () => {
    expect(await grade(dataset)).toEqual({ verdict: 'fail: snapshot edge: gold [202] vs predicted [199]', goldIndex: 0 });
    await runCliCaptured(['review', run, '--queue', queue]);
    await runCliCaptured(['review', '--queue', queue, '--accept', reviewIdOf('rv-001', PARTNER_CANDIDATE)]);
    expect(await grade(dataset)).toEqual({ verdict: 'pass: matches gold 1 on 3 snapshots', goldIndex: 1 });
  });
});

describe('the audit knows the queue', () => {
  it('reports the pending reviews and the golds added by review, with when and from which run', async () => {
    await runCliCaptured(['review', run, '--queue', queue]);
    const id = reviewIdOf('rv-001', PARTNER_CANDIDATE);
    await runCliCaptured(['review', '--queue', queue, '--accept', id, '--note', 'soft-deleted orders are not orders']);
    const decidedAt = readDecisions(path.join(dir, 'review-dataset.review-decisions.jsonl'))[0]!.decidedAt;
    const audit = await runCliCaptured(['audit', dataset, '--queue', queue], dir);
    const lines = audit.out.split('\n');
    expect(lines.slice(3, 6)).toEqual([
      `review queue (<dir>/out/review.jsonl): 1 pending review: rv-002 ${reviewIdOf('rv-002', ACME_CANDIDATE)} lucky_match`,
      'golds added by review (<dir>/review-dataset.review-decisions.jsonl):',
      `  rv-001 gold 2: accepted ${decidedAt}, queued by run <dir>/eval.json of 2026-12-06T09:00:00.000Z (${id}): soft-deleted orders are not orders`,
    ]);
    const json = JSON.parse((await runCliCaptured(['audit', dataset, '--queue', queue, '--format', 'json'])).out) as { review: { pending: unknown[]; added: unknown[] } };
    expect(json.review.pending).toHaveLength(1);
    expect(json.review.added).toEqual([{ review: id, item: 'rv-001', goldIndex: 1, gold: PARTNER_CANDIDATE, acceptedAt: decidedAt, run: { spec: run, label: 'strong', recordedAt: '2026-12-06T09:00:00.000Z' }, note: 'soft-deleted orders are not orders' }]);
  });
});

describe('the example folder', () => {
  it('examples/review/review.jsonl is the queue its run gives', async () => {
    const example = path.resolve(import.meta.dirname, '../../examples/review');
    const cwd = process.cwd();
    process.chdir(example);
    try {
      const rebuilt = await runCliCaptured(['review', 'eval.json', '--queue', queue]);
      expect(rebuilt.code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const strip = (entries: ReturnType<typeof readQueue>): unknown => entries.map(({ queuedAt: _queuedAt, ...entry }) => entry);
    expect(strip(readQueue(queue))).toEqual(strip(readQueue(path.join(example, 'review.jsonl'))));
  });
});

describe('the queue at the end of a promptfoo run', () => {
  it('is written beside the JSON output, replaced by the next run, and not written without one', async () => {
    const result = JSON.parse(readFileSync(run, 'utf8')) as { results: { prompts: never; results: never[] }; config: { metadata: { text2sqlLadder: { columns: never[] } } } };
    const output = path.join(dir, 'out', 'eval.json');
    const argv = ['node', 'promptfoo', 'eval', '-o', output];
    const identities = result.config.metadata.text2sqlLadder.columns;
    expect(await writeRunReviewQueue(result.results.results, result.results.prompts, identities, {}, argv)).toBe(path.join(dir, 'out', 'review.jsonl'));
    expect(readQueue(queue).map((entry) => [entry.item, entry.run.spec])).toEqual([['rv-001', output], ['rv-002', output]]);
    expect(await writeRunReviewQueue(result.results.results, result.results.prompts, identities, { LADDER_REVIEW_QUEUE: 'off' }, argv)).toBeUndefined();
    expect(await writeRunReviewQueue(result.results.results, result.results.prompts, identities, {}, ['node', 'promptfoo', 'eval'])).toBeUndefined();
    // A later run that queues nothing empties the queue.
    expect(await writeRunReviewQueue([], result.results.prompts, identities, {}, argv)).toBe(queue);
    expect(readQueue(queue)).toEqual([]);
  });
});

describe('from the judge step to the next run (recorded judge replies, no network)', () => {
  const PROVIDER = 'file://tests/judge/fixtures/recorded-judge.mjs';

  function calibrationFor(file: string): void {
    const statistics = judgeStatistics({ tp: 72, fn: 8, fp: 2, tn: 38 });
    writeFileSync(file, JSON.stringify({
      kind: 'judge-calibration', version: 1,
      judge: { task: 'equivalence', provider: PROVIDER, model: PROVIDER, promptVersion: 'equivalence-v1', promptHash: EQUIVALENCE_PROMPT_HASH },
      labels: { file: 'pairs.jsonl', sha256: '0'.repeat(64), pairs: 120, positives: 80, negatives: 40 }, createdAt: '2026-01-01T00:00:00.000Z',
      thresholds: { minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 }, statistics, categories: {}, errors: 0, passed: true, failures: [],
      cost: { calls: 120, cacheHits: 0, tokens: 0 }, wrong: [],
    }));
  }

  async function gradeRow(judge: Record<string, unknown>): Promise<PromptfooRow> {
    const tests = await loadTests({ file: dataset, ladder: { policy: 'default', judge } });
    const test = tests.find((entry) => entry.vars['id'] === 'rv-001')!;
    const result = await ladder(PARTNER_CANDIDATE, { vars: test.vars, test, config: test.assert[0]!.config, provider: { id: () => 'model', label: 'model' } } as never);
    return { promptIdx: 0, provider: { id: 'model', label: 'model' }, testCase: { vars: test.vars, metadata: test.metadata }, response: { output: PARTNER_CANDIDATE }, gradingResult: result as never };
  }

  it('the judge says review, the queue holds the pair, an accept makes the next run pass without asking the judge', async () => {
    const calibration = path.join(dir, 'judge-calibration.json');
    calibrationFor(calibration);
    const judge = { provider: PROVIDER, calibration, cache: false };
    const row = await gradeRow(judge);
    const record = findLadderRecords(row).ladder!;
    expect(record.judge).toMatchObject({ task: 'equivalence', state: 'review', route: 'ex_failure', calibrated: true, differences: ['the candidate excludes orders with deleted_at set'] });
    writeFileSync(run, JSON.stringify({ results: { prompts: [{ provider: 'model', label: 'p' }], results: [row] } }));

    expect((await runCliCaptured(['review', run, '--queue', queue])).code).toBe(0);
    const [entry] = readQueue(queue);
    expect([entry!.id, entry!.outcome, entry!.dataset.hash, entry!.judge.differences]).toEqual([reviewIdOf('rv-001', PARTNER_CANDIDATE), 'review', null, ['the candidate excludes orders with deleted_at set']]);
    expect((await runCliCaptured(['review', '--queue', queue, '--accept', entry!.id])).code).toBe(0);

    const next = findLadderRecords(await gradeRow(judge)).ladder!;
    expect([next.verdict, next.endToEnd, next.judge?.asked, next.judge?.route]).toEqual(['pass', 1, false, 'settled']);
  });
});
