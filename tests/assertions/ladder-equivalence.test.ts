/**
 * One ladder: each single-rung assertion gives, on the same item and output, the verdict and the
 * reason the whole ladder gives that rung. Both recorded runs of the bundled warehouse dataset
 * (strong and weak: passes, failures at every gate, declines, items without gold, prose answers)
 * go through the `ladder` assertion as the main job configures it and through every single-rung
 * assertion with the same config; the stored records are compared rung by rung.
 *
 * Where the ladder did not run a rung for a reason that is the ladder's own (a gate that did not
 * pass blocks the rungs after it; L2 waits for L1), the single-rung assertion, which runs its rung
 * alone, is not compared; every other pair is, and each rung must be compared on many items.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import { SYNTAX_ASSERTION, syntax } from '../../assertions/syntax.js';
import { SCHEMA_ASSERTION, schema } from '../../assertions/schema.js';
import { SAFETY_ASSERTION, safety } from '../../assertions/safety.js';
import { EXECUTION_ASSERTION, execution } from '../../assertions/execution.js';
import { EFFICIENCY_ASSERTION, efficiency } from '../../assertions/efficiency.js';
import { ANSWER_GROUNDING_ASSERTION, answerGrounding } from '../../assertions/answer-grounding.js';
import type { AssertionFunction } from '../../src/promptfoo/adapter.js';
import type { RungAssertionSpec } from '../../src/promptfoo/rung-assertion.js';
import { loadTests, type PromptfooTestCase } from '../../src/promptfoo/dataset-tests.js';
import ReplayProvider from '../../src/promptfoo/replay-provider.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';
import { findLadderRecords, type LadderRecord, type RungRecord } from '../../src/report/ladder-record.js';
import { GATE_IDS, scoreNameOf, type LadderRungId } from '../../src/rungs/scores.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Each single-rung assertion, the rung it reports and its spec (the options it accepts). */
const SINGLE_RUNG: ReadonlyArray<readonly [LadderRungId, AssertionFunction, RungAssertionSpec]> = [
  ['syntax', syntax, SYNTAX_ASSERTION],
  ['schema', schema, SCHEMA_ASSERTION],
  ['safety', safety, SAFETY_ASSERTION],
  ['execution', execution, EXECUTION_ASSERTION],
  ['efficiency', efficiency, EFFICIENCY_ASSERTION],
  ['answer', answerGrounding, ANSWER_GROUNDING_ASSERTION],
];

interface Graded {
  readonly key: string;
  readonly ladder: LadderRecord;
  readonly single: ReadonlyMap<LadderRungId, RungRecord>;
}

let graded: Graded[] = [];

beforeAll(async () => {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const tests: PromptfooTestCase[] = await loadTests({ file: 'datasets/warehouse.yaml', ladder: { policy: 'default', timeoutMs: 5000, efficiency: true } });
    for (const label of ['strong', 'weak'] as const) {
      const provider = new ReplayProvider({ config: { predictions: `providers/recordings/warehouse-${label}.jsonl`, basePath: ROOT }, label });
      const rows = await Promise.all(
        tests.map(async (test) => {
          const response = await provider.callApi('', { vars: test.vars });
          if ('error' in response) throw new Error(response.error);
          const config = test.assert[0]!.config as Record<string, unknown>;
          const context = (own: Record<string, unknown>) => ({ vars: test.vars, test, config: own, providerResponse: response, provider: { id: () => provider.id(), label } });
          const ladderResult = await ladder(response.output, context(config));
          const single = new Map<LadderRungId, RungRecord>();
          for (const [rung, assertion, spec] of SINGLE_RUNG) {
            // The ladder's config, less what this assertion does not take (the ladder's own switches).
            const own = Object.fromEntries(Object.entries(config).filter(([key]) => spec.options.includes(key)));
            const result = await assertion(response.output, context(own));
            const record = findLadderRecords({ gradingResult: result }).rungs[0];
            if (record === undefined) throw new Error(`${label} ${String(test.vars['id'])}: ${rung} stored no record (${result.reason})`);
            single.set(rung, record);
          }
          const record = findLadderRecords({ gradingResult: ladderResult }).ladder;
          if (record === undefined) throw new Error(`${label} ${String(test.vars['id'])}: the ladder stored no record`);
          return { key: `${label} ${String(test.vars['id'])}`, ladder: record, single };
        }),
      );
      graded = [...graded, ...rows];
    }
  } finally {
    process.chdir(cwd);
  }
}, 300_000);

afterAll(async () => {
  await closeSharedEngine();
});

/** Why the ladder did not run `rung` for a reason of its own (a blocking gate, L2 after L1), or `undefined`. */
function blockedByLadder(record: LadderRecord, rung: LadderRungId): string | undefined {
  const result = record.rungs.find((entry) => entry.rung === rung);
  if (result?.status !== 'skipped') return undefined;
  const blocker = [...GATE_IDS, 'execution'].find((id) => result.reason === `${scoreNameOf(id)} ${record.statuses[scoreNameOf(id)]}` && id !== rung);
  return blocker !== undefined && (GATE_IDS as readonly string[]).includes(blocker) ? blocker : undefined;
}

describe('each single-rung assertion gives the verdict and reason the ladder gives its rung', () => {
  it.each(SINGLE_RUNG.map(([rung]) => rung))('%s', (rung) => {
    let compared = 0;
    const differences: string[] = [];
    for (const item of graded) {
      const single = item.single.get(rung)!;
      if (item.ladder.expectedBehavior !== 'answer') {
        // A declining item: the ladder's verdict on the decline, the same for every rung.
        const expected = item.ladder.verdict === 'pass' ? 'skipped' : 'fail';
        if (single.status !== expected) differences.push(`${item.key}: ${single.status} vs the ladder's ${item.ladder.verdict}`);
        compared += 1;
        continue;
      }
      if (item.ladder.output !== 'sql') {
        // No SQL (a missing output, a decline): the rung fails with the reason of the ladder's first rung.
        const first = item.ladder.rungs[0]!;
        if (single.status !== 'fail' || single.reason !== first.reason) differences.push(`${item.key}: ${single.status}: ${single.reason} vs fail: ${first.reason}`);
        compared += 1;
        continue;
      }
      if (blockedByLadder(item.ladder, rung) !== undefined) continue;
      const inLadder = item.ladder.rungs.find((entry) => entry.rung === rung);
      if (inLadder === undefined) {
        // Not listed on the ladder (L7 without a prose answer): the assertion skips it.
        if (single.status !== 'skipped') differences.push(`${item.key}: ${single.status} where the ladder did not list ${rung}`);
        continue;
      }
      compared += 1;
      if (single.status !== inLadder.status || single.reason !== inLadder.reason) {
        differences.push(`${item.key}: ${single.status}: ${single.reason} vs the ladder's ${inLadder.status}: ${inLadder.reason}`);
      }
    }
    expect(differences).toEqual([]);
    // 142 rows: every rung is compared on most of them (L7 on the items with a prose answer).
    expect(compared).toBeGreaterThanOrEqual(rung === 'answer' ? 40 : 100);
  });
});
