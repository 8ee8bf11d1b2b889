/**
 * The gold audit on its seeded-defect dataset (tests/audit/seeded-dataset.yaml, fixture
 * tests/audit/fixtures/seeded): every finding kind planted at least twice is found, with its
 * snapshot and rows, and the clean items (ids c-*) have no finding at all.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAuditRun } from '../../src/audit/audit-runs.js';
import { readAuditSource } from '../../src/audit/audit-source.js';
import { auditGolds, type AuditReport } from '../../src/audit/gold-audit.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';

const HERE = import.meta.dirname;
const DATASET = path.join(HERE, 'seeded-dataset.yaml');
const FIXTURES = path.join(HERE, 'fixtures');
const RUNS = ['a', 'b', 'c'].map((name) => path.join(HERE, 'seeded-runs', `${name}.jsonl`));

// A short deadline makes the two runaway golds time out quickly; every other gold takes < 10 ms.
const runtime = createLadderRuntime({ engine: { poolSize: 2, timeoutMs: 1_000 }, fixtures: { fixturesDir: FIXTURES } });
let report: AuditReport;
beforeAll(async () => {
  const source = await readAuditSource(DATASET, { runtime, fixturesDir: FIXTURES });
  report = await auditGolds(source, { runtime, runs: RUNS.map((run) => readAuditRun(run)) });
}, 120_000);
afterAll(() => runtime.close());

const find = (kind: string, item: string) => report.findings.filter((f) => f.kind === kind && f.item === item);

describe('the seeded-defect dataset', () => {
  it('finds every planted defect, each with its item, snapshot and gold, and nothing else', () => {
    expect(report.findings.map((f) => [f.kind, f.item, f.snapshot, f.gold])).toEqual([
      ['dataset_error', 'd-no-snapshots', null, null],
      ['dataset_error', 'd-no-question', null, null],
      // An answer item awaiting its gold: unscored, and said so in every audit.
      ['no_gold', 'c-pending', null, null],
      ['fixture_error', 'f-unknown-fixture', null, null],
      ['fixture_error', 'f-unknown-role', null, null],
      ['unknown_snapshot', 's-future', 'future', null],
      ['unknown_snapshot', 's-later', 'later', null],
      ['gold_error', 'g-no-column', 'base', 0],
      ['gold_error', 'g-no-column', 'edge', 0],
      ['gold_error', 'g-role-table', 'base', 0],
      ['gold_error', 'g-role-table', 'edge', 0],
      ['gold_timeout', 't-recursive', 'base', 0],
      ['gold_timeout', 't-cross', 'edge', 0],
      ['golds_disagree', 'a-null-city', 'edge', 1],
      ['golds_disagree', 'a-bounds', 'base', 1],
      ['golds_disagree', 'a-bounds', 'edge', 1],
      ['clock_dependent_gold', 'k-now', null, 0],
      ['clock_dependent_gold', 'k-current-date', null, 0],
      ['random_dependent_gold', 'r-random', null, 0],
      ['random_dependent_gold', 'r-randomblob', null, 0],
      ['timezone_dependent_gold', 'z-utc', null, 0],
      ['timezone_dependent_gold', 'z-localtime', null, 0],
      // SQLite keeps dan on both snapshots, so the result is also the same on both.
      ['tie_at_limit', 'l-oldest', 'edge', 0],
      ['same_on_every_snapshot', 'l-oldest', null, 0],
      ['tie_at_limit', 'l-first-city', 'base', 0],
      ['tie_at_limit', 'l-first-city', 'edge', 0],
      ['same_on_every_snapshot', 'l-first-city', null, 0],
      ['tie_at_limit', 'l-sub', 'base', 0],
      ['tie_at_limit', 'l-sub', 'edge', 0],
      ['same_on_every_snapshot', 'l-sub', null, 0],
      ['limit_without_order_by', 'u-any-two', 'base', 0],
      ['limit_without_order_by', 'u-any-two', 'edge', 0],
      ['same_on_every_snapshot', 'u-any-two', null, 0],
      ['limit_without_order_by', 'u-nested', null, 0],
      ['ties_in_result', 'o-by-city', 'base', 0],
      ['ties_in_result', 'o-by-city', 'edge', 0],
      ['ties_in_result', 'o-by-amount', 'base', 0],
      ['ties_in_result', 'o-by-amount', 'edge', 0],
      ['null_sort_key', 'n-by-score', 'base', 0],
      ['null_sort_key', 'n-by-score', 'edge', 0],
      ['null_sort_key', 'n-top-scores', 'base', 0],
      ['null_sort_key', 'n-top-scores', 'edge', 0],
      ['empty_without_twin', 'e-no-city', 'base', 0],
      ['empty_without_twin', 'e-eve', 'base', 0],
      ['all_null_row', 'm-max-refund', 'base', 0],
      ['all_null_row', 'm-minors', 'base', 0],
      ['same_on_every_snapshot', 'y-bob', null, 0],
      ['same_on_every_snapshot', 'y-early', null, 0],
      ['ties_unchecked', 'q-distinct', 'base', 0],
      ['ties_unchecked', 'q-distinct', 'edge', 0],
      ['ties_unchecked', 'q-correlated', null, 0],
      ['runs_agree_against_gold', 'w-paid', 'base', 0],
      ['runs_agree_against_gold', 'w-thirty', 'base', 0],
    ]);
  });

  it('finds nothing on the clean items, though they hold ties, an empty result with a twin, two golds, a pinned clock and a role', () => {
    const clean = report.items.filter((item) => item.id.startsWith('c-')).map((item) => item.id);
    expect(clean).toEqual(['c-count', 'c-oldest', 'c-paid', 'c-refunded', 'c-open', 'c-role', 'c-two-golds', 'c-asof']);
    expect(report.findings.filter((f) => f.item?.startsWith('c-') && f.kind !== 'no_gold')).toEqual([]);
  });

  it('counts: every gold on every snapshot, items without gold counted but not audited', () => {
    expect(report.counts).toEqual({ loaded: 45, audited: 43, withoutGold: 1, golds: 46, goldRuns: 83, error: 21, warning: 23, info: 9 });
    expect(report.findings.filter((f) => f.kind === 'no_gold').map((f) => [f.item, f.severity, f.message])).toEqual([
      ['c-pending', 'warning', 'no gold_sql: the item is unscored and nothing grades it (in promptfoo its row fails with "unscored: no gold SQL"); add a gold, or make it a clarify / refuse item'],
    ]);
    expect(report.byKind.tie_at_limit).toEqual({ findings: 5, items: 3 });
    // Declining items (c-refuse) and items awaiting a gold (c-pending) are loaded, not audited.
    expect(report.items.some((item) => item.id === 'c-pending' || item.id === 'c-refuse')).toBe(false);
  });

  it('runs role items on the role-scoped copies', () => {
    const role = report.items.find((item) => item.id === 'c-role')!;
    expect(role.snapshots.map((s) => [s.name, path.basename(s.path), s.results])).toEqual([
      ['base', 'base@clerk.sqlite', [{ rows: 1 }]],
      ['edge', 'edge@clerk.sqlite', [{ rows: 1 }]],
    ]);
    expect(find('gold_error', 'g-role-table').map((f) => [f.snapshot, f.role, f.message])).toEqual([
      ['base', 'clerk', 'gold 0 fails (unknown_table): no such table: people'],
      ['edge', 'clerk', 'gold 0 fails (unknown_table): no such table: people'],
    ]);
  });

  it('names the rows: the tie at the cut, the rows a LIMIT drops, the tied rows, the NULL keys, the disagreement', () => {
    expect(find('tie_at_limit', 'l-oldest').map((f) => [f.message, f.rows])).toEqual([
      [
        'LIMIT cuts a tie of 2 rows on age = 40: keeps 1, leaves out 1',
        [
          { label: 'kept at the cut', columns: ['name'], rows: [['dan']], count: 1 },
          { label: 'left out', columns: ['name'], rows: [['fay']], count: 1 },
        ],
      ],
    ]);
    expect(find('tie_at_limit', 'l-sub')[0]!.message).toBe(
      'in the subquery at 1:48 (SELECT id FROM people WHERE city IS NOT NULL ORDER BY city …): LIMIT cuts a tie of 2 rows on city = \'x\': keeps 1, leaves out 1',
    );
    expect(find('limit_without_order_by', 'u-any-two')[0]!.rows).toEqual([
      { label: 'kept', columns: ['name'], rows: [['ann'], ['bob']], count: 2 },
      { label: 'left out', columns: ['name'], rows: [['cid'], ['dan'], ['eve']], count: 3 },
    ]);
    expect(find('limit_without_order_by', 'u-nested').map((f) => [f.message, f.details])).toEqual([
      ['LIMIT 3: without ORDER BY the rows kept are whichever the query plan reaches first', { construct: 'LIMIT 3', line: 1, column: 71 }],
    ]);
    expect(find('ties_in_result', 'o-by-amount').map((f) => f.message)).toEqual([
      'ORDER BY leaves 1 group of tied rows (2 of 5 rows) in any order; first: rows 2–3 on amount = 70',
      'ORDER BY leaves 2 groups of tied rows (4 of 8 rows) in any order; first: rows 1–2 on amount = 100',
    ]);
    expect(find('null_sort_key', 'n-by-score')[0]!.rows).toEqual([{ label: 'rows with a NULL key', columns: ['name'], rows: [['cid']], count: 1 }]);
    expect(find('golds_disagree', 'a-null-city')[0]!.rows).toEqual([
      { label: 'only gold 0 returns', columns: ['COUNT(*)'], rows: [[7]], count: 1 },
      { label: 'only gold 1 returns', columns: ['COUNT(*)'], rows: [[6]], count: 1 },
    ]);
    // Two golds compared are named as golds, not as gold and prediction.
    expect(find('golds_disagree', 'a-null-city')[0]!.message).toBe('gold 1 differs from gold 0: gold 0 [7] vs gold 1 [6]');
    expect(find('all_null_row', 'm-minors')[0]!.rows).toEqual([{ label: 'the row', columns: ['AVG(score)', 'MIN(city)'], rows: [[null, null]], count: 1 }]);
  });

  it('an empty gold passes when a twin (same shape, another value) has rows there', () => {
    expect(report.items.find((item) => item.id === 'c-refunded')!.snapshots.map((s) => s.results)).toEqual([[{ rows: 0 }], [{ rows: 1 }]]);
    expect(find('empty_without_twin', 'e-eve').map((f) => f.message)).toEqual([
      'the gold returns no rows on base and the item has no twin: any query that returns nothing passes it (add an item with the same question about a value that has rows, and name it in a pair tag)',
    ]);
  });

  it('earlier runs: two of three agree against the wrong gold; disagreeing or declining runs on clean items are no evidence', () => {
    const paid = find('runs_agree_against_gold', 'w-paid')[0]!;
    expect([paid.message, paid.rows, paid.details]).toEqual([
      "2 of 3 runs (a, b) return the same result, and L4 fails it against the gold: snapshot base: gold [1] vs predicted [3]",
      [
        { label: 'only the gold returns', columns: ['COUNT(*)'], rows: [[1]], count: 1 },
        { label: 'only the runs return', columns: ['COUNT(*)'], rows: [[3]], count: 1 },
      ],
      { runs: [{ run: 'a', sql: "SELECT COUNT(*) FROM orders WHERE status = 'paid'" }, { run: 'b', sql: "SELECT COUNT(id) FROM orders WHERE status = 'paid'" }] },
    ]);
    expect(report.items.find((item) => item.id === 'c-oldest')!.runs).toEqual([
      { run: 'a', status: 'no_sql', reason: 'declined (clarify)' },
      { run: 'b', status: 'fail', reason: "snapshot base: gold ['dan'] vs predicted ['eve']", sql: 'SELECT name FROM people ORDER BY age LIMIT 1' },
      { run: 'c', status: 'missing', reason: 'no output for item c-oldest' },
    ]);
    expect(report.items.find((item) => item.id === 'c-count')!.runs!.map((run) => run.status)).toEqual(['fail', 'fail', 'pass']);
    expect(report.runs).toEqual(RUNS.map((spec, i) => ({ spec, label: 'abc'[i], format: 'recording', outputs: i === 2 ? 4 : 5 })));
  });

  it('dataset errors keep their file:line (the offending field, else the record)', () => {
    expect(report.findings.filter((f) => f.kind === 'dataset_error').map((f) => [f.source, f.message])).toEqual([
      [`${DATASET}:46`, `${DATASET}:46: item "d-no-snapshots": snapshots must be a non-empty list of names; received an array ([])`],
      [`${DATASET}:48`, `${DATASET}:48: item "d-no-question": missing required field question`],
    ]);
  });
});
