/**
 * The gold audit of the bundled warehouse dataset, each finding checked by hand:
 * - `same_on_every_snapshot` (10 notes): the answers of wh-001, wh-004, wh-007, wh-016, wh-025,
 *   wh-029 and wh-046 do not depend on what later and edge add, and wh-008, wh-012 and wh-048 are
 *   empty on every snapshot by design (their twins wh-009, wh-013, wh-049 have rows, so no
 *   `empty_without_twin`). True, and no defect: these items test the question, not the data drift.
 * - with the two recorded runs, `runs_agree_against_gold` (3 warnings): wh-026 (both runs keep one
 *   of the two customers tied on edge; the question asks for every tied customer), wh-031 (both
 *   subtract a NULL discount, so edge's NULL-discount lines drop out of the sum) and wh-041 (both
 *   count by the UTC order_date, not the New York date). The gold is right each time: the runs
 *   share the mistake the item's trap was written for.
 * - `no_gold` (1 warning): wh-057 has no gold yet (pending review), so nothing grades it.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAuditRun } from '../../src/audit/audit-runs.js';
import { readAuditSource } from '../../src/audit/audit-source.js';
import { auditGolds } from '../../src/audit/gold-audit.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const runtime = createLadderRuntime({ engine: { poolSize: 2 } });
afterAll(() => runtime.close());

describe('audit of datasets/warehouse.yaml', () => {
  it('every gold on every snapshot and role: no error; the gold-less wh-057 named; ten golds whose result no snapshot changes', async () => {
    const source = await readAuditSource(path.join(ROOT, 'datasets/warehouse.yaml'), { runtime });
    const recordings = ['strong', 'weak'].map((name) => readAuditRun(path.join(ROOT, `providers/recordings/warehouse-${name}.jsonl`)));
    const report = await auditGolds(source, { runtime, runs: recordings });
    expect(report.counts).toEqual({ loaded: 71, audited: 60, withoutGold: 1, golds: 91, goldRuns: 273, error: 0, warning: 4, info: 10 });
    expect(report.findings.map((f) => [f.kind, f.item, f.snapshot])).toEqual([
      ['no_gold', 'wh-057', null],
      ['same_on_every_snapshot', 'wh-001', null],
      ['same_on_every_snapshot', 'wh-004', null],
      ['same_on_every_snapshot', 'wh-007', null],
      ['same_on_every_snapshot', 'wh-008', null],
      ['same_on_every_snapshot', 'wh-012', null],
      ['same_on_every_snapshot', 'wh-016', null],
      ['same_on_every_snapshot', 'wh-025', null],
      ['runs_agree_against_gold', 'wh-026', 'edge'],
      ['same_on_every_snapshot', 'wh-029', null],
      ['runs_agree_against_gold', 'wh-031', 'edge'],
      ['runs_agree_against_gold', 'wh-041', 'edge'],
      ['same_on_every_snapshot', 'wh-046', null],
      ['same_on_every_snapshot', 'wh-048', null],
    ]);
    expect(report.findings.filter((f) => f.kind === 'runs_agree_against_gold').map((f) => [f.item, f.message, f.rows.map((s) => [s.label, s.rows])])).toEqual([
      ['wh-026', '2 of 2 runs (warehouse-strong, warehouse-weak) return the same result, and L4 fails it against the gold: snapshot edge: gold 0: prediction has 1 row, gold has 2; 1 missing row: gold [9, \'Litware Inc\', 62]', [['only the gold returns', [[9, 'Litware Inc', 62]]]]],
      ['wh-031', '2 of 2 runs (warehouse-strong, warehouse-weak) return the same result, and L4 fails it against the gold: snapshot edge: gold [32835.75] vs predicted [20512.5]', [['only the gold returns', [[32835.75]]], ['only the runs return', [[20512.5]]]]],
      ['wh-041', '2 of 2 runs (warehouse-strong, warehouse-weak) return the same result, and L4 fails it against the gold: snapshot edge: gold [5] vs predicted [4]', [['only the gold returns', [[5]]], ['only the runs return', [[4]]]]],
    ]);
    // Role items ran on their role copies.
    const support = report.items.find((item) => item.id === 'wh-016')!;
    expect(support.snapshots.map((s) => path.basename(s.path))).toEqual(['base@support.sqlite', 'later@support.sqlite', 'edge@support.sqlite']);
  }, 120_000);
});
