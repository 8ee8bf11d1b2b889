/**
 * `text2sql-ladder judge calibrate-faithfulness`: runs the L7 faithfulness judge on labelled
 * answers (src/dataset/labelled-answers.ts; the bundled set is datasets/faithfulness-labels.jsonl)
 * and writes its calibration record (src/judge/calibration-record.ts). With a passing record among
 * the answerGrounding assertion's `judge.calibration` files, the judge's verdicts move L7's score;
 * without one they are advisory.
 *
 *   text2sql-ladder judge calibrate-faithfulness --labels datasets/faithfulness-labels.jsonl --provider openai:chat:gpt-4.1-mini --out calibrations/
 *
 * Exit status: 0 when the judge passes the thresholds, 1 when it does not (the record is written
 * either way), 2 on misuse.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readLabelledAnswers } from '../dataset/labelled-answers.js';
import { LadderError } from '../errors.js';
import { calibrateFaithfulnessJudge } from '../judge/faithfulness-calibration.js';
import { loadJudgeProvider } from '../promptfoo/judge-provider.js';
import { renderCalibration } from '../judge/render-calibration.js';
import { addThresholdFlags, calibrationRecordPath, thresholdsFromFlags, type ThresholdFlags } from './calibration-file.js';
import { applyCliConventions, cliIoOf, commandGroup, exitCodeForError, setExitCode, type CliIo } from './cli-io.js';
import { parseChoice, parsePositiveInteger } from './flags.js';

/** Parsed flags of `judge calibrate-faithfulness`. */
export interface FaithfulnessCalibrateOptions extends ThresholdFlags {
  readonly labels: string;
  readonly provider: string;
  readonly out?: string;
  readonly maxRows?: number;
  readonly concurrency?: number;
  readonly format?: 'table' | 'json';
}

/** The default record file. */
export const DEFAULT_FAITHFULNESS_CALIBRATION_FILE = 'faithfulness-calibration.json';

/** Registers `text2sql-ladder judge calibrate-faithfulness` in the `judge` group. */
export function registerFaithfulnessCalibrateCommand(program: Command, groupSummary: string): void {
  const command = commandGroup(program, 'judge', groupSummary).command('calibrate-faithfulness');
  applyCliConventions(command)
    .description("Run the L7 faithfulness judge on labelled answers (grounded / not grounded) and write its calibration record: TPR, TNR, accuracy, Cohen's kappa with 95% intervals, bias, per category")
    .requiredOption('--labels <file>', 'labelled answers, JSON Lines (id, db, snapshot, question, sql, columns, rows, answer, label, category, labelSource, why)')
    .requiredOption('--provider <id>', 'the judge: a promptfoo provider id (openai:chat:gpt-4.1-mini, anthropic:messages:…, ollama:chat:…, file://judge.mjs)')
    .option('--out <file>', `where the record is written: a file, or a folder (default ${DEFAULT_FAITHFULNESS_CALIBRATION_FILE})`)
    .option('--max-rows <n>', 'result rows shown to the judge per answer (default 20, as in the assertion)', parsePositiveInteger)
    .option('--concurrency <n>', 'answers judged at once (default 4)', parsePositiveInteger);
  addThresholdFlags(command, { items: 'labelled answers', negatives: 'ungrounded answers', tpr: 'grounded answers called faithful', tnr: 'ungrounded answers called unfaithful' })
    .option('--format <name>', 'stdout format: table, json', parseChoice(['table', 'json'] as const), 'table' as const)
    .action(async (options: FaithfulnessCalibrateOptions) => {
      setExitCode(command, await runFaithfulnessCalibrateCommand(options, cliIoOf(command)));
    });
}

/** Runs `judge calibrate-faithfulness`; resolves to the exit status (see the module doc). */
export async function runFaithfulnessCalibrateCommand(options: FaithfulnessCalibrateOptions, io: Pick<CliIo, 'stdout' | 'stderr'>): Promise<number> {
  try {
    const thresholds = thresholdsFromFlags(options);
    const answers = readLabelledAnswers(options.labels);
    const provider = await loadJudgeProvider(options.provider, '--provider');
    const record = await calibrateFaithfulnessJudge(provider, answers, {
      labelsFile: options.labels,
      thresholds,
      ...(options.maxRows !== undefined ? { maxRows: options.maxRows } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    });
    const out = calibrationRecordPath(options.out, DEFAULT_FAITHFULNESS_CALIBRATION_FILE);
    try {
      writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      throw new LadderError('invalid_option', `--out: cannot write ${out}: ${(error as Error).message}`, { cause: error });
    }
    io.stdout.write(options.format === 'json' ? `${JSON.stringify(record, null, 2)}\n` : `${renderCalibration(record)}record: ${out}\n`);
    return record.passed ? 0 : 1;
  } catch (error) {
    return exitCodeForError(error, io);
  }
}

