/**
 * Draws generated databases in child processes, so that the process running a search only judges
 * them: drawing (filling rows, checking the contract, writing the file) was about two thirds of
 * that process's CPU during a search, on one core, while the engine's children waited. Here the
 * draws spread over {@link DRAW_CHILDREN} children, one job at a time each, while the parent and
 * the engine's children run the queries of the batch before.
 *
 * A child builds the plan from the same inputs as the parent (its pools, fill order and contract
 * come out the same) and draws with the same stream, so a file drawn here has the bytes an
 * in-process `generateDatabase` writes (a test checks the checksums); which databases a search
 * sees, and so every verdict, does not depend on where they were drawn. A child that cannot start
 * or dies mid-draw makes {@link drawInChild} reject; the caller then draws in process (and after a
 * child that died before its first answer, every later draw of the process does).
 *
 * Children are started on the first draw and shared by every searcher of the process; an idle
 * child keeps nothing alive (its channel is unreferenced), and each one exits when its parent goes
 * away.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RejectedDatabases } from './database-contract.js';
import type { DrawChildReply, DrawChildRequest } from './draw-protocol.js';
import type { GeneratedDatabase } from './generate-database.js';
import type { CreatePlanInput } from './generator-plan.js';
import type { RowRange } from './table-filler.js';

/** Draw children of a process: as many as the machine has cores, at most 2 (with the engine's children, more only queue). */
export const DRAW_CHILDREN = Math.max(1, Math.min(2, os.availableParallelism()));

/** A plan the children can draw from: its inputs, sent to each child once. */
export interface RemotePlan {
  readonly id: number;
  readonly input: CreatePlanInput;
}

/** One draw to make. */
export interface DrawJob {
  readonly plan: RemotePlan;
  /** The stream's name (`createPrng(stream)`). */
  readonly stream: string;
  /** Rows per table (default: the generator's size tiers, drawn from the stream). */
  readonly rows?: RowRange;
  /** Databases drawn before giving up (default: the generator's, 4). */
  readonly maxAttempts?: number;
  /** `false`: the caller checks the contract of the databases it uses (`GenerateOptions.checkContract`). */
  readonly checkContract?: boolean;
  /** Output file (overwritten). */
  readonly file: string;
}

/** What the generator reported for a draw (the file is written when `ok`; `database` describes it, when the drawer reported it). */
export type DrawOutcome =
  | { readonly ok: true; readonly database?: Omit<GeneratedDatabase, 'file'>; readonly rejected: RejectedDatabases }
  | { readonly ok: false; readonly reason: string; readonly rejected: RejectedDatabases };

interface DrawChild {
  readonly process: ChildProcess;
  /** Draws it answered: a child that dies before its first answer could not start. */
  answered: number;
  readonly plans: Set<number>;
  readonly pending: Map<number, { resolve: (outcome: DrawOutcome) => void; reject: (error: Error) => void }>;
}

const children: (DrawChild | undefined)[] = [];
let nextPlan = 1;
let nextJob = 1;
let disabled: Error | undefined;

/**
 * Makes a plan drawable by the children.
 * @param input - the plan's inputs with `observed` given (children read no snapshot).
 */
export function remotePlan(input: CreatePlanInput): RemotePlan {
  return { id: nextPlan++, input: { ...input, snapshots: [] } };
}

/**
 * Draws one database in a child.
 * @returns the generator's outcome, as an in-process draw of the same job reports it.
 * @throws Error when no child could start or the child died before answering (draw in process then).
 */
export function drawInChild(job: DrawJob): Promise<DrawOutcome> {
  if (disabled !== undefined) return Promise.reject(disabled);
  let child: DrawChild;
  try {
    child = leastBusyChild();
  } catch (error) {
    disabled = error instanceof Error ? error : new Error(String(error));
    return Promise.reject(disabled);
  }
  const id = nextJob++;
  const request: DrawChildRequest = {
    type: 'draw',
    id,
    plan: job.plan.id,
    stream: job.stream,
    ...(job.rows === undefined ? {} : { rows: job.rows }),
    ...(job.maxAttempts === undefined ? {} : { maxAttempts: job.maxAttempts }),
    ...(job.checkContract === undefined ? {} : { checkContract: job.checkContract }),
    file: job.file,
  };
  return new Promise<DrawOutcome>((resolve, reject) => {
    child.pending.set(id, { resolve, reject });
    // While a draw is owed, the child keeps the process alive (its exit must be seen to fail the draw).
    if (child.pending.size === 1) {
      child.process.ref();
      child.process.channel?.ref();
    }
    try {
      if (!child.plans.has(job.plan.id)) {
        child.process.send({ type: 'plan', plan: job.plan.id, input: job.plan.input } satisfies DrawChildRequest);
        child.plans.add(job.plan.id);
      }
      child.process.send(request);
    } catch (error) {
      child.pending.delete(id);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** Tells the children a plan will draw no more (they close its connection). */
export function forgetRemotePlan(plan: RemotePlan): void {
  for (const child of children) {
    if (child === undefined || !child.plans.delete(plan.id)) continue;
    try {
      child.process.send({ type: 'forget', plan: plan.id } satisfies DrawChildRequest);
    } catch {
      // A child gone needs no telling.
    }
  }
}

function leastBusyChild(): DrawChild {
  let best: DrawChild | undefined;
  for (let i = 0; i < DRAW_CHILDREN; i += 1) {
    const child = (children[i] ??= startChild(i));
    if (best === undefined || child.pending.size < best.pending.size) best = child;
  }
  return best!;
}

function startChild(slot: number): DrawChild {
  const entry = drawChildEntry();
  const handle = fork(entry.file, [], { execArgv: entry.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const child: DrawChild = { process: handle, answered: 0, plans: new Set(), pending: new Map() };
  handle.unref();
  handle.channel?.unref();
  handle.on('message', (reply: DrawChildReply) => {
    const waiting = child.pending.get(reply.id);
    if (waiting === undefined) return;
    child.pending.delete(reply.id);
    child.answered += 1;
    if (child.pending.size === 0) {
      handle.unref();
      handle.channel?.unref();
    }
    if (reply.type === 'failed') waiting.reject(new Error(`draw child: ${reply.message}`));
    else waiting.resolve(reply.ok ? { ok: true, database: reply.database, rejected: reply.rejected } : { ok: false, reason: reply.reason, rejected: reply.rejected });
  });
  const gone = (why: string): void => {
    if (children[slot] === child) children[slot] = undefined;
    // A child that never answered will not start next time either: this process draws in process from now on.
    if (child.answered === 0 && child.pending.size > 0) disabled = new Error(`draw child ${why} before its first draw`);
    const waiting = [...child.pending.values()];
    child.pending.clear();
    for (const w of waiting) w.reject(new Error(`draw child ${why}`));
  };
  handle.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
  handle.on('error', (error) => {
    gone(`failed: ${error.message}`);
    handle.kill();
  });
  return child;
}

/** The child entry next to this module: `.ts` under a TypeScript runner (vitest), `.js` in dist. */
function drawChildEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const file = path.join(path.dirname(here), `draw-child${extension}`);
  if (extension !== '.ts') return { file, execArgv: [] };
  return { file, execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] };
}

/** Process ids of the draw children running now (for diagnostics and tests). */
export function drawChildPids(): number[] {
  return children.flatMap((child) => (child?.process.pid === undefined ? [] : [child.process.pid]));
}
