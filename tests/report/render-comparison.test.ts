import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/report/compare-runs.js';
import { evaluateGate } from '../../src/report/comparison-gate.js';
import { comparisonJson, renderComparisonMarkdown, renderComparisonText } from '../../src/report/render-comparison.js';
import { item, run } from './helpers.js';

const baseline = run('weak', [
  item('q1', { end_to_end: 'pass', L4_execution: 'pass' }, ['trap:fan_out']),
  item('q2', { end_to_end: 'fail', L4_execution: 'fail' }, ['trap:fan_out']),
  item('q3', { end_to_end: 'pass', L4_execution: 'pass' }, ['difficulty:easy']),
  item('q4', { end_to_end: 'fail', L4_execution: 'fail' }, ['difficulty:easy']),
]);
const candidate = run('strong', [
  item('q1', { end_to_end: 'fail', L4_execution: 'fail' }, ['trap:fan_out']),
  item('q2', { end_to_end: 'pass', L4_execution: 'pass' }, ['trap:fan_out']),
  item('q3', { end_to_end: 'pass', L4_execution: 'pass' }, ['difficulty:easy']),
  item('q4', { end_to_end: 'pass', L4_execution: 'pass' }, ['difficulty:easy']),
]);
const comparison = compareRuns(baseline, candidate, { bootstrapReplicates: 2000, seed: 3, requiredIds: [{ id: 'q1', source: 'required.txt:1' }] });
const gate = evaluateGate(comparison, { failOn: 'regression', min: { end_to_end: 0.7 } });

describe('renderComparisonText', () => {
  it('runs, identity, metric table, changed items, tags, required items, gate', () => {
    expect(renderComparisonText(comparison, gate, { listLimit: 1 })).toMatchInlineSnapshot(`
      "baseline   weak.json: weak, 4 items, promptfoo result
      candidate  strong.json: strong, 4 items, promptfoo result
      items      4 paired by id
      identity   not recorded for the baseline and the candidate

      ┌──────────────┬────────┬─────────────┬─────────────┬───────┬─────────────────┬──────────┬───────────┬───────────┐
      │ metric       │ paired │ baseline    │ candidate   │ Δ pts │ 95% CI (pts)    │ improved │ regressed │ p (exact) │
      ├──────────────┼────────┼─────────────┼─────────────┼───────┼─────────────────┼──────────┼───────────┼───────────┤
      │ end_to_end   │ 4      │ 2/4 (50.0%) │ 3/4 (75.0%) │ +25.0 │ [−50.0, +100.0] │ 2        │ 1         │ 1         │
      │ L4_execution │ 4      │ 2/4 (50.0%) │ 3/4 (75.0%) │ +25.0 │ [−50.0, +100.0] │ 2        │ 1         │ 1         │
      └──────────────┴────────┴─────────────┴─────────────┴───────┴─────────────────┴──────────┴───────────┴───────────┘

      end_to_end: 1 regression, 2 improvements
        regressed q1  now: end_to_end fail (q1)
        improved  q2  was: end_to_end fail (q2)
        … and 1 more improved (--list-limit 0 lists all; --format json has every item)

      L4_execution: 1 regression, 2 improvements
        regressed q1  now: L4_execution fail (q1)
        improved  q2  was: L4_execution fail (q2)
        … and 1 more improved (--list-limit 0 lists all; --format json has every item)

      ┌──────────────────┬────────┬─────────────┬──────────────┬───────┬──────────────────┬──────────┬───────────┬───────────┐
      │ tag (end_to_end) │ paired │ baseline    │ candidate    │ Δ pts │ 95% CI (pts)     │ improved │ regressed │ p (exact) │
      ├──────────────────┼────────┼─────────────┼──────────────┼───────┼──────────────────┼──────────┼───────────┼───────────┤
      │ difficulty:easy  │ 2      │ 1/2 (50.0%) │ 2/2 (100.0%) │ +50.0 │ [0.0, +100.0]    │ 1        │ 0         │ 1         │
      │ trap:fan_out     │ 2      │ 1/2 (50.0%) │ 1/2 (50.0%)  │ 0.0   │ [−100.0, +100.0] │ 1        │ 1         │ 1         │
      └──────────────────┴────────┴─────────────┴──────────────┴───────┴──────────────────┴──────────┴───────────┴───────────┘
      2 of 2 tags changed (p-values per tag are not corrected for multiple comparisons)

      required items (1, must pass end_to_end in the candidate):
        fail     q1  [required.txt:1]  end_to_end fail (q1)

      paired bootstrap: 2000 replicates, seed 3, 95% percentile interval; p: two-sided exact McNemar on the discordant pairs
      gate: FAIL
        FAIL  end_to_end: 1 regression (q1)
        pass  end_to_end ≥ 70.0%: candidate 3/4 = 75.0%
        FAIL  required items: 1 of 1 do not pass in the candidate (q1 fail)
      "
    `);
  });
});

describe('renderComparisonMarkdown', () => {
  it('gate first, tables, folded details; pipes and HTML in reasons are escaped', () => {
    const withPipes = compareRuns(run('a', [item('x|1', { end_to_end: 'pass' })]), { ...run('b', []), items: [{ id: 'x|1', tags: [], metrics: { end_to_end: { status: 'fail', reason: 'a | b <script>' } } }] }, { bootstrapReplicates: 0 });
    expect(renderComparisonMarkdown(withPipes, evaluateGate(withPipes))).toContain('| regressed | `x\\|1` | end_to_end pass (x\\|1) | a \\| b &lt;script&gt; |');
    expect(renderComparisonMarkdown(comparison, gate, { midP: true })).toMatchInlineSnapshot(`
      "### text2sql-ladder compare: weak → strong

      **Gate: ❌ failed**

      - ❌ end_to_end: 1 regression (q1)
      - ✅ end_to_end ≥ 70.0%: candidate 3/4 = 75.0%
      - ❌ required items: 1 of 1 do not pass in the candidate (q1 fail)

      > ⚠️ **Run identity missing:** the baseline records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked

      > ⚠️ **Run identity missing:** the candidate records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked

      | metric | paired | baseline | candidate | Δ pts | 95% CI (pts) | improved | regressed | p (exact) | mid-p |
      |---|--:|--:|--:|--:|--:|--:|--:|--:|--:|
      | \`end_to_end\` | 4 | 2/4 (50.0%) | 3/4 (75.0%) | +25.0 | [−50.0, +100.0] | 2 | 1 | 1 | 0.625 |
      | \`L4_execution\` | 4 | 2/4 (50.0%) | 3/4 (75.0%) | +25.0 | [−50.0, +100.0] | 2 | 1 | 1 | 0.625 |

      4 items paired by id. Rates are over the items graded on the metric in both runs; Δ and the interval in percentage points; p: two-sided exact McNemar on the discordant pairs.

      <details open><summary>end_to_end: 1 regression, 2 improvements</summary>

      | change | item | baseline | candidate |
      |---|---|---|---|
      | regressed | \`q1\` | end_to_end pass (q1) | end_to_end fail (q1) |
      | improved | \`q2\` | end_to_end fail (q2) | end_to_end pass (q2) |
      | improved | \`q4\` | end_to_end fail (q4) | end_to_end pass (q4) |

      </details>

      <details><summary>L4_execution: 1 regression, 2 improvements</summary>

      | change | item | baseline | candidate |
      |---|---|---|---|
      | regressed | \`q1\` | L4_execution pass (q1) | L4_execution fail (q1) |
      | improved | \`q2\` | L4_execution fail (q2) | L4_execution pass (q2) |
      | improved | \`q4\` | L4_execution fail (q4) | L4_execution pass (q4) |

      </details>

      <details><summary>By tag (end_to_end): 2 of 2 tags changed</summary>

      | tag | paired | baseline | candidate | Δ pts | 95% CI (pts) | improved | regressed | p (exact) | mid-p |
      |---|--:|--:|--:|--:|--:|--:|--:|--:|--:|
      | \`difficulty:easy\` | 2 | 1/2 (50.0%) | 2/2 (100.0%) | +50.0 | [0.0, +100.0] | 1 | 0 | 1 | 0.5 |
      | \`trap:fan_out\` | 2 | 1/2 (50.0%) | 1/2 (50.0%) | 0.0 | [−100.0, +100.0] | 1 | 1 | 1 | 1 |

      Per-tag p-values are not corrected for multiple comparisons.

      </details>

      <details open><summary>Required items: 0 of 1 pass</summary>

      | item | status | marked by | candidate |
      |---|---|---|---|
      | \`q1\` | fail | required.txt:1 | end_to_end fail (q1) |

      </details>

      <details><summary>Runs</summary>

      |  | baseline | candidate |
      |---|---|---|
      | run | \`weak.json\` | \`strong.json\` |
      | provider | weak | strong |
      | prompt | — | — |
      | dataset | — | — |
      | snapshots | — | — |
      | policy | — | — |
      | package | — | — |
      | recorded | — | — |

      Paired bootstrap: 2000 replicates, seed 3, 95% percentile interval.

      </details>
      "
    `);
  });
});

describe('comparisonJson', () => {
  it('is the comparison plus the gate', () => {
    const json = comparisonJson(comparison, gate);
    expect(Object.keys(json)).toEqual(['baseline', 'candidate', 'items', 'identityDifferences', 'metrics', 'sliceMetric', 'tags', 'required', 'settings', 'gate']);
    expect(JSON.parse(JSON.stringify(json)).gate.pass).toBe(false);
  });
});
