/**
 * The equivalence judge's per-item outcome as the review queue reads it from a stored ladder
 * record. The judge step writes it (src/judge/); this module only reads it, so the queue never
 * decides an outcome itself.
 *
 * Outcomes follow the flowchart of *Text-to-SQL Evals* §6: `invalid`, `pass`, `lucky_match`,
 * `wrong_result`, `review` (human review: possibly a new valid gold), plus the states
 * `uncalibrated` (the judge ran without a passing calibration record: it moves no score) and
 * `judge_error`.
 */
import type { JudgeOutcome, JudgeRoute, JudgeState, LadderRecord } from '../report/ladder-record.js';

/** The judge's per-item outcomes and states (src/report/ladder-record.ts). */
export type JudgeOutcomeName = JudgeState;

/** The outcomes that go to the review queue (under a passing calibration only). */
export const QUEUED_OUTCOMES = ['review', 'lucky_match'] as const satisfies readonly JudgeOutcome[];

/** One of {@link QUEUED_OUTCOMES}. */
export type QueuedOutcome = (typeof QUEUED_OUTCOMES)[number];

/** What the queue keeps of the judge's verdict on an item. */
export interface JudgeOutcomeView {
  /** What is shown for the item: a flowchart outcome, `uncalibrated` or `judge_error`. */
  readonly outcome: JudgeOutcomeName;
  /** The flowchart outcome under the judge, also when uncalibrated; `null` on `judge_error`. */
  readonly wouldBe: JudgeOutcome | null;
  /** True when a passing calibration record covered this judge (provider, model, prompt hash). */
  readonly calibrated: boolean;
  /** Provider id (`openai:gpt-4.1`, `file://judge.js`, `function`). */
  readonly provider: string;
  readonly model: string | null;
  readonly promptVersion: string | null;
  /** SHA-256 (hex) of the prompt template. */
  readonly promptHash: string | null;
  /** The differences the judge listed before its verdict. */
  readonly differences: readonly string[];
  /** The judge's answer; `null` when it gave none (an error). */
  readonly equivalent: boolean | null;
  /** Why it was asked. */
  readonly route: JudgeRoute | null;
  /** True when a verified L5 witness overruled an "equivalent" answer. */
  readonly witnessOverruled: boolean;
}

/**
 * The equivalence judge's verdict stored in the record (`record.judge` with `task: 'equivalence'`),
 * or `undefined` when the item was not judged, execution settled it (the judge was not asked), or
 * another judge wrote the entry. Never throws.
 */
export function readJudgeOutcome(record: LadderRecord): JudgeOutcomeView | undefined {
  const judge = record.judge;
  if (judge === undefined || judge.task !== 'equivalence' || judge.state === undefined || judge.asked === false) return undefined;
  return {
    outcome: judge.state,
    wouldBe: judge.outcome ?? null,
    calibrated: judge.calibrated === true,
    provider: judge.judge,
    model: judge.model ?? null,
    promptVersion: judge.promptVersion ?? null,
    promptHash: judge.promptHash ?? null,
    differences: judge.differences ?? [],
    equivalent: judge.equivalent ?? null,
    route: judge.route ?? null,
    witnessOverruled: judge.witnessOverruled === true,
  };
}

/** The queued outcome of a judged item: `review` or `lucky_match` under a passing calibration, else `undefined`. */
export function queuedOutcomeOf(view: JudgeOutcomeView | undefined): QueuedOutcome | undefined {
  if (view === undefined || !view.calibrated) return undefined;
  return (QUEUED_OUTCOMES as readonly string[]).includes(view.outcome) ? (view.outcome as QueuedOutcome) : undefined;
}
