/**
 * `text2sql-ladder review`: the review queue of the equivalence judge's disagreements with
 * execution (src/review/).
 *
 *   text2sql-ladder review out/eval.json              # rebuild out/review.jsonl from the run, list it
 *   text2sql-ladder review                            # list the queue
 *   text2sql-ladder review --accept r-3f2a9c1d0b      # the candidate becomes another gold of its item
 *   text2sql-ladder review --reject r-3f2a9c1d0b --note "drops NULL regions"
 *
 * Exit status: 0 done (the queue listed, a decision recorded), 2 on misuse (one line on stderr;
 * cli-io.ts): an unreadable or unrecognised run file, an id not in the queue, a pair already
 * decided, a dataset that changed since the run, both --accept and --reject.
 */
import type { Command } from 'commander';
import { LadderError } from '../errors.js';
import { defaultFixturesDir } from '../fixtures/registry.js';
import { createLadderRuntime, type LadderRuntime } from '../runtime/ladder-runtime.js';
import { buildReviewQueue } from '../review/build-queue.js';
import { decideReview } from '../review/decide.js';
import { DEFAULT_QUEUE_FILE, readQueue, writeQueue } from '../review/review-entry.js';
import { renderReviewQueue } from '../review/render-review.js';
import { DEFAULT_PREVIEW_ROWS } from '../review/result-evidence.js';
import { counted } from '../format.js';
import { applyCliConventions, cliIoOf, exitCodeForError, setExitCode, type CliIo } from './cli-io.js';
import { fixturesFolder, FIXTURES_OPTION_HELP } from './fixtures-folder.js';
import { parseChoice, parseNonNegativeInteger } from './flags.js';

/** Output formats of `--format`. */
export const REVIEW_FORMATS = ['text', 'json'] as const;

/** Parsed flags of the `review` command. */
export interface ReviewCommandOptions {
  readonly queue?: string;
  readonly accept?: string;
  readonly reject?: string;
  readonly note?: string;
  readonly dataset?: string;
  readonly fixtures?: string;
  readonly rows?: number;
  readonly format?: (typeof REVIEW_FORMATS)[number];
}

/** Registers `text2sql-ladder review` on the program. */
export function registerReviewCommand(program: Command): void {
  const command = program.command('review');
  applyCliConventions(command)
    .description('The review queue: items a calibrated judge calls equivalent where execution failed, or lucky where an empty gold matched; accept one as a new gold or reject it')
    .argument('[runs...]', 'promptfoo results (FILE.json, FILE.json#COLUMN): rebuild the queue from them first')
    .option('--queue <file>', 'the queue file', DEFAULT_QUEUE_FILE)
    .option('--accept <id>', 'add the candidate of this review as another gold of its item in the dataset file')
    .option('--reject <id>', 'record that the candidate is not a valid gold (the pair is not asked again)')
    .option('--note <text>', 'with --accept / --reject: why, kept in the decisions file')
    .option('--dataset <file>', 'with --accept / --reject: the dataset file, when it is not where the run named it')
    .option('--fixtures <dir>', FIXTURES_OPTION_HELP)
    .option('--rows <n>', `with runs: rows kept per result in the queue (default ${DEFAULT_PREVIEW_ROWS})`, parseNonNegativeInteger)
    .option('--format <name>', `stdout format: ${REVIEW_FORMATS.join(', ')}`, parseChoice(REVIEW_FORMATS), 'text' as const)
    .action(async (runs: string[], options: ReviewCommandOptions) => {
      setExitCode(command, await runReviewCommand(runs, options, cliIoOf(command)));
    });
}

/** Runs the command; resolves to the exit status (see the module doc). */
export async function runReviewCommand(runs: readonly string[], options: ReviewCommandOptions, io: Pick<CliIo, 'stdout' | 'stderr'>): Promise<number> {
  let runtime: LadderRuntime | undefined;
  try {
    const queue = options.queue ?? DEFAULT_QUEUE_FILE;
    const decide = options.accept ?? options.reject;
    if (options.accept !== undefined && options.reject !== undefined) throw new LadderError('invalid_option', 'give either --accept or --reject, not both');
    if (decide !== undefined && runs.length > 0) throw new LadderError('invalid_option', '--accept / --reject decide one entry of the queue; rebuild it from runs in another call');
    if (decide === undefined && (options.note !== undefined || options.dataset !== undefined)) throw new LadderError('invalid_option', '--note and --dataset go with --accept or --reject');
    if (decide !== undefined) {
      const decided = await decideReview({ queue, id: decide, decision: options.accept !== undefined ? 'accept' : 'reject', ...(options.note === undefined ? {} : { note: options.note }), ...(options.dataset === undefined ? {} : { dataset: options.dataset }) });
      const { entry, decision } = decided;
      if (options.format === 'json') io.stdout.write(`${JSON.stringify(decision, null, 2)}\n`);
      else if (decision.decision === 'accept') io.stdout.write(`accepted ${entry.id}: ${decided.datasetFile} item ${entry.item} has gold ${(decision.goldIndex ?? 0) + 1} now; recorded in ${decided.decisionsFile}\n`);
      else io.stdout.write(`rejected ${entry.id}: item ${entry.item} keeps its golds; recorded in ${decided.decisionsFile}\n`);
      return 0;
    }
    if (runs.length > 0) {
      const fixturesDir = fixturesFolder(options.fixtures).dir ?? defaultFixturesDir();
      runtime = createLadderRuntime({ fixtures: { fixturesDir } });
      const built = await buildReviewQueue(runs, { runtime, ...(options.rows === undefined ? {} : { previewRows: options.rows }) });
      writeQueue(queue, built.entries);
      const left = [
        built.skipped.decided > 0 ? `${counted(built.skipped.decided, 'pair')} already decided` : '',
        built.skipped.alreadyGold > 0 ? `${counted(built.skipped.alreadyGold, 'candidate')} already a gold` : '',
        built.skipped.uncalibrated > 0 ? `${counted(built.skipped.uncalibrated, 'judge verdict')} uncalibrated (not queued: they move no score)` : '',
      ].filter((part) => part !== '');
      io.stderr.write(`wrote ${queue}: ${counted(built.entries.length, 'pair')} to review${left.length > 0 ? `; left out: ${left.join(', ')}` : ''}\n`);
    }
    const entries = readQueue(queue);
    io.stdout.write(options.format === 'json' ? `${JSON.stringify(entries, null, 2)}\n` : renderReviewQueue(entries, queue));
    return 0;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    await runtime?.close();
  }
}
