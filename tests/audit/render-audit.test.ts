import { describe, expect, it } from 'vitest';
import { createFinding } from '../../src/audit/audit-finding.js';
import type { AuditReport } from '../../src/audit/gold-audit.js';
import { auditJson, renderAuditMarkdown, renderAuditText } from '../../src/audit/render-audit.js';

const tie = (item: string) =>
  createFinding({ kind: 'tie_at_limit', item, source: `d.yaml:${item}`, snapshot: 'base', gold: 0, message: 'LIMIT cuts a tie of 2 rows on n = 1: keeps 1, leaves out 1', rows: [{ label: 'left out', columns: ['id'], rows: [[9007199254740993n]], count: 4 }] });
const report: AuditReport = {
  input: { kind: 'dataset', path: 'd.yaml' },
  policy: 'default',
  counts: { loaded: 3, audited: 3, withoutGold: 0, golds: 3, goldRuns: 3, error: 0, warning: 2, info: 1 },
  byKind: { tie_at_limit: { findings: 2, items: 2 }, same_on_every_snapshot: { findings: 1, items: 1 } },
  items: [],
  findings: [tie('a'), tie('b'), createFinding({ kind: 'same_on_every_snapshot', item: 'c', gold: 0, message: 'returns the same 1 row on base, edge', rows: [{ label: 'on every snapshot', columns: ['x'], rows: [[new Uint8Array([10, 27])]], count: 1 }] })],
  runs: [],
};

describe('render-audit', () => {
  it('--list-limit lists the first findings of each kind and counts the rest; rows print as SQL literals with the true count', () => {
    const text = renderAuditText(report, { listLimit: 1, rows: 1 });
    expect(text).toContain('left out (4): (9007199254740993); … 3 more');
    expect(text).toContain("on every snapshot (1): (x'0a1b')");
    expect(text).not.toContain('│ b ');
    expect(text.endsWith('… 1 more finding (--list-limit 0 lists all; --format json has every one)\n')).toBe(true);
  });

  it('--severity warning leaves notes out of the list, not the headline', () => {
    const markdown = renderAuditMarkdown(report, { severity: 'warning' });
    expect(markdown).toContain('**0 errors, 2 warnings, 1 note**');
    expect(markdown).not.toContain('| info | `same_on_every_snapshot` | c |');
  });

  it('JSON keeps integers beyond 2^53 exact and blobs as hex', () => {
    const json = JSON.parse(auditJson(report)) as { findings: { rows: { rows: unknown[][] }[] }[] };
    expect(json.findings[0]!.rows[0]!.rows).toEqual([[{ bigint: '9007199254740993' }]]);
    expect(json.findings[2]!.rows[0]!.rows).toEqual([[{ blob: '0a1b' }]]);
  });
});
