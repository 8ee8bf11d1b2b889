/**
 * The equivalence judge's part of the ladder summary, per column (provider × prompt) and judge
 * (provider id, model, prompt version): whether its verdicts count (a passing calibration), how
 * many items it was asked about and why execution could not settle them, the outcomes, the
 * disagreements a verified L5 witness overruled (counted against the judge), unreadable answers,
 * and what it cost (calls, cache hits, tokens). Read from the judge records of the ladder records.
 */
import type { JudgeRecord, JudgeState } from './ladder-record.js';

/** The order outcomes are listed in. */
export const JUDGE_STATES: readonly JudgeState[] = ['pass', 'lucky_match', 'wrong_result', 'review', 'invalid', 'uncalibrated', 'judge_error'];

/** One judge's figures over one column. */
export interface JudgeSummary {
  /** `provider (model, prompt version)`. */
  readonly judge: string;
  /** Every judged item's verdict counted (a passing calibration for this exact judge). */
  readonly calibrated: boolean;
  /** Items with a judge record, and those the judge was asked about (by route). */
  readonly items: number;
  readonly asked: number;
  readonly routes: Readonly<Record<string, number>>;
  /** Items per shown state (`uncalibrated` when the judge's verdicts do not count). */
  readonly states: Readonly<Record<string, number>>;
  /** Times the judge said "equivalent" against a verified L5 witness. */
  readonly witnessOverruled: number;
  readonly calls: number;
  readonly cacheHits: number;
  readonly tokens: number;
}

/**
 * Sums the judge records of one column, one summary per judge.
 * @returns `[]` when no record has a judge.
 */
export function summarizeJudges(records: readonly (JudgeRecord | undefined)[]): JudgeSummary[] {
  const byJudge = new Map<string, JudgeRecord[]>();
  for (const record of records) {
    if (record === undefined || record.task !== 'equivalence') continue;
    const key = `${record.judge} (${record.model ?? '?'}, ${record.promptVersion ?? '?'})`;
    byJudge.set(key, [...(byJudge.get(key) ?? []), record]);
  }
  return [...byJudge].map(([judge, list]) => {
    const asked = list.filter((record) => record.asked === true);
    const count = (values: readonly (string | undefined)[]): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const value of values) if (value !== undefined) counts[value] = (counts[value] ?? 0) + 1;
      return counts;
    };
    return {
      judge,
      calibrated: list.every((record) => record.calibrated === true),
      items: list.length,
      asked: asked.length,
      routes: count(asked.map((record) => record.route)),
      states: count(list.map((record) => record.state)),
      witnessOverruled: list.filter((record) => record.witnessOverruled === true).length,
      calls: list.reduce((sum, record) => sum + (record.calls ?? 0), 0),
      cacheHits: list.filter((record) => record.cached === true).length,
      tokens: list.reduce((sum, record) => sum + (record.tokens ?? 0), 0),
    };
  });
}

/** One summary as one table cell's lines. */
export function judgeSummaryLines(summary: JudgeSummary): string[] {
  const states = JUDGE_STATES.filter((state) => (summary.states[state] ?? 0) > 0).map((state) => `${state} ${summary.states[state]}`);
  return [
    summary.judge,
    summary.calibrated ? 'calibrated: verdicts count' : 'uncalibrated: verdicts move no score',
    `asked ${summary.asked} of ${summary.items} (${Object.entries(summary.routes).map(([route, n]) => `${route} ${n}`).join(', ') || 'none'})`,
    states.join(' · '),
    `witness overruled ${summary.witnessOverruled}`,
    `calls ${summary.calls} · cache hits ${summary.cacheHits} · tokens ${summary.tokens}`,
  ];
}
