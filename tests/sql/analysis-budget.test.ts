import { describe, expect, it } from 'vitest';
import {
  checkAnalysisBudget,
  MAX_SQL_CHARS,
  sqlSizeOverBudget,
  withinAnalysisBudget,
} from '../../src/sql/analysis-budget.js';

describe('withinAnalysisBudget', () => {
  it('returns the value of an analysis that ends in time', () => {
    expect(withinAnalysisBudget(() => 42)).toEqual({ ok: true, value: 42 });
  });

  it('ends an analysis past its deadline at the next check', () => {
    const outcome = withinAnalysisBudget(() => {
      for (;;) checkAnalysisBudget();
    }, 20);
    expect(outcome).toEqual({ ok: false, reason: 'not analysed within budget: the analysis took more than 20 ms' });
  });

  it('turns a stack overflow into a budget reason', () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    expect(withinAnalysisBudget(() => recurse(0))).toEqual({ ok: false, reason: 'not analysed within budget: the analysis ran out of stack (the query nests too deeply)' });
  });

  it('lets other errors through', () => {
    expect(() => withinAnalysisBudget(() => {
      throw new TypeError('misuse');
    })).toThrow('misuse');
  });

  it('never extends an outer deadline from an inner budget', () => {
    const outcome = withinAnalysisBudget(() => withinAnalysisBudget(() => {
      for (;;) checkAnalysisBudget();
    }, 60_000), 20);
    expect(outcome).toEqual({ ok: true, value: { ok: false, reason: 'not analysed within budget: the analysis took more than 20 ms' } });
  });

  it('does nothing outside a budget', () => {
    for (let i = 0; i < 1_000; i += 1) checkAnalysisBudget();
  });
});

describe('the size budget', () => {
  it('measures the text', () => {
    expect(sqlSizeOverBudget('x'.repeat(MAX_SQL_CHARS))).toBeUndefined();
    expect(sqlSizeOverBudget('x'.repeat(MAX_SQL_CHARS + 1))).toBe('not analysed within budget: the SQL text is 100001 characters; the analysis reads at most 100000');
  });

});
