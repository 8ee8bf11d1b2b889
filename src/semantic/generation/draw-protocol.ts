/**
 * Messages between a process that draws databases and its draw children (draw-children.ts,
 * draw-child.ts), sent with Node's `advanced` IPC serialization (the structured clone: Maps,
 * bigints and byte arrays cross as they are).
 */
import type { RejectedDatabases } from './database-contract.js';
import type { GeneratedDatabase } from './generate-database.js';
import type { CreatePlanInput } from './generator-plan.js';
import type { RowRange } from './table-filler.js';

/** Parent → child. */
export type DrawChildRequest =
  /** A plan's inputs, sent once per child before its first draw; `snapshots` unread (`observed` is given). */
  | { readonly type: 'plan'; readonly plan: number; readonly input: CreatePlanInput }
  /** The plan will draw no more: its connection can close. */
  | { readonly type: 'forget'; readonly plan: number }
  /** One draw: `generateDatabase(plan, createPrng(stream), rows, maxAttempts, checkContract)` into `file` (the generator's defaults where absent). */
  | { readonly type: 'draw'; readonly id: number; readonly plan: number; readonly stream: string; readonly rows?: RowRange; readonly maxAttempts?: number; readonly checkContract?: boolean; readonly file: string };

/** Child → parent: a draw's outcome (as the generator reported it), or the fault that stopped it. */
export type DrawChildReply =
  | { readonly type: 'drawn'; readonly id: number; readonly ok: true; readonly database: Omit<GeneratedDatabase, 'file'>; readonly rejected: RejectedDatabases }
  | { readonly type: 'drawn'; readonly id: number; readonly ok: false; readonly reason: string; readonly rejected: RejectedDatabases }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };
