/**
 * Messages between the SQLite engine (parent) and its child processes. Sent over Node's IPC
 * channel as JSON; result cells JSON would not carry exactly (`bigint`, `Uint8Array`, ±Infinity,
 * NaN, -0) travel tagged (wire-cells.ts) and cross the boundary exactly.
 *
 * The parent sends jobs in batches ({@link ChildBatch}: every job it hands a child in one turn of
 * its event loop goes in one message, one pipe write); the child runs them one at a time, in the
 * order received, and answers each job on its own as soon as it ends ({@link ChildMessage}), so
 * the parent always knows which job is running: the first one sent and not answered. A large
 * result comes in pieces: `rows` messages, then its `result` with the last rows.
 */
import type { Catalog, DoubleQuoteMode, ExecutionError, ExecutionOutcome, ExplainOutcome } from '../engine.js';

/** What a child can be asked to do with one statement or database. */
export type ChildOperation = 'execute' | 'prepare' | 'explain' | 'catalog';

/** Parent → child: one job. Every field is already validated and resolved by the parent. */
export interface ChildRequest {
  /** Job id, echoed in the response. */
  readonly id: number;
  readonly op: ChildOperation;
  /** Absolute path of the database file. */
  readonly db: string;
  /** The statement text (ignored by `catalog`). */
  readonly sql: string;
  /** Row cap for `execute`: more rows than this gives `result_too_large`. */
  readonly maxRows: number;
  /**
   * Byte cap for `execute`: a result whose rows cost more than this in the parent (see
   * result-bytes.ts) gives `result_too_large`, so no result can flood the parent.
   */
  readonly maxResultBytes: number;
  /** Deadline in milliseconds, measured by the child's own watchdog from the moment it starts the job. */
  readonly timeoutMs: number;
  readonly doubleQuotes: DoubleQuoteMode;
}

/** Parent → child: jobs to run in this order, after any the child still holds. */
export interface ChildBatch {
  readonly jobs: readonly ChildRequest[];
}

/** The outcome of a `catalog` job. */
export type CatalogOutcome =
  | { readonly ok: true; readonly catalog: Catalog }
  | { readonly ok: false; readonly error: ExecutionError };

/** Child → parent: the answer to one job (in the order the jobs were sent), or the start-up signal. */
export type ChildMessage =
  /** Sent once, when the child has loaded better-sqlite3 and listens for jobs. */
  | { readonly type: 'ready' }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly outcome: ExecutionOutcome | ExplainOutcome | CatalogOutcome;
      /** Set when the result's rows hold tagged cells (wire-cells.ts): the receiver restores them. */
      readonly tagged?: true;
    }
  /**
   * The first rows of a large result, sent ahead of its `result` message (which carries the rest):
   * each message is about {@link ROW_CHUNK_BYTES}, so the parent never holds a whole result's JSON
   * text at once, only the rows it has parsed (engine/sqlite/sqlite-pool.ts).
   */
  | { readonly type: 'rows'; readonly id: number; readonly rows: unknown[][]; readonly tagged?: true };

/** Counted bytes (result-bytes.ts) of rows per `rows` message. */
export const ROW_CHUNK_BYTES = 256 * 1024;
