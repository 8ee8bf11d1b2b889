/**
 * Calibrating the equivalence judge: ask it about every labelled pair (the format of L5's
 * equivalence corpus, src/dataset/labelled-pairs.ts), with the prompt it will see in the ladder,
 * and measure its agreement with the labels (judge-statistics.ts; "equivalent" is the positive
 * label). The result is a calibration record (calibration-record.ts) tied to the provider, the
 * model and the prompt hash; the ladder counts the judge's verdicts only under a passing one.
 *
 * A pair the judge gives no readable answer for, after the retry, counts as a wrong answer (so
 * errors never flatter a judge) and is listed in `errors`.
 */
import { createHash } from 'node:crypto';
import type { LabelledPair } from '../../dataset/labelled-pairs.js';
import type { Engine } from '../../engine/engine.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { CALIBRATION_RECORD_VERSION, DEFAULT_CALIBRATION_THRESHOLDS, calibrationFailures, type CalibrationRecord, type CalibrationThresholds, type CategoryFigures } from '../calibration-record.js';
import { confusionOf, judgeStatistics } from '../judge-statistics.js';
import { askEquivalenceJudge, type EquivalenceJudge, type JudgeCacheOption } from './ask-judge.js';
import { equivalenceJudgeIdentity, equivalencePromptFor, type JudgeShare } from './judge-step.js';

/** What {@link calibrateEquivalenceJudge} needs. */
export interface CalibrationInput {
  readonly judge: EquivalenceJudge;
  readonly pairs: readonly LabelledPair[];
  /** The labelled file: its path as given and its bytes (hashed into the record). */
  readonly labels: { readonly file: string; readonly bytes: Buffer | string };
  /** Databases by the pairs' `db`: with one, the prompt holds its schema and both results on it (as in the ladder). */
  readonly databases?: ReadonlyMap<string, readonly Snapshot[]>;
  /** The engine the databases run on (needed with `databases`). */
  readonly engine?: Engine;
  readonly share?: JudgeShare;
  readonly maxRows?: number;
  readonly redactColumns?: readonly string[];
  readonly thresholds?: CalibrationThresholds;
  readonly cache?: JudgeCacheOption;
  /** Pairs asked at once (default 4). */
  readonly concurrency?: number;
  /** Called after each pair (done, total). */
  readonly onPair?: (done: number, total: number) => void;
  /** The record's `createdAt` (default now; tests pin it). */
  readonly now?: () => Date;
}

/** One pair's answer. */
export interface PairAnswer {
  readonly pair: LabelledPair;
  /** The judge's answer; `null` when unreadable. */
  readonly equivalent: boolean | null;
  readonly error?: string;
}

/** The record and every pair's answer. */
export interface CalibrationRun {
  readonly record: CalibrationRecord;
  readonly answers: readonly PairAnswer[];
}

/**
 * Runs the judge on every pair and builds the calibration record.
 * @throws LadderError only for misuse (bad options); the judge's failures are counted, not thrown.
 */
export async function calibrateEquivalenceJudge(input: CalibrationInput): Promise<CalibrationRun> {
  const { judge, pairs } = input;
  const answers: PairAnswer[] = new Array(pairs.length);
  const cost = { calls: 0, cacheHits: 0, tokens: 0 };
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < pairs.length) {
      const index = next;
      next += 1;
      const pair = pairs[index]!;
      const snapshots = input.databases?.get(pair.db) ?? [];
      const prompt = await equivalencePromptFor(
        { question: pair.question, golds: [pair.gold], snapshots, ...(input.engine !== undefined && snapshots.length > 0 ? { engine: input.engine } : {}) },
        pair.candidate,
        { judge, ...(input.share !== undefined ? { share: input.share } : {}), ...(input.maxRows !== undefined ? { maxRows: input.maxRows } : {}), ...(input.redactColumns !== undefined ? { redactColumns: input.redactColumns } : {}) },
      );
      const answer = await askEquivalenceJudge(judge, prompt, input.cache);
      cost.calls += answer.calls;
      cost.cacheHits += answer.cached ? 1 : 0;
      cost.tokens += answer.tokens;
      answers[index] = answer.verdict.ok ? { pair, equivalent: answer.verdict.equivalent } : { pair, equivalent: null, error: answer.verdict.error };
      done += 1;
      input.onPair?.(done, pairs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency ?? 4, pairs.length)) }, worker));
  const thresholds = input.thresholds ?? DEFAULT_CALIBRATION_THRESHOLDS;
  const statistics = judgeStatistics(confusionOf(answers.map((answer) => ({ label: answer.pair.label === 'equivalent', judged: answer.equivalent }))));
  const failures = calibrationFailures(statistics, thresholds);
  const record: CalibrationRecord = {
    kind: 'judge-calibration',
    version: CALIBRATION_RECORD_VERSION,
    judge: equivalenceJudgeIdentity(judge),
    labels: { file: input.labels.file, sha256: createHash('sha256').update(input.labels.bytes).digest('hex'), pairs: statistics.n, positives: statistics.positives, negatives: statistics.negatives },
    createdAt: (input.now?.() ?? new Date()).toISOString(),
    thresholds,
    statistics,
    categories: categoryFigures(answers),
    errors: answers.filter((answer) => answer.equivalent === null).length,
    passed: failures.length === 0,
    failures,
    cost,
    wrong: answers.filter((answer) => answer.equivalent !== (answer.pair.label === 'equivalent')).map((answer) => answer.pair.id),
  };
  return { record, answers };
}

function categoryFigures(answers: readonly PairAnswer[]): Record<string, CategoryFigures> {
  const figures = new Map<string, { positives: number; negatives: number; correct: number; errors: number }>();
  for (const answer of answers) {
    const entry = figures.get(answer.pair.category) ?? { positives: 0, negatives: 0, correct: 0, errors: 0 };
    if (answer.pair.label === 'equivalent') entry.positives += 1;
    else entry.negatives += 1;
    if (answer.equivalent === null) entry.errors += 1;
    else if (answer.equivalent === (answer.pair.label === 'equivalent')) entry.correct += 1;
    figures.set(answer.pair.category, entry);
  }
  return Object.fromEntries(
    [...figures.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([category, entry]) => [
      category,
      { pairs: entry.positives + entry.negatives, positives: entry.positives, negatives: entry.negatives, correct: entry.correct, errors: entry.errors },
    ]),
  );
}
