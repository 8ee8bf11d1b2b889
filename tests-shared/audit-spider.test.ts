/**
 * `text2sql-ladder audit` on the shared Spider slice: the count
 * of each finding kind (ties at a LIMIT cut found from the data, ties inside ordered results, empty
 * golds without a twin), and `--runs` over the two published models' prediction files — the items
 * where both models agree with each other against the gold. The same two runs read through a
 * `spider --out` JSONL (its run identity names the prediction file) give the same items.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../src/audit/gold-audit.js';
import { runAuditCommand, type AuditCommandOptions } from '../src/cli/audit.js';
import { runSpiderCommand } from '../src/cli/spider.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-audit-shared-'));
const predictions = (model: string): string => path.join(slice, 'predictions', `${model}.sql`);
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };

async function audit(options: AuditCommandOptions): Promise<AuditReport> {
  const json = path.join(outDir, `audit-${Math.random().toString(36).slice(2)}.json`);
  // Warnings only (no gold errors on the slice in SQLite's legacy double-quote mode): exit 0.
  expect(await runAuditCommand(slice, { ...options, json }, quiet)).toBe(0);
  return JSON.parse(readFileSync(json, 'utf8')) as AuditReport;
}

const itemsOf = (report: AuditReport, kind: string): string[] => report.findings.filter((f) => f.kind === kind).map((f) => f.item!);

const TIES_AT_LIMIT = ['26', '27', '95', '96', '133', '134', '159', '160', '165', '166', '229', '230', '231', '232', '311', '312', '331', '332', '375', '376', '395', '396', '421', '438'];
const BOTH_AGAINST_GOLD = ['16', '54', '66', '75', '102', '112', '114', '116', '150', '159', '171', '176', '178', '214', '227', '229', '230', '242', '244', '245', '246', '361', '379', '387', '388', '420', '431', '438', '442', '473', '491', '495', '497', '501', '502'];

describe('audit of the shared Spider slice', () => {
  it('every gold runs; 24 ties at a LIMIT (2 inside a subquery), 6 unordered ties, 38 empty golds without a twin', async () => {
    const report = await audit({});
    expect(report.counts).toEqual({ loaded: 507, audited: 507, withoutGold: 0, golds: 507, goldRuns: 507, error: 0, warning: 68, info: 0 });
    expect(report.byKind).toEqual({ tie_at_limit: { findings: 24, items: 24 }, ties_in_result: { findings: 6, items: 6 }, empty_without_twin: { findings: 38, items: 38 } });
    expect(itemsOf(report, 'tie_at_limit')).toEqual(TIES_AT_LIMIT);
    expect(report.findings.filter((f) => f.kind === 'tie_at_limit' && f.message.startsWith('in the subquery')).map((f) => f.item)).toEqual(['159', '160']);
    expect(itemsOf(report, 'ties_in_result')).toEqual(['261', '262', '401', '402', '473', '474']);
    expect(itemsOf(report, 'empty_without_twin')).toEqual([
      '14', '15', '59', '60', '185', '186', '197', '198', '201', '202', '221', '222', '223', '224', '225', '226', '227', '228', '233', '234',
      '235', '236', '237', '238', '239', '240', '247', '248', '249', '250', '251', '252', '253', '254', '293', '294', '397', '398',
    ]);
    // One hand-checked example: car_1 stores horsepower as text, so ORDER BY horsepower sorts text.
    const horsepower = report.findings.find((f) => f.kind === 'tie_at_limit' && f.item === '95')!;
    expect([horsepower.snapshot, horsepower.message, horsepower.rows.map((s) => [s.label, s.count])]).toEqual([
      'car_1',
      "LIMIT cuts a tie of 17 rows on T2.horsepower = '100': keeps 1, leaves out 16",
      [['kept at the cut', 1], ['left out', 16]],
    ]);
  });

  it('--runs DIN-SQL and C3-SQL: 35 items where both agree with each other against the gold', async () => {
    const report = await audit({ runs: [predictions('DINSQL'), predictions('C3_SQL')] });
    expect(report.runs.map((run) => [run.label, run.format, run.outputs])).toEqual([['DINSQL', 'lines', 507], ['C3_SQL', 'lines', 507]]);
    expect(itemsOf(report, 'runs_agree_against_gold')).toEqual(BOTH_AGAINST_GOLD);
    // Each run is judged by L4 itself: the same correct counts as `spider --preset default`.
    const verdicts = report.items.flatMap((item) => item.runs ?? []);
    expect([verdicts.filter((v) => v.run === 'DINSQL' && v.status === 'pass').length, verdicts.filter((v) => v.run === 'C3_SQL' && v.status === 'pass').length]).toEqual([432, 425]);
  });

  it('the same runs read from a spider --out JSONL: its run identity names the prediction file', async () => {
    const out = path.join(outDir, 'DINSQL.jsonl');
    expect(await runSpiderCommand({ gold: path.join(slice, 'dev_gold.sql'), pred: predictions('DINSQL'), db: path.join(slice, 'database'), preset: 'default', keepDistinct: false, out }, quiet)).toBe(0);
    const report = await audit({ runs: [out, predictions('C3_SQL')] });
    expect(report.runs.map((run) => [run.label, run.format])).toEqual([['DINSQL', 'spider-jsonl'], ['C3_SQL', 'lines']]);
    expect(itemsOf(report, 'runs_agree_against_gold')).toEqual(BOTH_AGAINST_GOLD);
  });
});
