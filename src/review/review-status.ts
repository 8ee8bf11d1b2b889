/**
 * What the review queue and the decisions file say about one dataset file, for the gold audit:
 * the pairs still waiting for a person, and the golds a review added (when, from which run).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { QueuedOutcome } from './judge-outcome.js';
import { decisionsFileOf, readDecisions, readQueue, type ReviewRunRef } from './review-entry.js';

/** A pair waiting in the queue. */
export interface PendingReview {
  readonly review: string;
  readonly item: string;
  readonly outcome: QueuedOutcome;
  readonly run: ReviewRunRef;
}

/** A gold a review added. */
export interface ReviewedGold {
  readonly review: string;
  readonly item: string;
  /** 0-based index of the gold in the item's `gold_sql`. */
  readonly goldIndex: number;
  readonly gold: string;
  /** When the person accepted it (ISO 8601). */
  readonly acceptedAt: string;
  /** The run whose judge queued it. */
  readonly run: ReviewRunRef;
  readonly note: string | null;
}

/** The review state of one dataset file. */
export interface ReviewStatus {
  /** The queue file read; `null` when there is none. */
  readonly queue: string | null;
  /** The decisions file beside the dataset; `null` when there is none. */
  readonly decisions: string | null;
  readonly pending: readonly PendingReview[];
  readonly added: readonly ReviewedGold[];
  /** Pairs a person rejected. */
  readonly rejected: number;
}

/**
 * Reads the queue (entries of this dataset file only) and the dataset's decisions file; a file
 * that does not exist counts as empty.
 * @throws LadderError `input_invalid` for a malformed queue or decisions line (`file:line`).
 */
export function reviewStatusOf(datasetFile: string, queueFile: string): ReviewStatus {
  const target = path.resolve(datasetFile);
  const queueExists = existsSync(queueFile);
  const pending = (queueExists ? readQueue(queueFile) : [])
    .filter((entry) => entry.dataset.file !== '' && path.resolve(entry.dataset.file) === target)
    .map((entry) => ({ review: entry.id, item: entry.item, outcome: entry.outcome, run: entry.run }));
  const decisionsFile = decisionsFileOf(datasetFile);
  const decisions = readDecisions(decisionsFile);
  const added = decisions.flatMap((decision) =>
    decision.decision === 'accept' && decision.goldIndex !== undefined
      ? [{ review: decision.review, item: decision.item, goldIndex: decision.goldIndex, gold: decision.candidate, acceptedAt: decision.decidedAt, run: decision.run, note: decision.note }]
      : [],
  );
  return {
    queue: queueExists ? queueFile : null,
    decisions: existsSync(decisionsFile) ? decisionsFile : null,
    pending,
    added,
    rejected: decisions.filter((decision) => decision.decision === 'reject').length,
  };
}
