import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import type { DatasetItem } from '../../src/dataset/load.js';
import { canonicalMultiset, runQuery, verifyDatasetGolds } from '../../src/dataset/verify-golds.js';
import type { ItemCheck } from '../../src/dataset/verify-golds.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { TRAPS } from './traps.js';

const DATASET = path.resolve(import.meta.dirname, '../../datasets/warehouse.yaml');
const SNAPSHOTS = ['base', 'later', 'edge'];

let items: DatasetItem[];
let checks: Map<string, ItemCheck>;
beforeAll(async () => {
  const loaded = await loadDataset(DATASET);
  expect(loaded.errors).toEqual([]);
  items = loaded.items;
  checks = new Map((await verifyDatasetGolds(items)).map((c) => [c.id, c]));
});

const tagValues = (key: string): string[] =>
  items.flatMap((i) => {
    const value = i.tags[key];
    return value === undefined ? [] : Array.isArray(value) ? [...(value as string[])] : [String(value)];
  });

describe('datasets/warehouse.yaml', () => {
  it('has 71 items: 60 scored answers, 1 unscored, 5 clarify, 5 refuse', () => {
    expect(items.length).toBe(71);
    const count = (behavior: string, scored: boolean): number => items.filter((i) => i.expected_behavior === behavior && i.scored === scored).length;
    expect([count('answer', true), count('answer', false), count('clarify', true), count('refuse', true)]).toEqual([60, 1, 5, 5]);
    expect(items.filter((i) => !i.scored).map((i) => i.id)).toEqual(['wh-057']);
  });

  it('covers every category, trap and definition the issue asks for', () => {
    expect(new Set(tagValues('category'))).toEqual(new Set(['filter', 'join', 'aggregation', 'ranking', 'period', 'definition', 'rbac', 'clarify', 'refuse']));
    for (const trap of ['wrong_entity', 'average_of_averages', 'fan_out', 'wrong_grain', 'dropped_ties', 'case_mismatch', 'relative_period', 'fiscal_vs_calendar', 'inclusive_bounds', 'time_zone', 'soft_delete', 'test_account', 'cancelled_orders']) {
      expect(tagValues('trap'), trap).toContain(trap);
    }
    expect(new Set(tagValues('needs_business_definition'))).toEqual(new Set(['net_revenue', 'active_customer', 'churned_customer', 'refund_rate']));
    expect(tagValues('golds').length).toBeGreaterThanOrEqual(15);
    expect(new Set(items.filter((i) => i.role !== undefined).map((i) => i.role))).toEqual(new Set(['analyst', 'finance', 'support']));
  });

  it('gives every question with a relative period an as_of_date', () => {
    const relative = /last (quarter|month|year|\d+ days)|so far|year to date|this year|current fiscal/i;
    const missing = items.filter((i) => relative.test(i.question) && i.as_of_date === undefined).map((i) => i.id);
    expect(missing).toEqual([]);
  });

  it('runs every gold on every snapshot without error, and several golds of one item agree on each', () => {
    const scored = items.filter((i) => i.gold_sql.length > 0);
    expect(checks.size).toBe(scored.length);
    const problems = [...checks.values()].flatMap((c) => c.problems.map((p) => `${c.id}: ${p}`));
    expect(problems).toEqual([]);
    for (const item of scored) {
      const check = checks.get(item.id)!;
      expect(check.snapshots.map((s) => s.snapshot)).toEqual(item.snapshots ?? SNAPSHOTS);
      expect(check.snapshots.every((s) => s.runs.length === item.gold_sql.length && s.agree)).toBe(true);
    }
  });

  it('runs role items on their role-scoped snapshots', async () => {
    for (const item of items.filter((i) => i.role !== undefined && i.gold_sql.length > 0)) {
      const check = checks.get(item.id)!;
      expect(check.snapshots.map((s) => path.basename(s.path))).toEqual(SNAPSHOTS.map((s) => `${s}@${item.role}.sqlite`));
    }
    // The refused PII requests really are out of reach for their role.
    const analyst = await resolveFixture('warehouse', { role: 'analyst' });
    expect(runQuery(analyst.snapshots[0]!.path, 'SELECT email, phone FROM users')).toEqual({ ok: false, error: 'no such table: users' });
  });

  it('names in gold_tables only tables its golds mention', () => {
    for (const item of items.filter((i) => i.gold_sql.length > 0)) {
      expect(item.gold_tables.length, item.id).toBeGreaterThan(0);
      for (const table of item.gold_tables) {
        expect(item.gold_sql.some((sql) => new RegExp(`\\b${table}\\b`, 'i').test(sql)), `${item.id}: ${table}`).toBe(true);
      }
    }
  });

  it('empty golds are exactly where tagged, and each has a twin that is never empty', () => {
    for (const item of items.filter((i) => i.gold_sql.length > 0)) {
      const emptyOn = checks.get(item.id)!.snapshots.filter((s) => s.empty).map((s) => s.snapshot);
      const tagged = item.tags['empty_gold'];
      expect(emptyOn, item.id).toEqual(tagged === undefined ? [] : tagged);
    }
    const emptyItems = items.filter((i) => i.tags['empty_gold'] !== undefined);
    expect(emptyItems.map((i) => i.id)).toEqual(['wh-008', 'wh-010', 'wh-012', 'wh-048']);
    for (const item of emptyItems) {
      const twin = items.find((i) => i.id === item.tags['pair']);
      expect(twin?.tags['pair'], item.id).toBe(item.id);
      expect(checks.get(twin!.id)!.snapshots.every((s) => !s.empty)).toBe(true);
    }
  });

  it('lists a wrong query for every trap-tagged item, and no other', () => {
    const trapped = items.filter((i) => i.tags['trap'] !== undefined).map((i) => i.id);
    expect(Object.keys(TRAPS).sort()).toEqual(trapped.sort());
  });

  it.each(Object.entries(TRAPS))('%s: the trap (%s) differs from the gold exactly on its snapshots', async (id, trap) => {
    const item = items.find((i) => i.id === id)!;
    const fixture = await resolveFixture(item.db, item.role !== undefined ? { role: item.role } : {});
    const differs: string[] = [];
    for (const snapshot of fixture.snapshots) {
      const gold = runQuery(snapshot.path, item.gold_sql[0]!);
      const wrong = runQuery(snapshot.path, trap.sql);
      if (!gold.ok || !wrong.ok) throw new Error(`${id} on ${snapshot.name}: ${gold.ok ? '' : gold.error} ${wrong.ok ? '' : wrong.error}`);
      if (canonicalMultiset(gold.result.rows).join('\n') !== canonicalMultiset(wrong.result.rows).join('\n')) differs.push(snapshot.name);
    }
    expect(differs).toEqual(trap.differsOn);
  });
});
