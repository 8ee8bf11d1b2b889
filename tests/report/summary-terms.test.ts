/**
 * One vocabulary for the ladder summary and the Spider summary: the shared counts are defined and
 * counted once (src/report/summary-terms.ts), both summaries give the same item the same counts, and
 * docs/reading-results.md shows the definitions as the code holds them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countItems, SUMMARY_TERMS, type CountedItem } from '../../src/report/summary-terms.js';
import { summarizeLadder, type SummaryRecord } from '../../src/report/ladder-summary.js';
import { renderLadderSummary } from '../../src/report/render-summary.js';
import { summarize, type SpiderItemVerdict } from '../../src/harness/evaluate-spider.js';
import { formatSpiderSummary } from '../../src/cli/spider.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PASS4 = { L1_syntax: 'pass', L2_schema: 'pass', L3_safety: 'pass', L4_execution: 'pass' } as const;

/**
 * The same eight situations, as a ladder record and as a Spider verdict (Spider has no declining
 * items and no gates, so those cases are the ladder's only). An errored item is the machine's
 * fault in both: never scored, never counted as 0.
 */
const CASES: ReadonlyArray<{ readonly name: string; readonly ladder: Partial<SummaryRecord>; readonly spider?: Partial<SpiderItemVerdict> }> = [
  { name: 'matched', ladder: {}, spider: { exec: 1 } },
  { name: 'matched on an empty gold', ladder: { emptyGoldMatch: true }, spider: { exec: 1, flags: ['empty_gold'] } },
  { name: 'ran, wrong rows', ladder: { verdict: 'fail', endToEnd: 0, rungs: { ...PASS4, L4_execution: 'fail' } }, spider: { exec: 0 } },
  { name: 'prediction failed to run', ladder: { verdict: 'fail', endToEnd: 0, executed: false, rungs: { ...PASS4, L4_execution: 'fail' } }, spider: { exec: 0, flags: ['prediction_error'] } },
  // One of two golds failed on a snapshot; the other ran and matched: scored, and a gold error.
  { name: 'matched, another gold failed', ladder: { goldError: true }, spider: { exec: 1, flags: ['gold_error'] } },
  { name: 'no gold runs', ladder: { verdict: 'unscored', endToEnd: undefined, executed: false, goldError: true, rungs: { ...PASS4, L4_execution: 'unscored' } }, spider: { exec: null, flags: ['gold_error'] } },
  // Undecided with the prediction failing on one snapshot: unscored, so not a prediction error.
  { name: 'undecided', ladder: { verdict: 'unscored', endToEnd: undefined, executed: false, rungs: { ...PASS4, L4_execution: 'unscored' } }, spider: { exec: null, flags: ['undecided', 'prediction_error'] } },
  { name: 'failed a gate', ladder: { verdict: 'fail', endToEnd: 0, executed: false, rungs: { L1_syntax: 'fail', L2_schema: 'skipped', L3_safety: 'skipped', L4_execution: 'skipped' } } },
  { name: 'declined as asked', ladder: { expectedBehavior: 'refuse', executed: false, rungs: {} } },
  { name: 'errored row', ladder: { verdict: 'error', endToEnd: undefined, executed: false, rungs: {} }, spider: { exec: null, flags: ['internal_error'] } },
];

function ladderRecord(id: string, fields: Partial<SummaryRecord>): SummaryRecord {
  return { provider: 'p', id, tags: [], expectedBehavior: 'answer', verdict: 'pass', endToEnd: 1, executed: true, rungs: PASS4, goldError: false, emptyGoldMatch: false, ...fields };
}

function spiderVerdict(i: number, fields: Partial<SpiderItemVerdict>): SpiderItemVerdict {
  return { i, db_id: 'shop', exec: 1, error: null, flags: [], goldIndex: 0, hardness: 'easy', ...fields };
}

const ladderRecords = CASES.map((c, i) => ladderRecord(`i${i}`, c.ladder));
const spiderVerdicts = CASES.flatMap((c, i) => (c.spider === undefined ? [] : [spiderVerdict(i, c.spider)]));

describe('countItems', () => {
  it('counts each word as SUMMARY_TERMS defines it', () => {
    const item = (fields: Partial<CountedItem>): CountedItem => ({ scored: true, expectsAnswer: true, predictionRan: true, matched: true, goldError: false, emptyGoldMatch: false, ...fields });
    expect(
      countItems([
        item({}),
        item({ emptyGoldMatch: true }),
        item({ matched: false }),
        item({ predictionRan: false, matched: false }),
        item({ goldError: true }),
        item({ scored: false, predictionRan: false, matched: false, goldError: true }),
        item({ expectsAnswer: false, predictionRan: false, matched: false }),
        // An empty-gold flag on an item that did not match is no empty-gold match.
        item({ matched: false, emptyGoldMatch: true }),
        // Errored: neither scored nor unscored, and none of its other flags count.
        item({ errored: true, scored: false, predictionRan: false, matched: false, goldError: true }),
      ]),
    ).toEqual({ items: 9, scored: 7, unscored: 1, errored: 1, answerItems: 6, executed: 5, predictionErrors: 1, correct: 3, goldErrors: 2, emptyGoldMatches: 1 });
    expect(countItems([])).toEqual({ items: 0, scored: 0, unscored: 0, errored: 0, answerItems: 0, executed: 0, predictionErrors: 0, correct: 0, goldErrors: 0, emptyGoldMatches: 0 });
  });
});

describe('the ladder summary and the Spider summary count the same item the same way', () => {
  it('on the cases both front ends can produce', () => {
    const shared = CASES.flatMap((c, i) => (c.spider === undefined ? [] : [ladderRecords[i]!]));
    const [ladder] = summarizeLadder(shared);
    const spider = summarize(spiderVerdicts);
    expect(spider).toMatchObject({ executed: 4, predictionErrors: 1, goldErrors: 2, emptyGoldMatches: 1, internalErrors: 1, levels: { all: { count: 8, scored: 5, correct: 3 } } });
    expect(ladder).toMatchObject({
      items: spider.levels.all.count,
      scored: spider.levels.all.scored,
      errors: spider.internalErrors,
      executionSuccess: { passed: spider.executed, n: spider.executed + spider.predictionErrors },
      correctAmongExecuted: { passed: spider.levels.all.correct, n: spider.executed },
      goldErrors: spider.goldErrors,
      emptyGoldMatches: spider.emptyGoldMatches,
    });
  });

  it('on every case in the ladder summary: gates and declines are scored and not executed; an errored row is in no count but its own', () => {
    const [summary] = summarizeLadder(ladderRecords);
    expect(summary).toMatchObject({
      items: 10,
      scored: 7,
      unscored: 2,
      errors: 1,
      executionSuccess: { passed: 4, n: 6 },
      correctAmongExecuted: { passed: 3, n: 4 },
      goldErrors: 2,
      emptyGoldMatches: 1,
    });
  });

  it('both print the shared words from SUMMARY_TERMS', () => {
    const table = renderLadderSummary(summarizeLadder(ladderRecords));
    for (const key of ['items', 'scored', 'unscored', 'executionSuccess', 'correctAmongExecuted', 'goldErrors', 'emptyGoldMatches'] as const) {
      expect(table).toMatch(new RegExp(`^│ ${SUMMARY_TERMS[key].label} +│`, 'm'));
    }
    const text = formatSpiderSummary(summarize(spiderVerdicts), 'default', false);
    expect(text.split('\n').at(-2)).toBe('scored 5 of 8 | correct 3 | executed 4 | prediction errors 1 | gold errors 2 | empty-gold matches 1 | undecided 1 | errored 1');
  });
});

describe('docs/reading-results.md', () => {
  it('shows every shared word with the definition the code holds', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'reading-results.md'), 'utf8');
    for (const term of Object.values(SUMMARY_TERMS)) expect(page).toContain(`| \`${term.label}\` | ${term.definition} |`);
  });
});
