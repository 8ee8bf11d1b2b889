import { describe, expect, it } from 'vitest';
import { summarizeProcess, type ProcessRecordInput } from '../../src/report/process-summary.js';

const metrics = (values: Partial<Record<string, number>>) => ({ steps: 0, executions: 0, schemaCalls: 0, failedExecutions: 0, clarifications: 0, initialError: 0, ...values }) as Record<string, number>;
const item = (fields: Partial<ProcessRecordInput> & { trajectory?: Record<string, number> }): ProcessRecordInput => ({ tags: [], expectedBehavior: 'answer', verdict: 'pass', endToEnd: 1, output: 'sql', ...fields });

describe('summarizeProcess', () => {
  it('is absent when no record carries trajectory metrics', () => {
    expect(summarizeProcess([item({})])).toBeUndefined();
  });

  it('counts means, totals, error recovery and clarify vs guess exactly', () => {
    const summary = summarizeProcess([
      // A retry that succeeds: initial error, recovered.
      item({ tags: ['hard'], trajectory: metrics({ steps: 3, executions: 2, schemaCalls: 1, failedExecutions: 1, initialError: 1, rowsScanned: 200, bytesScanned: 4096 }) }),
      // An error on the last step, not recovered.
      item({ tags: ['hard'], verdict: 'fail', endToEnd: 0, trajectory: metrics({ steps: 2, executions: 2, failedExecutions: 2, initialError: 1, overBudget: 1 }) }),
      // No steps at all.
      item({ trajectory: metrics({}) }),
      // An unscored item with an initial error is in no recovery figure.
      item({ verdict: 'unscored', endToEnd: undefined, trajectory: metrics({ executions: 1, steps: 1, failedExecutions: 1, initialError: 1, unmeasured: 1 }) }),
      // Over-asking: a clear item with a clarifying step.
      item({ trajectory: metrics({ steps: 1, clarifications: 1 }) }),
      // Only a clarification, on an ambiguous item: asked.
      item({ expectedBehavior: 'clarify', output: 'declined:clarify', trajectory: metrics({ clarifications: 1 }) }),
      // A guess on an ambiguous item.
      item({ expectedBehavior: 'clarify', output: 'sql', verdict: 'fail', endToEnd: 0, trajectory: metrics({ steps: 1, executions: 1 }) }),
      // An errored row is in no figure.
      item({ verdict: 'error', trajectory: metrics({ executions: 9 }) }),
    ]);
    expect(summary).toEqual({
      items: 7,
      executionsPerQuestion: 6 / 7,
      schemaCallsPerQuestion: 1 / 7,
      stepsPerQuestion: 8 / 7,
      failedExecutions: 4,
      errorRecovery: { passed: 1, n: 2, rate: 0.5 },
      rowsScanned: 200,
      bytesScanned: 4096,
      unmeasuredProbes: 1,
      overBudget: 1,
      clarifyAsked: { passed: 1, n: 2, rate: 0.5 },
      clarifyGuessed: { passed: 1, n: 2, rate: 0.5 },
      overAsking: { passed: 1, n: 5, rate: 0.2 },
      tags: [
        {
          tag: 'hard',
          items: 2,
          executionsPerQuestion: 2,
          schemaCallsPerQuestion: 0.5,
          stepsPerQuestion: 2.5,
          failedExecutions: 3,
          errorRecovery: { passed: 1, n: 2, rate: 0.5 },
          rowsScanned: 200,
          bytesScanned: 4096,
          unmeasuredProbes: 0,
          overBudget: 1,
        },
      ],
    });
  });

  it('always asking and never asking both score badly', () => {
    const clear = (clarifications: number) => item({ output: clarifications > 0 ? 'declined:clarify' : 'sql', trajectory: metrics({ clarifications }) });
    const ambiguous = (asked: boolean) => item({ expectedBehavior: 'clarify', output: asked ? 'declined:clarify' : 'sql', trajectory: metrics({ clarifications: asked ? 1 : 0 }) });
    const always = summarizeProcess([clear(1), clear(1), ambiguous(true)])!;
    const never = summarizeProcess([clear(0), clear(0), ambiguous(false)])!;
    expect([always.clarifyAsked.rate, always.overAsking.rate]).toEqual([1, 1]);
    expect([never.clarifyAsked.rate, never.overAsking.rate, never.clarifyGuessed.rate]).toEqual([0, 0, 1]);
  });
});
