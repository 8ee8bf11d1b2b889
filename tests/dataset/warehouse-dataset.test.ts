import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import type { DatasetItem } from '../../src/dataset/load.js';
import { verifyDatasetGolds } from '../../src/audit/verify-golds.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';
import type { ItemCheck } from '../../src/audit/verify-golds.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { TRAPS } from './traps.js';

const DATASET = path.resolve(import.meta.dirname, '../../datasets/warehouse.yaml');
const SNAPSHOTS = ['base', 'later', 'edge'];
/** Multisets of rows, columns compared in the order written. */
const TRAP_POLICY = resolvePolicy({ rowOrder: 'ignore', columnOrder: 'significant' });

const runtime = createLadderRuntime({ engine: { poolSize: 2 } });
afterAll(() => runtime.close());

let items: DatasetItem[];
let checks: Map<string, ItemCheck>;
beforeAll(async () => {
  const loaded = await loadDataset(DATASET);
  expect(loaded.errors).toEqual([]);
  items = loaded.items;
  checks = new Map((await verifyDatasetGolds(items, { runtime })).map((c) => [c.id, c]));
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
    const outcome = await runtime.engine().execute({ db: analyst.snapshots[0]!.path, sql: 'SELECT email, phone FROM users' });
    expect(outcome.ok ? 'ran' : outcome.error.message).toBe('no such table: users');
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
    // The trap as a prediction, judged per snapshot on its multiset of rows (column order as written).
    const result = await checkExecution({
      predictedSql: trap.sql,
      golds: [item.gold_sql[0]!],
      snapshots: fixture.snapshots,
      engine: runtime.engine(),
      policy: TRAP_POLICY,
      cache: runtime.goldCache,
    });
    const errors = result.details.snapshots.filter((s) => s.predictedError !== undefined).map((s) => `${s.snapshot}: ${s.predictedError!.message}`);
    expect(errors, id).toEqual([]);
    expect(result.details.goldErrors, id).toEqual([]);
    expect(result.details.snapshots.filter((s) => s.verdict?.match !== true).map((s) => s.snapshot)).toEqual(trap.differsOn);
  });
});
