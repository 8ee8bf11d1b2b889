/**
 * `answerGrounding` assertion: L7, as the ladder runs it. When the provider returns JSON
 * `{ "sql", "answer" }`, L4 runs the predicted SQL on the item's snapshots (with no gold, the item
 * is unscored but the prediction still runs) and L7 checks every number of the prose answer
 * against the rows it returned on the first snapshot (src/answer/ground.ts): within the stated precision, percentages as fractions or
 * simple derivations, numbers of the question (`vars.question`) or the SQL as context. No prose
 * answer, or a prediction that did not run → skipped (passes, no named score). Named score: `L7_answer`.
 *
 * Optional LLM faithfulness judge (`judge`), off by default. It is called only with a configured
 * provider — `judge.provider`, else the grading provider of the test (`options.provider`, e.g. in
 * `defaultTest`) — never promptfoo's built-in default. Its reasons, prompt and reply go to
 * `metadata.text2sqlLadder.details.judge`. Without a provider the judge is reported as not run.
 *
 * Its verdict moves the score only under a passing calibration record for this exact judge
 * (task `faithfulness`, provider id, model, prompt version and hash; src/judge/calibration-record.ts)
 * among `judge.calibration`'s files and folders: then it adds the named score `L7_judge` and an
 * unfaithful verdict fails the assertion. Without one the verdict is advisory: it appears in the
 * reason (`judge … advisory, …`) and the details, and changes neither the pass nor a score
 * (*Text-to-SQL Evals* §6: trust a judge only after it passes validation on labelled examples).
 *
 * Options (besides src/promptfoo/config.ts's common ones):
 * | option | type | default | meaning |
 * |---|---|---|---|
 * | `relativeTolerance` | number in [0, 1) | 0 | extra slack, fraction of the cell |
 * | `derivations` | boolean | true | ratio / percent change of two cells for percentages |
 * | `maxDerivationCells` | integer ≥ 0 | 64 | skip derivations above this many numeric cells |
 * | `decimalText` | boolean | true | read `'4118530.00'` text cells as numbers |
 * | `judge` | `true` or `{ provider?, maxRows?, calibration?, thresholds? }` | off | the LLM judge (provider id string or `{ id, config }`); `calibration`: calibration record files or folders (string or list); `thresholds`: `{ minTpr, minTnr, minPairs, minNegatives }` (default 0.9, 0.9, 100, 30) |
 *
 * ```yaml
 * defaultTest:
 *   options: { provider: openai:gpt-4.1-mini }   # the grading provider, used only when judge is on
 * assert:
 *   - type: javascript
 *     value: file://assertions/answer-grounding.ts:answerGrounding
 *     config: { judge: true }
 * ```
 */
import { LadderError } from '../src/errors.js';
import { describeReceived, optionReader } from '../src/options.js';
import { DEFAULT_JUDGE_MAX_ROWS, faithfulnessJudgeIdentity, runFaithfulnessJudge } from '../src/judge/faithfulness.js';
import { DEFAULT_CALIBRATION_THRESHOLDS, findPassingCalibration, readCalibrationThresholds, type CalibrationThresholds } from '../src/judge/calibration-record.js';
import type { FaithfulnessJudgement, JudgeProvider } from '../src/judge/faithfulness.js';
import { readGroundingOptions } from '../src/rungs/answer.js';
import type { AnswerGroundingDetails } from '../src/rungs/answer.js';
import { createRungResult } from '../src/rungs/rung-result.js';
import type { RungResult } from '../src/rungs/rung-result.js';
import type { GroundingOptions } from '../src/answer/ground.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { COMMON_OPTIONS } from '../src/promptfoo/config.js';
import { configReader } from '../src/promptfoo/config.js';
import { runRungAssertion } from '../src/promptfoo/rung-assertion.js';
import { loadJudgeProvider } from '../src/promptfoo/judge-provider.js';
import type { RungAssertionSpec } from '../src/promptfoo/rung-assertion.js';

const GROUNDING_OPTIONS = ['relativeTolerance', 'derivations', 'maxDerivationCells', 'decimalText'] as const;
const FILE = 'assertions/answer-grounding.ts:answerGrounding';

/** The judge's configuration as read from `config.judge`. */
export interface JudgeConfig {
  /** Provider id, `{ id, config }`, or an ApiProvider instance; absent → the test's grading provider. */
  readonly provider?: unknown;
  /** Result rows shown to the judge (default 20). */
  readonly maxRows: number;
  /** Calibration record files and folders searched for a passing record of this judge (default none: advisory). */
  readonly calibration: readonly string[];
  /** What a record must show to count (default {@link DEFAULT_CALIBRATION_THRESHOLDS}). */
  readonly thresholds: CalibrationThresholds;
}

/** What the judge contributes to `details.judge`. */
export type JudgeDetails =
  | { readonly ran: false; readonly reason: string }
  | ({
      readonly ran: true;
      /** True when a passing calibration record made the verdict count. */
      readonly calibrated: boolean;
      /** The record file that made it count, or why none did. */
      readonly calibration: string;
    } & Omit<FaithfulnessJudgement, 'tokenUsage'>);

/**
 * Reads this assertion's own options.
 * @returns the grounding options and the judge config (`null` = judge off).
 * @throws LadderError('invalid_option') naming `config.<option>`.
 */
export function readAnswerGroundingConfig(config: Readonly<Record<string, unknown>> | undefined): { grounding: GroundingOptions; judge: JudgeConfig | null } {
  const own: Record<string, unknown> = {};
  for (const key of GROUNDING_OPTIONS) if (config?.[key] !== undefined && config[key] !== null) own[key] = config[key];
  const grounding = readGroundingOptions(own, { name: 'config' });
  const read = configReader(config);
  const raw = read.raw('judge');
  if (raw === undefined || raw === false) return { grounding, judge: null };
  if (raw === true) return { grounding, judge: { maxRows: DEFAULT_JUDGE_MAX_ROWS, calibration: [], thresholds: DEFAULT_CALIBRATION_THRESHOLDS } };
  const judgeRead = optionReader(read.record('judge', 'true, false or { provider, maxRows, calibration, thresholds }'), { prefix: 'config.judge.' });
  judgeRead.unknownKeys(['provider', 'maxRows', 'calibration', 'thresholds']);
  const maxRows = judgeRead.positiveInteger('maxRows') ?? DEFAULT_JUDGE_MAX_ROWS;
  const provider = judgeRead.raw('provider');
  const rawCalibration = judgeRead.raw('calibration');
  const calibration = rawCalibration === undefined || rawCalibration === null ? [] : typeof rawCalibration === 'string' ? [rawCalibration] : rawCalibration;
  if (!Array.isArray(calibration) || !calibration.every((entry) => typeof entry === 'string' && entry !== '')) {
    throw new LadderError('invalid_option', `config.judge.calibration must be a calibration record file or folder, or a list of them; received ${describeReceived(rawCalibration)}`);
  }
  const thresholds = readCalibrationThresholds(judgeRead.raw('thresholds'), 'config.judge.thresholds');
  return { grounding, judge: { maxRows, calibration: calibration as string[], thresholds, ...(provider !== undefined ? { provider } : {}) } };
}

/**
 * Resolves the judge's provider: an ApiProvider instance as is; an id or `{ id, config }` through
 * promptfoo's `loadApiProvider` (imported only then). `undefined` when nothing is configured.
 */
export async function resolveJudgeProvider(configured: unknown, context: AssertionContext): Promise<JudgeProvider | undefined> {
  const testOptions = (context.test as { options?: { provider?: unknown } } | undefined)?.options;
  const spec = configured ?? testOptions?.provider;
  if (spec === undefined || spec === null || spec === '') return undefined;
  return loadJudgeProvider(spec, "config.judge.provider (or the test's options.provider)");
}

/**
 * Merges a judge verdict into the L7 result. Calibrated: an unfaithful verdict fails it and
 * `L7_judge` carries the judge's score. Uncalibrated: the verdict is advisory, shown in the reason
 * and the details only. An unreadable reply leaves the verdict alone and says so.
 */
export function withJudgement(result: RungResult<AnswerGroundingDetails | null>, judge: JudgeDetails): RungResult {
  const details = { ...(result.details ?? {}), judge };
  if (!judge.ran) return { ...result, reason: `${result.reason}; judge not run: ${judge.reason}`, details };
  const verdict = judge.verdict;
  if (!verdict.ok) return { ...result, reason: `${result.reason}; judge (${judge.provider}) unreadable: ${verdict.error}`, details };
  const said = `${verdict.faithful ? 'faithful' : 'unfaithful'}${verdict.reasons.length > 0 ? `: ${verdict.reasons.join('; ')}` : ''}`;
  if (!judge.calibrated) return { ...result, reason: `${result.reason}; judge (${judge.provider}) advisory, ${judge.calibration}: ${said}`, details };
  const judgeText = `judge (${judge.provider}): ${said}`;
  const fails = result.status === 'fail' || (result.status === 'pass' && !verdict.faithful);
  return createRungResult({
    rung: 'answer',
    status: result.status === 'pass' || result.status === 'fail' ? (fails ? 'fail' : 'pass') : result.status,
    reason: `${result.reason}; ${judgeText}`,
    issues: [...result.issues, ...(verdict.faithful ? [] : [{ kind: 'unfaithful_answer', message: judgeText }])],
    namedScores: { ...result.namedScores, L7_judge: verdict.score },
    details,
  });
}

/** The spec (exported for tests): L4 and L7 of the ladder, L7 reported (then the judge, when on). */
export const ANSWER_GROUNDING_ASSERTION: RungAssertionSpec = {
  file: FILE,
  rung: 'answer',
  only: ['execution', 'answer'],
  table: { answer: true },
  options: [...COMMON_OPTIONS, 'policy', 'gold_result_ordered', ...GROUNDING_OPTIONS, 'judge'],
  needsDatabase: true,
  input: ({ context }) => ({ answerOptions: readAnswerGroundingConfig(context.config).grounding }),
  after: async (result, ladder, { context, item }) => {
    const { judge } = readAnswerGroundingConfig(context.config);
    const prose = ladder.answer.kind === 'sql' ? ladder.answer.answer : undefined;
    // The rows L7 grounded the answer in: the prediction's first run, as L4 ran it.
    const run = ladder.results.execution?.details?.predictedRuns[0];
    if (judge === null || result.status === 'skipped' || prose === undefined || run === undefined || !run.ok) return result;
    const grounded = result as RungResult<AnswerGroundingDetails | null>;
    const provider = await resolveJudgeProvider(judge.provider, context);
    if (provider === undefined) return withJudgement(grounded, { ran: false, reason: 'no grading provider configured (config.judge.provider or the test options.provider)' });
    const sql = ladder.answer.kind === 'sql' ? ladder.answer.sql : '';
    const judgement = await runFaithfulnessJudge(
      provider,
      {
        answer: prose,
        rows: run.rows,
        columns: run.columns,
        sql,
        ...(item.question !== undefined ? { question: item.question } : {}),
        ungroundedNumbers: (grounded.details?.numbers ?? []).filter((n) => n.status === 'ungrounded').map((n) => n.text),
      },
      judge.maxRows,
    );
    const { tokenUsage: _tokenUsage, ...kept } = judgement;
    const lookup = findPassingCalibration(faithfulnessJudgeIdentity(provider), judge.calibration, judge.thresholds);
    return withJudgement(grounded, { ran: true, calibrated: lookup.record !== undefined, calibration: lookup.file ?? lookup.reason, ...kept });
  },
};

/** promptfoo assertion: L7 answer grounding (plus the optional judge) on the provider output. */
export function answerGrounding(output: unknown, context: AssertionContext): Promise<GradingResult> {
  return runRungAssertion(ANSWER_GROUNDING_ASSERTION, output, context);
}
