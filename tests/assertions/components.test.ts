import { describe, expect, it } from 'vitest';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { components } from '../../assertions/components.js';

const GOLD = "SELECT region, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' AND status = 'paid' GROUP BY region ORDER BY total DESC LIMIT 5";
const PRED = "SELECT region, SUM(amount) FROM orders WHERE status = 'paid' GROUP BY region ORDER BY SUM(amount) DESC LIMIT 5";

function context(vars: Record<string, unknown> = {}, config?: Record<string, unknown>): AssertionContext {
  return { vars: { id: 'c-1', gold_sql: GOLD, ...vars }, ...(config ? { config } : {}), providerResponse: { metadata: {} } };
}

describe('components assertion', () => {
  it('passes (never gates) and reports every clause as a named score', async () => {
    const result = await components(PRED, context());
    expect(result.pass).toBe(true);
    expect(result.score).toBeCloseTo((7 + 2 / 3) / 8, 12);
    expect(result.namedScores).toMatchObject({ components_where: 0.6667, components_order_by: 1, spider_where: 0 });
    expect(result.reason).toBe('clauses below 1 against gold 0: where 0.67');
    expect(result.componentResults?.[0]?.assertion).toEqual({ type: 'javascript', value: 'assertions/components.ts:components' });
  });

  it('offers the seed behaviour and a threshold that makes it gate', async () => {
    const seed = await components(PRED, context({}, { aliasResolution: 'seed', threshold: 0.9 }));
    expect(seed.namedScores?.['components_order_by']).toBe(0);
    expect(seed.pass).toBe(false);
    expect(seed.componentResults?.[0]?.pass).toBe(false);
  });

  it('skips, with the reason, what it cannot diagnose', async () => {
    const declined = await components(JSON.stringify({ action: 'refuse', message: 'no' }), context());
    expect([declined.pass, declined.reason, declined.namedScores]).toEqual([true, 'skipped: the provider declined (refuse): no SQL to diagnose', undefined]);
    const noGold = await components('SELECT 1', context({ gold_sql: [] }));
    expect(noGold.reason).toBe('skipped: the item has no gold_sql to compare with');
    const clarify = await components('SELECT 1', context({ expected_behavior: 'clarify' }));
    expect(clarify.reason).toBe('skipped: clarify item: diagnostics compare SQL answers only');
    const unparsable = await components('SELECT (', context());
    expect(unparsable.reason).toMatch(/^skipped: predicted SQL: parse error: /);
  });

  it('throws for a misspelt or invalid option (an ERROR row, not a failing one)', async () => {
    await expect(components(PRED, context({}, { aliasresolution: 'seed' }))).rejects.toThrow(/config\.aliasresolution is not an option \(did you mean config\.aliasResolution\?\)/);
    await expect(components(PRED, context({}, { aliasResolution: 'maybe' }))).rejects.toThrow(/config\.aliasResolution/);
    await expect(components(PRED, context({}, { threshold: 2 }))).rejects.toThrow('config.threshold must be a number in [0, 1]; received a number (2) (in assertions/components.ts:components)');
  });
});
