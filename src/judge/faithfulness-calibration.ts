/**
 * Calibrates the faithfulness judge on labelled answers (src/dataset/labelled-answers.ts): asks it
 * once per answer, counts its verdicts against the labels with "faithful" as the positive label
 * (TPR: grounded answers it calls faithful; TNR: ungrounded answers it calls unfaithful), and
 * writes the same calibration record the equivalence judge has (src/judge/calibration-record.ts,
 * statistics from src/judge/judge-statistics.ts), tied to the provider, its model and the
 * faithfulness prompt's version and hash. Only with a passing record does the judge's verdict move
 * L7's score (assertions/answer-grounding.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LabelledAnswer } from '../dataset/labelled-answers.js';
import { CALIBRATION_RECORD_VERSION, calibrationFailures, DEFAULT_CALIBRATION_THRESHOLDS, type CalibrationRecord, type CalibrationThresholds, type CategoryFigures } from './calibration-record.js';
import { confusionOf, judgeStatistics } from './judge-statistics.js';
import { DEFAULT_JUDGE_MAX_ROWS, faithfulnessJudgeIdentity, runFaithfulnessJudge, type JudgeProvider } from './faithfulness.js';

/** Options of {@link calibrateFaithfulnessJudge}. */
export interface FaithfulnessCalibrationOptions {
  /** The labelled file as the user named it (recorded with its digest). */
  readonly labelsFile: string;
  readonly thresholds?: CalibrationThresholds;
  /** Result rows shown to the judge per answer (default 20, as in the assertion). */
  readonly maxRows?: number;
  /** Answers judged at once (default 4). */
  readonly concurrency?: number;
  /** The clock of `createdAt` (tests). */
  readonly now?: () => Date;
}

/**
 * Runs the judge on every labelled answer and builds its calibration record. A reply that cannot
 * be read counts as a wrong answer (and in `errors`).
 * @returns the record; `passed` says whether it meets the thresholds (`failures` why not).
 * @throws only what reading `labelsFile` throws (its digest is recorded).
 */
export async function calibrateFaithfulnessJudge(provider: JudgeProvider, answers: readonly LabelledAnswer[], options: FaithfulnessCalibrationOptions): Promise<CalibrationRecord> {
  const thresholds = options.thresholds ?? DEFAULT_CALIBRATION_THRESHOLDS;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const judged: (boolean | null)[] = new Array(answers.length).fill(null);
  let tokens = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < answers.length) {
      const index = next;
      next += 1;
      const answer = answers[index]!;
      const judgement = await runFaithfulnessJudge(provider, { question: answer.question, sql: answer.sql, columns: answer.columns, rows: answer.rows as never, answer: answer.answer }, options.maxRows ?? DEFAULT_JUDGE_MAX_ROWS);
      judged[index] = judgement.verdict.ok ? judgement.verdict.faithful : null;
      tokens += tokensOf(judgement.tokenUsage);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, answers.length) }, worker));
  const pairs = answers.map((answer, index) => ({ answer, label: answer.label === 'grounded', judged: judged[index] ?? null }));
  const statistics = judgeStatistics(confusionOf(pairs));
  const failures = calibrationFailures(statistics, thresholds);
  const categories: Record<string, CategoryFigures> = {};
  for (const pair of pairs) {
    const previous = categories[pair.answer.category] ?? { pairs: 0, positives: 0, negatives: 0, correct: 0, errors: 0 };
    categories[pair.answer.category] = {
      pairs: previous.pairs + 1,
      positives: previous.positives + (pair.label ? 1 : 0),
      negatives: previous.negatives + (pair.label ? 0 : 1),
      correct: previous.correct + (pair.judged === pair.label ? 1 : 0),
      errors: previous.errors + (pair.judged === null ? 1 : 0),
    };
  }
  const positives = pairs.filter((pair) => pair.label).length;
  return {
    kind: 'judge-calibration',
    version: CALIBRATION_RECORD_VERSION,
    judge: faithfulnessJudgeIdentity(provider),
    labels: { file: options.labelsFile, sha256: createHash('sha256').update(readFileSync(options.labelsFile)).digest('hex'), pairs: pairs.length, positives, negatives: pairs.length - positives },
    createdAt: (options.now ?? (() => new Date()))().toISOString(),
    thresholds,
    statistics,
    categories,
    errors: pairs.filter((pair) => pair.judged === null).length,
    passed: failures.length === 0,
    failures,
    cost: { calls: answers.length, cacheHits: 0, tokens },
    wrong: pairs.filter((pair) => pair.judged !== pair.label).map((pair) => pair.answer.id),
  };
}

/** Total tokens of a promptfoo token usage (`{ total }`, else prompt + completion); 0 when not reported. */
function tokensOf(usage: unknown): number {
  if (usage === null || typeof usage !== 'object') return 0;
  const { total, prompt, completion } = usage as { total?: unknown; prompt?: unknown; completion?: unknown };
  if (typeof total === 'number') return total;
  return (typeof prompt === 'number' ? prompt : 0) + (typeof completion === 'number' ? completion : 0);
}
