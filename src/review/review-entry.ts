/**
 * The review queue's two files and their records (*Text-to-SQL Evals* §6: "route disagreements …
 * to human review so your dataset accumulates alternate gold queries over time").
 *
 * - The queue (`out/review.jsonl` by default): one {@link ReviewEntry} per line, each a pair
 *   (item, candidate SQL) whose judge outcome is `review` or `lucky_match` under a passing
 *   calibration, with what a person needs to decide: question, golds, candidate, both results on
 *   each snapshot, the judge's differences, the L5 evidence. Rebuilt from runs; output, not input.
 * - The decisions file, beside the dataset (`datasets/warehouse.yaml` →
 *   `datasets/warehouse.review-decisions.jsonl`): one {@link ReviewDecision} per line, appended by
 *   `--accept` and `--reject`, kept with the dataset (commit it). A decided pair is not queued
 *   again; an accept records the file's digest before and after its edit, which is how a later
 *   accept tells its own edits from a dataset changed by hand.
 *
 * Review ids are stable: `r-` and the first 10 hex digits of the SHA-256 of the item id and the
 * candidate with runs of whitespace made one space, so the same pair gets the same id in every
 * run, and a reformatted candidate is the same pair.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LadderError } from '../errors.js';
import { isObject } from '../objects.js';
import { readUserText } from '../files/user-file.js';
import type { JudgeOutcomeView, QueuedOutcome } from './judge-outcome.js';

/** Format tag of a queue line. */
export const REVIEW_ENTRY_FORMAT = 'text2sql-ladder.review/1';
/** Format tag of a decisions line. */
export const REVIEW_DECISION_FORMAT = 'text2sql-ladder.review-decision/1';
/** Where `review` reads and writes the queue unless told otherwise. */
export const DEFAULT_QUEUE_FILE = 'out/review.jsonl';

/** The run an entry came from. */
export interface ReviewRunRef {
  /** As named on the command line (`out/eval.json#strong`). */
  readonly spec: string;
  /** The column's provider label, or the file name. */
  readonly label: string;
  /** When the run recorded its identity (ISO 8601); `null` when it recorded none. */
  readonly recordedAt: string | null;
}

/** One side's result on one snapshot, as shown to the reviewer. */
export type ResultPreview =
  | {
      readonly ok: true;
      readonly columns: readonly string[];
      /** The first rows (JSON-safe cells), at most the preview size. */
      readonly rows: readonly (readonly unknown[])[];
      /** All rows the query returned. */
      readonly rowCount: number;
    }
  | { readonly ok: false; readonly error: string };

/** Both results of an entry on one snapshot. */
export interface SnapshotEvidence {
  readonly snapshot: string;
  /** The reported gold's result (`goldIndex`). */
  readonly gold: ResultPreview;
  readonly candidate: ResultPreview;
  /** L4's verdict line on this snapshot, when the run stored one (`2 missing rows, 1 extra row`). */
  readonly verdict: string | null;
}

/** L5's evidence on the item, as the run stored it. */
export interface SemanticEvidence {
  readonly status: string;
  readonly reason: string;
  /** Which L5 step rejected the candidate, when one did. */
  readonly rejectedBy: string | null;
}

/** One line of the queue. */
export interface ReviewEntry {
  readonly format: typeof REVIEW_ENTRY_FORMAT;
  /** Stable review id ({@link reviewIdOf}). */
  readonly id: string;
  readonly item: string;
  readonly outcome: QueuedOutcome;
  /** The dataset file as the run named it, the item's line, and the file's digest the run recorded (`null`: none). */
  readonly dataset: { readonly file: string; readonly line: number | null; readonly hash: string | null };
  readonly run: ReviewRunRef;
  readonly question: string;
  /** The item's golds as the run graded them. */
  readonly golds: readonly string[];
  /** The gold L4 reported (the closest one, for a failure); `null` when none ran. */
  readonly goldIndex: number | null;
  readonly candidate: string;
  readonly role: string | null;
  /** Both results per snapshot; empty when they could not be computed (see `evidenceError`). */
  readonly snapshots: readonly SnapshotEvidence[];
  /** Why the results could not be computed (an unknown fixture, a database that cannot open). */
  readonly evidenceError: string | null;
  readonly judge: JudgeOutcomeView;
  readonly semantic: SemanticEvidence | null;
  /** When the entry was queued (ISO 8601). */
  readonly queuedAt: string;
}

/** One line of the decisions file. */
export interface ReviewDecision {
  readonly format: typeof REVIEW_DECISION_FORMAT;
  readonly review: string;
  readonly decision: 'accept' | 'reject';
  readonly item: string;
  readonly candidate: string;
  readonly outcome: QueuedOutcome;
  readonly run: ReviewRunRef;
  /** When the person decided (ISO 8601). */
  readonly decidedAt: string;
  readonly note: string | null;
  /** Accept: the new gold's 0-based index in the item's `gold_sql`. */
  readonly goldIndex?: number;
  /** Accept: the dataset file's digest before and after the edit. */
  readonly datasetHash?: { readonly before: string; readonly after: string };
}

/** The candidate with runs of whitespace made one space and the ends trimmed (what makes a pair the same). */
export function normalizeCandidate(sql: string): string {
  return sql.trim().replace(/\s+/g, ' ');
}

/** The stable id of the pair (item, candidate): `r-` and 10 hex digits (see the module doc). */
export function reviewIdOf(item: string, candidate: string): string {
  return `r-${createHash('sha256').update(`${item}\n${normalizeCandidate(candidate)}`).digest('hex').slice(0, 10)}`;
}

/** The decisions file of a dataset file: `<dir>/<name without extension>.review-decisions.jsonl`. */
export function decisionsFileOf(datasetFile: string): string {
  return path.join(path.dirname(datasetFile), `${path.basename(datasetFile, path.extname(datasetFile))}.review-decisions.jsonl`);
}

/**
 * Reads a queue file. A missing file is an empty queue.
 * @throws LadderError `input_invalid` naming `file:line` for a line that is not a queue entry.
 */
export function readQueue(file: string): ReviewEntry[] {
  return readJsonLines(file, 'review queue', REVIEW_ENTRY_FORMAT, (value) => typeof value['id'] === 'string' && typeof value['item'] === 'string' && typeof value['candidate'] === 'string') as unknown as ReviewEntry[];
}

/** Writes a queue file whole (its folder created), one entry per line; an empty queue is an empty file. */
export function writeQueue(file: string, entries: readonly ReviewEntry[]): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  } catch (error) {
    throw new LadderError('invalid_option', `cannot write the review queue ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads a decisions file. A missing file holds no decisions.
 * @throws LadderError `input_invalid` naming `file:line` for a line that is not a decision.
 */
export function readDecisions(file: string): ReviewDecision[] {
  return readJsonLines(file, 'review decisions', REVIEW_DECISION_FORMAT, (value) => typeof value['review'] === 'string' && (value['decision'] === 'accept' || value['decision'] === 'reject')) as unknown as ReviewDecision[];
}

/** Appends one decision to a decisions file (created when missing). */
export function appendDecision(file: string, decision: ReviewDecision): void {
  try {
    appendFileSync(file, `${JSON.stringify(decision)}\n`);
  } catch (error) {
    throw new LadderError('invalid_option', `cannot write the review decisions ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function readJsonLines(file: string, what: string, format: string, valid: (value: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  const text = readUserText(file, { what });
  const out: Record<string, unknown>[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new LadderError('input_invalid', `${file}:${index + 1}: not JSON (${(error as Error).message})`);
    }
    if (!isObject(value) || value['format'] !== format || !valid(value)) throw new LadderError('input_invalid', `${file}:${index + 1}: not a ${what} line (format ${format})`);
    out.push(value);
  });
  return out;
}
