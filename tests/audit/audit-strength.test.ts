/**
 * `audit --strength`: fixture strength per item, from the semantic library's neighbour queries
 * measured on the item's snapshots only (tests/audit/strength-dataset.yaml on the seeded fixture).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAuditSource } from '../../src/audit/audit-source.js';
import { auditGolds } from '../../src/audit/gold-audit.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';

const HERE = import.meta.dirname;
const FIXTURES = path.join(HERE, 'fixtures');
const cacheDir = mkdtempSync(path.join(tmpdir(), 'ladder-audit-strength-'));
const runtime = createLadderRuntime({ engine: { poolSize: 2 }, fixtures: { fixturesDir: FIXTURES } });
afterAll(async () => {
  await runtime.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('audit --strength', () => {
  it('measures every item; only the items with neighbours the snapshots cannot tell apart are findings, with the survivors', async () => {
    const source = await readAuditSource(path.join(HERE, 'strength-dataset.yaml'), { runtime, fixturesDir: FIXTURES });
    const report = await auditGolds(source, { runtime, strength: { cacheDir } });
    expect(report.items.map((item) => [item.id, item.strength])).toEqual([
      ['c-count', { neighbours: 2, distinguished: 2, strength: 1 }],
      ['c-paid', { neighbours: 46, distinguished: 46, strength: 1 }],
      ['w-fifty', { neighbours: 18, distinguished: 17, strength: 17 / 18 }],
      ['w-over-24', { neighbours: 18, distinguished: 16, strength: 16 / 18 }],
    ]);
    expect(report.strength).toEqual({ neighbours: 84, distinguished: 81, strength: 81 / 84 });
    expect(report.findings.map((f) => [f.kind, f.severity, f.item, f.snapshot, f.message])).toEqual([
      ['weak_fixture', 'info', 'w-fifty', 'base, edge', 'the snapshots tell 17 of 18 neighbour queries apart from the gold (94.4%); not: literal: `50` → `49`'],
      ['weak_fixture', 'info', 'w-over-24', 'base, edge', 'the snapshots tell 16 of 18 neighbour queries apart from the gold (88.9%); not: swap_comparison: `>` → `>=`; literal: `24` → `23`'],
    ]);
    expect(report.findings[1]!.details!['survivors']).toEqual([
      { gold: 0, kind: 'swap_comparison', description: '`>` → `>=`', sql: 'SELECT COUNT(*) FROM people WHERE age >= 24' },
      { gold: 0, kind: 'literal', description: '`24` → `23`', sql: 'SELECT COUNT(*) FROM people WHERE age > 23' },
    ]);
  }, 120_000);
});
