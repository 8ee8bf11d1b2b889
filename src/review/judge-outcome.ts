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
import { isObject } from '../objects.js';
import type { LadderRecord } from '../report/ladder-record.js';

/** The judge's per-item outcomes and states. */
export const JUDGE_OUTCOMES = ['invalid', 'pass', 'lucky_match', 'wrong_result', 'review', 'uncalibrated', 'judge_error'] as const;

/** One of {@link JUDGE_OUTCOMES}. */
export type JudgeOutcomeName = (typeof JUDGE_OUTCOMES)[number];

/** The outcomes that go to the review queue (under a passing calibration only). */
export const QUEUED_OUTCOMES = ['review', 'lucky_match'] as const;

/** One of {@link QUEUED_OUTCOMES}. */
export type QueuedOutcome = (typeof QUEUED_OUTCOMES)[number];

/** What the queue keeps of the judge's verdict on an item. */
export interface JudgeOutcomeView {
  readonly outcome: JudgeOutcomeName;
  /** True when a passing calibration record covered this judge (provider, model, prompt hash). */
  readonly calibrated: boolean;
  /** Provider id (`openai:gpt-4.1`, `file://judge.js`, `function`). */
  readonly provider: string;
  readonly model: string | null;
  readonly promptVersion: string | null;
  /** `sha256:<hex>` of the prompt template. */
  readonly promptHash: string | null;
  /** The differences the judge listed before its verdict. */
  readonly differences: readonly string[];
  /** The judge's answer; `null` when it gave none (an error). */
  readonly equivalent: boolean | null;
  /** Why it was asked: possible lucky match, EX failure, no database. */
  readonly route: string | null;
  /** True when a verified L5 witness overruled an "equivalent" answer. */
  readonly witnessOverruled: boolean;
}

/**
 * The judge outcome stored in `record.judgeOutcome`, or `undefined` when the item was not judged
 * (or the entry is not readable). Never throws.
 */
export function readJudgeOutcome(record: LadderRecord): JudgeOutcomeView | undefined {
  const entry = (record as unknown as Record<string, unknown>)['judgeOutcome'];
  if (!isObject(entry)) return undefined;
  const outcome = entry['outcome'];
  if (typeof outcome !== 'string' || !(JUDGE_OUTCOMES as readonly string[]).includes(outcome)) return undefined;
  const text = (key: string): string | null => (typeof entry[key] === 'string' ? (entry[key] as string) : null);
  const differences = Array.isArray(entry['differences']) ? (entry['differences'] as unknown[]).filter((d): d is string => typeof d === 'string') : [];
  return {
    outcome: outcome as JudgeOutcomeName,
    calibrated: entry['calibrated'] === true,
    provider: text('provider') ?? 'unknown judge',
    model: text('model'),
    promptVersion: text('promptVersion'),
    promptHash: text('promptHash'),
    differences,
    equivalent: typeof entry['equivalent'] === 'boolean' ? entry['equivalent'] : null,
    route: text('route'),
    witnessOverruled: entry['witnessOverruled'] === true,
  };
}

/** The queued outcome of a judged item: `review` or `lucky_match` under a passing calibration, else `undefined`. */
export function queuedOutcomeOf(view: JudgeOutcomeView | undefined): QueuedOutcome | undefined {
  if (view === undefined || !view.calibrated) return undefined;
  return (QUEUED_OUTCOMES as readonly string[]).includes(view.outcome) ? (view.outcome as QueuedOutcome) : undefined;
}
