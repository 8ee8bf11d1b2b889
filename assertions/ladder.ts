/**
 * `ladder` assertion: L1 syntax (SQLite's prepare is the authority) → L2 schema existence → L3
 * read-only single-query gate → L4 execution across the item's snapshots and golds under the
 * configured policy; then, when enabled, L5 semantic (the distilled test suite and the
 * counterexample search, after a passed L4), L6 efficiency (after a passed L4) and L7 answer grounding
 * (when the output has a prose answer). Gates short-circuit: later rungs are skipped — left out of
 * their named scores and named in the reason — and `end_to_end` is 0. `clarify` / `refuse` items pass
 * when the provider declines and never run anything. Rules: src/rungs/ladder.ts; result shape:
 * src/promptfoo/ladder-result.ts; options: src/promptfoo/config.ts.
 *
 * ```yaml
 * assert:
 *   - type: javascript
 *     value: file://assertions/ladder.ts:ladder          # or package:text2sql-ladder:assertions.ladder
 *     config:
 *       policy: default            # or spider / bird / { preset: default, floatTolerance: {...} }
 *       timeoutMs: 5000
 *       safety: { maxLimit: 1000, allowedTables: role }   # off by default
 *       semantic: true                                     # L5, off by default (or { suite, search, seed, ... })
 *       efficiency: true                                   # L6, off by default
 *       judge: { provider: openai:chat:gpt-4.1, share: rows }  # LLM equivalence judge, off by default (docs/judge.md)
 * ```
 */
import { createLadderRungs, executionFacts } from '../src/rungs/ladder-rungs.js';
import { guardAssertion } from '../src/promptfoo/adapter.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { LADDER_OPTIONS, readAssertionOptions } from '../src/promptfoo/config.js';
import { readItem } from '../src/promptfoo/item.js';
import { runItemLadder } from '../src/promptfoo/item-ladder.js';
import { itemEngine } from '../src/promptfoo/item.js';
import { resolveEquivalenceJudge } from '../src/promptfoo/judge-provider.js';
import { equivalenceJudgeIdentity, runJudgeStep } from '../src/judge/equivalence/judge-step.js';
import type { JudgeConfig } from '../src/judge/equivalence/judge-options.js';
import { findPassingCalibration, type CalibrationLookup } from '../src/judge/calibration-record.js';
import type { AssertionItem } from '../src/promptfoo/item.js';
import type { JudgeRecord } from '../src/report/ladder-record.js';
import type { LadderResult } from '../src/rungs/ladder.js';
import { effectiveFixtureLocation, promptfooConfigDir, readFixtureLocation } from '../src/promptfoo/fixture-location.js';
import { optionReader } from '../src/options.js';
import { ladderScoreNames, toLadderGradingResult } from '../src/promptfoo/ladder-result.js';
import { promptfooRuntime } from '../src/promptfoo/runtime.js';
import { createSemanticRung } from '../src/semantic/semantic-rung.js';
import { OPTIONAL_RUNG_IDS } from '../src/rungs/scores.js';

/** This assertion's file, named in misuse errors. */
export const LADDER_FILE = 'assertions/ladder.ts:ladder';

/** The options the ladder accepts (src/promptfoo/config.ts). */
export { LADDER_OPTIONS };

/** promptfoo assertion: the whole ladder on the provider output. */
export function ladder(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return guardAssertion(LADDER_FILE, async () => {
    const ctx = context ?? {};
    const options = readAssertionOptions(ctx.config, LADDER_OPTIONS);
    const item = await readItem(ctx, true);
    const switchedOn = Object.fromEntries(OPTIONAL_RUNG_IDS.map((id) => [id, options[id] !== undefined]));
    const semantic = options.semantic !== undefined && item.expectedBehavior === 'answer' ? createSemanticRung(options.semantic, promptfooRuntime().semantic()) : undefined;
    // The fixture's declared invariants come from the same folder its snapshots were resolved in.
    const location = effectiveFixtureLocation(readFixtureLocation(optionReader(ctx.config, { prefix: 'config.' }), promptfooConfigDir()));
    const invariants = semantic !== undefined && item.db !== undefined ? await promptfooRuntime().fixtureInvariants(item.db, location) : undefined;
    const result = await runItemLadder({
      output,
      context: ctx,
      item,
      options,
      // Every optional rung of the score table whose option is on; L5 as the entry made above.
      rungs: createLadderRungs({ ...switchedOn, semantic: semantic ?? false, answerInEndToEnd: options.answerInEndToEnd }),
      extra: {
        ...(options.efficiency !== undefined ? { efficiencyOptions: options.efficiency } : {}),
        ...(options.answer !== undefined ? { answerOptions: options.answer } : {}),
        ...(invariants !== undefined ? { invariants } : {}),
      },
    });
    const judged = options.judge !== undefined && item.expectedBehavior === 'answer' ? await judgeItem(options.judge, result, item) : undefined;
    return toLadderGradingResult(judged?.result ?? result, {
      ...(judged !== undefined ? { judge: judged.record } : {}),
      id: item.id,
      snapshots: item.snapshots.map((snapshot) => snapshot.name),
      facts: executionFacts(result.results.execution),
      scoreNames: ladderScoreNames(switchedOn),
      ...(item.role !== undefined ? { role: item.role } : {}),
    });
  });
}

/** Calibration lookups by (judge, record locations, thresholds). */
const calibrations = new Map<string, CalibrationLookup>();

/** The equivalence judge's step on the item (after the rungs): its record and the ladder's result under it. */
async function judgeItem(config: JudgeConfig, result: LadderResult, item: AssertionItem): Promise<{ record: JudgeRecord; result: LadderResult } | undefined> {
  const judge = await resolveEquivalenceJudge(config);
  // The calibration is looked up once per judge and record location in the process, not per row.
  const key = JSON.stringify([equivalenceJudgeIdentity(judge), config.calibration, config.thresholds]);
  let calibration = calibrations.get(key);
  if (calibration === undefined) {
    calibration = findPassingCalibration(equivalenceJudgeIdentity(judge), config.calibration, config.thresholds);
    calibrations.set(key, calibration);
  }
  const step = await runJudgeStep(
    { ladder: result, question: item.question ?? '', golds: item.golds, snapshots: item.snapshots, ...(item.snapshots.length > 0 ? { engine: await itemEngine(item) } : {}) },
    {
      judge,
      calibration,
      ...(config.share !== undefined ? { share: config.share } : {}),
      ...(config.maxRows !== undefined ? { maxRows: config.maxRows } : {}),
      ...(config.redactColumns !== undefined ? { redactColumns: config.redactColumns } : {}),
      ...(config.trivialRows !== undefined ? { trivialRows: config.trivialRows } : {}),
      ...(config.cache !== undefined ? { cache: config.cache } : {}),
    },
  );
  if (step === undefined) return undefined;
  const judgedResult = { ...result, endToEnd: step.endToEnd, verdict: step.verdict };
  return { record: step.record, result: judgedResult };
}
