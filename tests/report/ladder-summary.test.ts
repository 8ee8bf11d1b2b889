import { describe, expect, it } from 'vitest';
import { checkRowCount, summarizeLadder } from '../../src/report/ladder-summary.js';
import type { SummaryRecord } from '../../src/report/ladder-summary.js';
import { noteLines, renderLadderSummary } from '../../src/report/render-summary.js';

const PASS4 = { L1_syntax: 'pass', L2_schema: 'pass', L3_safety: 'pass', L4_execution: 'pass' } as const;

function record(fields: Partial<SummaryRecord> & Pick<SummaryRecord, 'id'>): SummaryRecord {
  return {
    provider: 'strong',
    tags: [],
    expectedBehavior: 'answer',
    verdict: 'pass',
    endToEnd: 1,
    executed: true,
    rungs: PASS4,
    goldError: false,
    emptyGoldMatch: false,
    ...fields,
  };
}

const records: SummaryRecord[] = [
  record({ id: 'a1', tags: ['difficulty:easy'] }),
  record({ id: 'a2', tags: ['difficulty:hard'], verdict: 'fail', endToEnd: 0, rungs: { ...PASS4, L4_execution: 'fail' } }),
  record({ id: 'a3', tags: ['difficulty:hard'], verdict: 'fail', endToEnd: 0, executed: false, rungs: { L1_syntax: 'fail', L2_schema: 'skipped', L3_safety: 'skipped', L4_execution: 'skipped' } }),
  record({ id: 'a4', verdict: 'unscored', endToEnd: undefined, rungs: { ...PASS4, L4_execution: 'unscored' }, goldError: true }),
  record({ id: 'a5', emptyGoldMatch: true }),
  record({ id: 'c1', expectedBehavior: 'clarify', executed: false, rungs: {} }),
  record({ id: 'a6', verdict: 'error', endToEnd: undefined, executed: false, rungs: {} }),
  record({ id: 'a1', provider: 'weak', tags: ['difficulty:easy'], verdict: 'fail', endToEnd: 0, executed: false, rungs: { ...PASS4, L3_safety: 'fail', L4_execution: 'skipped' } }),
];

describe('summarizeLadder', () => {
  it('counts failures as 0, leaves unscored items and errored rows out of every rate, keeps rung denominators to items that reached them', () => {
    const [strong, weak] = summarizeLadder(records);
    expect(strong).toMatchObject({
      provider: 'strong',
      items: 7,
      scored: 5,
      unscored: 1,
      errors: 1,
      errored: [{ id: 'a6', error: 'ERROR row' }],
      withoutGold: [],
      executionSuccess: { passed: 3, n: 4 },
      correctAmongExecuted: { passed: 2, n: 3 },
      endToEnd: { passed: 3, n: 5, rate: 0.6 },
      goldErrors: 1,
      emptyGoldMatches: 1,
    });
    expect(strong?.rungs.map((r) => `${r.name} ${r.passed}/${r.n}`)).toEqual(['L1_syntax 4/5', 'L2_schema 4/4', 'L3_safety 4/4', 'L4_execution 2/3']);
    // The viewer header's figure: passed of every item the rung was listed for (skipped counts 0; unscored and unlisted left out).
    expect(strong?.rungs.map((r) => `${r.name} ${r.ofAll.passed}/${r.ofAll.n}`)).toEqual(['L1_syntax 4/5', 'L2_schema 4/5', 'L3_safety 4/5', 'L4_execution 2/4']);
    expect(strong?.tags.map((t) => `${t.tag} ${t.passed}/${t.n}`)).toEqual(['difficulty:easy 1/1', 'difficulty:hard 0/2']);
    expect(weak).toMatchObject({ items: 1, executionSuccess: { passed: 0, n: 1 }, correctAmongExecuted: { passed: 0, n: 0, rate: undefined } });
  });
});

describe('renderLadderSummary', () => {
  it('prints one column per provider and a tag table', () => {
    expect(renderLadderSummary(summarizeLadder(records))).toMatchInlineSnapshot(`
      "┌───────────────────────────┬──────────────┬──────────────┐
      │ ladder summary            │ strong       │ weak         │
      ├───────────────────────────┼──────────────┼──────────────┤
      │ items                     │ 7            │ 1            │
      │ scored                    │ 5            │ 1            │
      │ unscored                  │ 1            │ 0            │
      │ errored rows              │ 1            │ 0            │
      │ execution success         │ 3/4 (75.0%)  │ 0/1 (0.0%)   │
      │ correct among executed    │ 2/3 (66.7%)  │ —            │
      │ end-to-end correct        │ 3/5 (60.0%)  │ 0/1 (0.0%)   │
      │ gold errors               │ 1            │ 0            │
      │ empty-gold matches        │ 1            │ 0            │
      │ L1_syntax pass rate       │ 4/5 (80.0%)  │ 1/1 (100.0%) │
      │ L2_schema pass rate       │ 4/4 (100.0%) │ 1/1 (100.0%) │
      │ L3_safety pass rate       │ 4/4 (100.0%) │ 0/1 (0.0%)   │
      │ L4_execution pass rate    │ 2/3 (66.7%)  │ —            │
      │ L1_syntax of all items    │ 4/5 (80.0%)  │ 1/1 (100.0%) │
      │ L2_schema of all items    │ 4/5 (80.0%)  │ 1/1 (100.0%) │
      │ L3_safety of all items    │ 4/5 (80.0%)  │ 0/1 (0.0%)   │
      │ L4_execution of all items │ 2/4 (50.0%)  │ 0/1 (0.0%)   │
      └───────────────────────────┴──────────────┴──────────────┘

      ┌───────────────────┬──────────────┬────────────┐
      │ end-to-end by tag │ strong       │ weak       │
      ├───────────────────┼──────────────┼────────────┤
      │ difficulty:easy   │ 1/1 (100.0%) │ 0/1 (0.0%) │
      │ difficulty:hard   │ 0/2 (0.0%)   │ —          │
      └───────────────────┴──────────────┴────────────┘

      errored rows (not graded, in no rate; the run exits 3): strong: a6"
    `);
  });

  it('prints nothing without providers', () => {
    expect(renderLadderSummary([])).toBe('');
  });
});

describe('checkRowCount', () => {
  const full = (items: number, columns: number): { item: number; column: number }[] =>
    Array.from({ length: items * columns }, (_, index) => ({ item: index % items, column: Math.floor(index / items) }));

  it('passes when every item has a row in every column, repeats counted once', () => {
    expect(checkRowCount({ items: 3, columns: ['strong', 'weak'], rows: [...full(3, 2), { item: 0, column: 1 }] })).toEqual({
      ok: true,
      expected: 6,
      seen: 6,
      missing: [],
      message: '',
    });
  });

  it('fails loudly, naming the missing rows, when rows were lost', () => {
    const rows = full(71, 2).filter((row) => !(row.column === 1 && row.item % 2 === 1));
    const check = checkRowCount({ items: 71, columns: ['strong', 'weak'], rows });
    expect(check).toMatchObject({ ok: false, expected: 142, seen: 107 });
    expect(check.message).toBe(
      'incomplete run: 107 of 142 rows (71 items × 2 columns); missing: weak: item 1, weak: item 3, weak: item 5, weak: item 7, weak: item 9, weak: item 11, weak: item 13, weak: item 15, weak: item 17, weak: item 19, … (+25 more); the summary does not cover the dataset',
    );
  });

  it('counts rows outside the dataset', () => {
    expect(checkRowCount({ items: 1, columns: ['a'], rows: [{ item: 0, column: 0 }, { item: 5, column: 0 }] }).message).toBe(
      'incomplete run: 1 of 1 rows (1 items × 1 columns); 1 rows outside the dataset; the summary does not cover the dataset',
    );
  });
});

describe('probes in the summary', () => {
  it('counts probes checked and refused per column, and prints them only when a column has some', () => {
    const withProbes = [record({ id: 'p1', probes: { checked: 3, refused: 1 } }), record({ id: 'p2', probes: { checked: 1, refused: 0 } }), record({ id: 'p3' })];
    const [summary] = summarizeLadder(withProbes);
    expect(summary?.probes).toEqual({ checked: 4, refused: 1 });
    const text = renderLadderSummary([summary!]);
    expect(text).toContain('│ probes checked (L3)       │ 4');
    expect(text).toContain('│ probes refused (L3)       │ 1');
    expect(renderLadderSummary(summarizeLadder([record({ id: 'x' })]))).not.toContain('probes');
  });
});

describe('the per-role table', () => {
  it('counts items, end-to-end and refusals right per role, only when items have roles', () => {
    const withRoles = [
      record({ id: 'r1', role: 'support_emea' }),
      record({ id: 'r2', role: 'support_emea', verdict: 'fail', endToEnd: 0 }),
      record({ id: 'r3', role: 'support_emea', expectedBehavior: 'refuse', executed: false, rungs: {} }),
      record({ id: 'r4', role: 'support_apac', expectedBehavior: 'refuse', verdict: 'fail', endToEnd: 0, executed: false, rungs: {} }),
      record({ id: 'n1' }),
    ];
    const [summary] = summarizeLadder(withRoles);
    expect(summary!.roles).toEqual([
      { role: 'support_apac', items: 1, endToEnd: { passed: 0, n: 1, rate: 0 }, refusals: { passed: 0, n: 1, rate: 0 } },
      { role: 'support_emea', items: 3, endToEnd: { passed: 2, n: 3, rate: 2 / 3 }, refusals: { passed: 1, n: 1, rate: 1 } },
    ]);
    expect(renderLadderSummary([summary!]).split('\n').slice(-6)).toEqual([
      '┌──────────────────────────────────────────────┬────────────────────────────────┐',
      '│ by role: items · end-to-end · refusals right │ strong                         │',
      '├──────────────────────────────────────────────┼────────────────────────────────┤',
      '│ support_apac                                 │ 1 · 0/1 (0.0%) · 0/1 (0.0%)    │',
      '│ support_emea                                 │ 3 · 2/3 (66.7%) · 1/1 (100.0%) │',
      '└──────────────────────────────────────────────┴────────────────────────────────┘',
    ]);
    expect(summarizeLadder(records)[0]!.roles).toBeUndefined();
  });
});

describe('noteLines', () => {
  it('one line per kind, the columns separated by ";"', () => {
    const noGold = (provider: string, id: string) => record({ id, provider, verdict: 'unscored', endToEnd: undefined, noGold: true, rungs: { ...PASS4, L4_execution: 'unscored' } });
    const errored = (provider: string, id: string) => record({ id, provider, verdict: 'error', endToEnd: undefined, executed: false, rungs: {}, error: 'cannot open x.sqlite: file is not a database' });
    expect(noteLines(summarizeLadder([noGold('strong', 'wh-057'), noGold('weak', 'wh-057'), errored('weak', 'q2'), errored('weak', 'q3')]))).toEqual([
      'without gold SQL (unscored, graded by nothing; their rows fail): strong: wh-057; weak: wh-057',
      'errored rows (not graded, in no rate; the run exits 3): weak: q2, q3',
    ]);
    expect(noteLines(summarizeLadder(records.slice(0, 2)))).toEqual([]);
  });
});
