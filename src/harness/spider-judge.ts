/**
 * The equivalence judge on a Spider-format run (`text2sql-ladder spider --judge`): each scored
 * item is routed as the ladder's judge step routes it (src/judge/equivalence/judge-step.ts) from
 * what the run established — L4's result, and with `--test-suite` L5's verdict on the EX matches,
 * whose verified witness always wins — and gets one judge record, the ladder record's `judge`.
 *
 * Spider files carry no question: the prompt says so. Verdicts move no EX or test-suite figure;
 * a calibrated verdict is the item's `end_to_end` under the judge (`record.score`), counted only
 * in the judge summary.
 */
import { summarizeJudges } from '../report/judge-summary.js';
import type { Engine } from '../engine/engine.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { JudgeOutcome, JudgeRecord, JudgeState } from '../report/ladder-record.js';
import type { LadderResult } from '../rungs/ladder.js';
import type { ExecutionDetails } from '../rungs/execution.js';
import type { RungResult } from '../rungs/rung-result.js';
import type { SemanticDetails } from '../rungs/semantic-details.js';
import type { SpiderGoldItem, SpiderPrediction } from '../benchmarks/spider/read-spider-files.js';
import { DEFAULT_CALIBRATION_THRESHOLDS, findPassingCalibration, type CalibrationLookup } from '../judge/calibration-record.js';
import { equivalenceJudgeIdentity, runJudgeStep, type JudgeStepOptions } from '../judge/equivalence/judge-step.js';
import { errorText, truncate } from '../format.js';
import type { SpiderItemVerdict } from './evaluate-spider.js';

/** The question the judge is shown for a Spider item (gold files hold none). */
export const SPIDER_NO_QUESTION = '(not given: a Spider-format gold file holds no question; judge the two queries on the schema)';

/** L5's verdict on an item, as `--test-suite` reports it. */
export interface SpiderItemSemantic {
  readonly status: 'pass' | 'fail' | 'unscored' | null;
  readonly reason: string | null;
  readonly details: SemanticDetails | null;
}

/** Inputs of {@link judgeSpiderItems}. */
export interface JudgeSpiderInput {
  readonly gold: readonly SpiderGoldItem[];
  readonly predictions: readonly SpiderPrediction[];
  readonly items: readonly SpiderItemVerdict[];
  /** L4's result per item (`evaluateSpider`'s `results`; `null` for an item L4 did not run). */
  readonly results: readonly (RungResult<ExecutionDetails> | null)[];
  /** L5's verdict per item (`--test-suite`), if it ran. */
  readonly semantic?: readonly (SpiderItemSemantic | undefined)[];
  readonly snapshotsOf: (dbId: string) => Promise<Snapshot[]>;
  readonly engine: Engine;
  readonly options: JudgeStepOptions;
  /** Items judged at once (default 4). */
  readonly concurrency?: number;
  readonly onItem?: (done: number, total: number) => void;
}

/** Counts of a judged Spider run (see {@link formatSpiderJudgeSummary}). */
export interface SpiderJudgeSummary {
  readonly judge: string;
  readonly model: string;
  readonly calibrated: boolean;
  /** The record file that counts, or why none does. */
  readonly calibration: string;
  /** Items with a record. */
  readonly judged: number;
  /** Items the judge was asked about (the rest execution settled). */
  readonly asked: number;
  /** Items per shown state (the outcome when calibrated, else `uncalibrated`; `judge_error`). */
  readonly states: Readonly<Record<JudgeState, number>>;
  /** Items per outcome, counted or not. */
  readonly outcomes: Readonly<Record<JudgeOutcome, number>>;
  readonly witnessOverruled: number;
  readonly calls: number;
  readonly cacheHits: number;
  readonly tokens: number;
  /** Calibrated only: items whose end_to_end under the judge is 1, of the judged ones. */
  readonly passed: number | null;
}

const OUTCOMES: readonly JudgeOutcome[] = ['invalid', 'pass', 'lucky_match', 'wrong_result', 'review'];
const STATES: readonly JudgeState[] = [...OUTCOMES, 'uncalibrated', 'judge_error'];

/**
 * Judges every scored item of a Spider run.
 * @returns one record per item, in gold order (`undefined` for an item with nothing to judge: not
 *   scored, no SQL), and the summary.
 * @throws LadderError `invalid_option` for a bad judge option; never for the judge's failures
 *   (`judge_error` in the record) or a database that cannot be read (a `judge_error` naming it).
 */
export async function judgeSpiderItems(input: JudgeSpiderInput): Promise<{ records: (JudgeRecord | undefined)[]; summary: SpiderJudgeSummary }> {
  // One calibration lookup for the run: every item names the same judge.
  const lookup: CalibrationLookup = Array.isArray(input.options.calibration) || input.options.calibration === undefined
    ? findPassingCalibration(equivalenceJudgeIdentity(input.options.judge), (input.options.calibration as readonly string[] | undefined) ?? [], input.options.thresholds ?? DEFAULT_CALIBRATION_THRESHOLDS)
    : (input.options.calibration as CalibrationLookup);
  const options: JudgeStepOptions = { ...input.options, calibration: lookup };
  const total = input.items.length;
  const records = new Array<JudgeRecord | undefined>(total).fill(undefined);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const index = next;
      next += 1;
      records[index] = await judgeOne(input, index, options);
      done += 1;
      input.onItem?.(done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, input.concurrency ?? 4), Math.max(1, total)) }, worker));
  return { records, summary: summarizeSpiderJudge(records, input.options.judge, lookup) };
}

/** One item's record; `options.calibration` is the run's lookup. */
async function judgeOne(input: JudgeSpiderInput, index: number, options: JudgeStepOptions): Promise<JudgeRecord | undefined> {
  const item = input.items[index]!;
  const execution = input.results[index];
  const sql = input.predictions[index]?.sql;
  const gold = input.gold[index]!;
  if (item.exec === null || execution === null || execution === undefined || sql === undefined || sql === '') return undefined;
  const l5 = input.semantic?.[index];
  const semantic: RungResult<SemanticDetails> | undefined =
    l5 === undefined || l5.status === null || l5.details === null ? undefined : { rung: 'semantic', status: l5.status, score: l5.status === 'pass' ? 1 : 0, reason: l5.reason ?? '', issues: [], namedScores: {}, details: l5.details };
  // The run as the ladder would report it with L4 (and L5) only: what the judge step routes on.
  const verdict = item.exec === 1 && semantic?.status !== 'fail' ? 'pass' : 'fail';
  const ladder = {
    verdict,
    endToEnd: verdict === 'pass' ? 1 : 0,
    expectedBehavior: 'answer',
    answer: { kind: 'sql', sql, source: 'text' },
    rungs: semantic === undefined ? [execution] : [execution, semantic],
    results: { execution, ...(semantic === undefined ? {} : { semantic }) },
    reason: semantic?.status === 'fail' ? semantic.reason : execution.reason,
  } as unknown as LadderResult;
  try {
    const snapshots = await input.snapshotsOf(gold.dbId);
    const step = await runJudgeStep({ ladder, question: SPIDER_NO_QUESTION, golds: [gold.sql], candidate: sql, snapshots, engine: input.engine }, options);
    return step?.record;
  } catch (error) {
    const message = `the judge step failed on this item: ${truncate(errorText(error), 500)}`;
    const lookup = options.calibration as CalibrationLookup;
    return { judge: options.judge.id, task: 'equivalence', model: options.judge.model, verdict: 'unreadable', score: null, reason: `judge_error: ${message}`, state: 'judge_error', outcome: null, asked: false, equivalent: null, differences: [], witnessOverruled: false, calibrated: lookup.record !== undefined, calibration: lookup.file ?? lookup.reason, calls: 0, cached: false, tokens: 0, error: message };
  }
}

/** Aggregates the records of one judge (see {@link SpiderJudgeSummary}). */
export function summarizeSpiderJudge(records: readonly (JudgeRecord | undefined)[], judge: { readonly id: string; readonly model: string }, lookup: CalibrationLookup): SpiderJudgeSummary {
  const judged = records.filter((record): record is JudgeRecord => record !== undefined);
  const states = Object.fromEntries(STATES.map((state) => [state, judged.filter((record) => record.state === state).length])) as Record<JudgeState, number>;
  const outcomes = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, judged.filter((record) => record.outcome === outcome).length])) as Record<JudgeOutcome, number>;
  const calibrated = lookup.record !== undefined;
  // Asked, overruled and cost are the ladder summary's counts (one judge per run: one group).
  const counts = summarizeJudges(judged)[0];
  return {
    judge: judge.id,
    model: judge.model,
    calibrated,
    calibration: lookup.file ?? lookup.reason,
    judged: judged.length,
    asked: counts?.asked ?? 0,
    states,
    outcomes,
    witnessOverruled: counts?.witnessOverruled ?? 0,
    calls: counts?.calls ?? 0,
    cacheHits: counts?.cacheHits ?? 0,
    tokens: counts?.tokens ?? 0,
    passed: calibrated ? judged.filter((record) => record.score === 1).length : null,
  };
}

/**
 * The judge block printed after the Spider summary: the judge, whether its verdicts count, the
 * outcome counts (shown `if counted` when uncalibrated), and the cost.
 */
export function formatSpiderJudgeSummary(summary: SpiderJudgeSummary): string {
  const o = summary.outcomes;
  let text = '\n=====================   EQUIVALENCE JUDGE      =====================\n';
  text += `judge ${summary.judge}${summary.model === summary.judge ? '' : ` (model ${summary.model})`}: ${summary.calibrated ? `calibrated (${summary.calibration})` : `uncalibrated, its verdicts move no score (${summary.calibration})`}\n`;
  text += `${summary.judged} items judged, ${summary.asked} asked (the rest settled by execution)`;
  if (summary.witnessOverruled > 0) text += `, ${summary.witnessOverruled} overruled by an L5 witness`;
  text += '\n';
  text += `${summary.calibrated ? 'outcomes' : 'outcomes if it counted'}: pass ${o.pass} | invalid ${o.invalid} | lucky_match ${o.lucky_match} | wrong_result ${o.wrong_result} | review ${o.review}`;
  if (summary.states.judge_error > 0) text += ` | judge_error ${summary.states.judge_error}`;
  text += '\n';
  if (summary.passed !== null) text += `end_to_end under the judge: ${summary.passed} of ${summary.judged} (review is not a pass until a person accepts it)\n`;
  text += `judge calls ${summary.calls} | cache hits ${summary.cacheHits} | tokens ${summary.tokens}\n`;
  return text;
}
