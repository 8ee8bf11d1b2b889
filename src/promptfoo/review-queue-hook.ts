/**
 * The review queue at the end of a promptfoo run (called by the `afterAll` hook): the rows whose
 * equivalence-judge outcome needs a person (src/review/build-queue.ts) are written to
 * `review.jsonl` beside promptfoo's JSON output (`-o out/eval.json` → `out/review.jsonl`), or to
 * the file `LADDER_REVIEW_QUEUE` names (`off` writes none), with both results on each snapshot run
 * on the run's own engine. Nothing is written without a JSON output (the queue names the result
 * file its pairs came from) or when the run queued nothing and there is no queue yet; a queue
 * that exists is replaced, so it always describes the latest run. `text2sql-ladder review` lists it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildReviewQueueOfResult } from '../review/build-queue.js';
import { writeQueue } from '../review/review-entry.js';
import { columnsOf, type PromptfooPromptEntry, type PromptfooRow } from '../report/promptfoo-rows.js';
import type { PromptfooColumnIdentity } from '../report/promptfoo-run-identity.js';
import { promptfooJsonOutputs } from './summary-file.js';
import { promptfooRuntime } from './runtime.js';
import { counted } from '../format.js';

/** Environment variable naming the queue file (`off` or empty: none). */
export const REVIEW_QUEUE_ENV = 'LADDER_REVIEW_QUEUE';

/**
 * Writes the run's review queue (see the module doc).
 * @returns the file written, or `undefined` when none was.
 */
export async function writeRunReviewQueue(
  rows: readonly PromptfooRow[],
  prompts: ReadonlyArray<PromptfooPromptEntry | null> | undefined,
  identities: readonly PromptfooColumnIdentity[],
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
): Promise<string | undefined> {
  const output = promptfooJsonOutputs(argv).at(-1);
  const set = env[REVIEW_QUEUE_ENV]?.trim();
  if (set === 'off' || set === '' || output === undefined) return undefined;
  const queue = set ?? path.join(path.dirname(output), 'review.jsonl');
  const result = { file: output, rows, columns: columnsOf(prompts, rows), identities: new Map(identities.map((entry) => [entry.promptIdx, entry.identity as unknown])) };
  const built = await buildReviewQueueOfResult(result, { runtime: promptfooRuntime() });
  if (built.entries.length === 0 && !existsSync(queue)) return undefined;
  writeQueue(queue, built.entries);
  if (built.entries.length > 0) process.stdout.write(`review queue: ${counted(built.entries.length, 'pair')} for a person in ${queue} (text2sql-ladder review --queue ${queue})\n`);
  return queue;
}
