/**
 * A person's decision on one queued pair: `accept` adds the candidate to the item's golds in the
 * dataset file (src/review/add-gold.ts) and records the decision; `reject` records it only. Either
 * way the pair leaves the queue and is not queued again.
 *
 * An accept is refused when the dataset changed since the run the entry came from: the file's
 * digest must be the one the run recorded, or one this dataset's own accepts produced since
 * (each accept records the digest before and after its edit); and the item must still hold the
 * question and golds the run graded (plus golds accepted since). Otherwise the entry's evidence
 * describes another dataset: run the eval again and review the new queue.
 */
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LadderError } from '../errors.js';
import { loadDataset } from '../dataset/load.js';
import { digestOf } from '../report/run-identity.js';
import { addGoldToDatasetText } from './add-gold.js';
import { appendDecision, decisionsFileOf, normalizeCandidate, readDecisions, readQueue, REVIEW_DECISION_FORMAT, writeQueue, type ReviewDecision, type ReviewEntry } from './review-entry.js';

/** What {@link decideReview} needs. */
export interface DecideReviewOptions {
  /** The queue file. */
  readonly queue: string;
  readonly id: string;
  readonly decision: 'accept' | 'reject';
  /** Why (kept in the decisions file). */
  readonly note?: string;
  /** The dataset file when it is not where the run named it (the run was made from another folder). */
  readonly dataset?: string;
  /** The clock of `decidedAt` (tests). */
  readonly now?: () => Date;
}

/** What {@link decideReview} did. */
export interface DecidedReview {
  readonly entry: ReviewEntry;
  readonly decision: ReviewDecision;
  readonly datasetFile: string;
  readonly decisionsFile: string;
}

/**
 * Accepts or rejects one queued pair (see the module doc).
 * @throws LadderError `invalid_option` for an id not in the queue or a pair already decided;
 *   `input_invalid` when the dataset changed since the run (the message names the file, the run
 *   and both digests) or the item no longer reads as the run graded it; `dataset_invalid` when the
 *   gold cannot be added without changing anything else.
 */
export async function decideReview(options: DecideReviewOptions): Promise<DecidedReview> {
  const now = options.now ?? (() => new Date());
  const entries = readQueue(options.queue);
  const entry = entries.find((candidate) => candidate.id === options.id);
  if (entry === undefined) {
    const pending = entries.length === 0 ? 'the queue is empty' : `pending: ${entries.map((candidate) => candidate.id).join(', ')}`;
    throw new LadderError('invalid_option', `no review "${options.id}" in ${options.queue} (${pending})`);
  }
  const datasetFile = options.dataset ?? entry.dataset.file;
  if (datasetFile === '') throw new LadderError('invalid_option', `review ${entry.id}: the run does not name the item's dataset file; give it with --dataset FILE`);
  const decisionsFile = decisionsFileOf(datasetFile);
  const decisions = readDecisions(decisionsFile);
  const earlier = decisions.find((decision) => decision.review === entry.id);
  if (earlier !== undefined) throw new LadderError('invalid_option', `review ${entry.id} (item ${entry.item}) was already ${earlier.decision === 'accept' ? 'accepted' : 'rejected'} on ${earlier.decidedAt} (${decisionsFile})`);
  const base = {
    format: REVIEW_DECISION_FORMAT,
    review: entry.id,
    item: entry.item,
    candidate: entry.candidate,
    outcome: entry.outcome,
    run: entry.run,
    note: options.note ?? null,
  } as const;
  let decision: ReviewDecision;
  if (options.decision === 'accept') {
    const bytes = readDataset(datasetFile);
    const before = digestOf(bytes);
    checkUnchangedSinceRun(entry, datasetFile, before, decisions);
    await checkItemAsGraded(entry, datasetFile, decisions);
    const added = addGoldToDatasetText(datasetFile, bytes.toString('utf8'), entry.item, entry.candidate);
    writeAtomically(datasetFile, added.text);
    const after = digestOf(Buffer.from(added.text, 'utf8'));
    decision = { ...base, decision: 'accept', decidedAt: now().toISOString(), goldIndex: added.goldIndex, datasetHash: { before, after } };
  } else {
    decision = { ...base, decision: 'reject', decidedAt: now().toISOString() };
  }
  appendDecision(decisionsFile, decision);
  writeQueue(options.queue, entries.filter((candidate) => candidate.id !== entry.id));
  return { entry, decision, datasetFile, decisionsFile };
}

function readDataset(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new LadderError('invalid_option', `cannot read the dataset ${file}: ${(error as Error).message}${path.isAbsolute(file) ? '' : ' (paths are read from the folder the eval ran in; --dataset FILE names it)'}`, { cause: error });
  }
}

/** The file's digest must be the run's, or one this dataset's accepts led to from it. */
function checkUnchangedSinceRun(entry: ReviewEntry, file: string, current: string, decisions: readonly ReviewDecision[]): void {
  const recorded = entry.dataset.hash;
  if (recorded === null) return; // a run without identity: the item check below decides
  const reachable = new Set([recorded]);
  for (const decision of decisions) {
    if (decision.datasetHash !== undefined && reachable.has(decision.datasetHash.before)) reachable.add(decision.datasetHash.after);
  }
  if (reachable.has(current)) return;
  throw new LadderError(
    'input_invalid',
    `${file} changed since the run ${entry.run.spec}${entry.run.recordedAt === null ? '' : ` (recorded ${entry.run.recordedAt})`}: the run graded ${short(recorded)}, the file is now ${short(current)}, and no accepted review explains the change. The queue's evidence is about the old file: run the eval again and review its queue.`,
  );
}

/** The item must hold the question and golds the run graded, plus golds accepted since. */
async function checkItemAsGraded(entry: ReviewEntry, file: string, decisions: readonly ReviewDecision[]): Promise<void> {
  const loaded = await loadDataset(file);
  const item = loaded.items.find((candidate) => candidate.id === entry.item);
  const stale = (why: string): LadderError => new LadderError('input_invalid', `${file}: item "${entry.item}" changed since the run ${entry.run.spec}: ${why}. Run the eval again and review its queue.`);
  if (item === undefined) {
    const error = loaded.errors.find((candidate) => candidate.id === entry.item);
    throw stale(error === undefined ? 'it is no longer in the file' : `it no longer loads (${error.message})`);
  }
  if (item.question !== entry.question) throw stale('its question is not the one the run asked');
  const accepted = new Set(decisions.filter((decision) => decision.decision === 'accept' && decision.item === entry.item).map((decision) => normalizeCandidate(decision.candidate)));
  const graded = entry.golds.map(normalizeCandidate);
  const current = item.gold_sql.map(normalizeCandidate);
  const kept = graded.every((gold, index) => current[index] === gold);
  const extra = current.slice(graded.length).every((gold) => accepted.has(gold));
  if (!kept || !extra) throw stale(`its golds are not the ${graded.length} the run graded${accepted.size > 0 ? ' (plus those accepted since)' : ''}`);
  if (current.includes(normalizeCandidate(entry.candidate))) throw new LadderError('invalid_option', `${file}: item "${entry.item}" already has this candidate as a gold`);
}

/** Writes `text` to `file` through a temporary file in the same folder (a reader never sees half a file); keeps the file's mode. */
function writeAtomically(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    const mode = statSync(file).mode;
    writeFileSync(temporary, text);
    chmodSync(temporary, mode);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new LadderError('invalid_option', `cannot write the dataset ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function short(digest: string): string {
  return digest.length > 19 ? `${digest.slice(0, 19)}…` : digest;
}
