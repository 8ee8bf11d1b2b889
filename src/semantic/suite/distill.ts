/**
 * Distillation (Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL with Distilled Test
 * Suites", EMNLP 2020, §4): draw random databases and keep one for a gold only when it tells the
 * gold apart from a neighbour that no kept database (and no snapshot) tells apart yet.
 *
 * Greedy and lossless: every drawn database runs the gold's still-uncovered neighbours, so a
 * neighbour that any drawn database distinguishes is covered by the suite. A gold stops when all
 * its neighbours are covered, or its budget is spent: databases drawn, seconds spent on it, or
 * `patience` draws in a row that covered nothing. Neighbours never distinguished are reported
 * (likely equivalent to the gold, for review).
 *
 * Databases are drawn once per schema and shared by every gold on it: draw `i` is
 * `generateDatabase(plan, createPrng(`${seed}/db/${i}`))`, so a suite is stored as its seed and
 * the indices it kept, and any kept database can be regenerated alone. Draws are made in the draw
 * children (draw-children.ts; in process when none can run), one ahead of the draw being judged,
 * into two slot files used in turn; a kept draw is copied to `gen-<index>.sqlite`. The golds still
 * active run on each draw at the same time (each gold's coverage is its own, so the order they
 * finish in changes nothing but wall time).
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Snapshot } from '../../fixtures/snapshot.js';
import { addRejections, type RejectedDatabases } from '../generation/database-contract.js';
import { runAgainstGold, runGold, type DistinguishContext } from './distinguish.js';
import { drawInChild, forgetRemotePlan, type DrawOutcome, type RemotePlan } from '../generation/draw-children.js';
import { generateDatabase, type GeneratedDatabase } from '../generation/generate-database.js';
import type { GeneratorPlan } from '../generation/generator-plan.js';
import { mapConcurrent, type Neighbour } from '../neighbours/neighbours.js';
import { createPrng, type Prng } from '../model/prng.js';
import type { ResolvedSuiteBudget } from './suite-budget.js';

/** Bumped whenever distillation could keep different databases for the same draws (part of suite cache keys). */
export const DISTILL_VERSION = 2;

/** One gold to distil a suite for. */
export interface DistillGold {
  /** The gold as it runs (after the policy's rewrites). */
  readonly sql: string;
  readonly neighbours: readonly Neighbour[];
}

/** Which database first distinguished a neighbour. */
export interface Coverage {
  /** Snapshot name, or `gen-<index>` for a generated database. */
  readonly database: string;
  /** The draw index for a generated database; `null` for a snapshot. */
  readonly index: number | null;
  /** `result`: different rows under the policy; `error`: the neighbour failed there. */
  readonly how: 'result' | 'error';
  /** The verdict's reason or the error. */
  readonly detail: string;
}

/** Why a gold's distillation stopped. */
export type StopReason = 'covered' | 'patience' | 'databases' | 'seconds';

/** Databases left out for one gold, by cause. */
export interface SkippedDatabases {
  /** The gold failed to run (error or timeout). */
  readonly gold_error: number;
  /** A LIMIT cut a tie group whose rows differ. */
  readonly nondeterministic: number;
  /** Rows tied on the sort keys differ and the policy checks order row by row. */
  readonly ties: number;
}

/** The suite of one gold. */
export interface DistilledGold {
  /** Draw indices kept, ascending. */
  readonly keptIndices: readonly number[];
  /** Per neighbour (by its index), the database that first distinguished it; `null` = never. */
  readonly coverage: readonly (Coverage | null)[];
  /** Neighbours distinguished by the snapshots. */
  readonly bySnapshots: number;
  /** Neighbours distinguished only by generated databases. */
  readonly byGenerated: number;
  /** Generated databases this gold was run on. */
  readonly drawn: number;
  readonly skipped: SkippedDatabases;
  readonly stopReason: StopReason;
  /** Wall time spent on this gold (its queries plus its share of drawing), ms. */
  readonly elapsedMs: number;
  /** Snapshots the gold failed on (`name: message`). */
  readonly snapshotErrors: readonly string[];
}

/** Inputs of {@link distillSuites}. */
export interface DistillInput {
  readonly context: DistinguishContext;
  readonly plan: GeneratorPlan;
  /**
   * The same plan for the draw children (`remotePlan` of the inputs `plan` was made from, with
   * `observed` given); without it every draw is made in this process. Forgotten when distillation ends.
   */
  readonly remote?: RemotePlan;
  /** The existing snapshots: what they distinguish needs no generated database. */
  readonly snapshots: readonly Snapshot[];
  readonly golds: readonly DistillGold[];
  readonly seed: string;
  readonly budget: ResolvedSuiteBudget;
  /** Folder for the draw slot and the kept databases (created). */
  readonly dir: string;
  /** Neighbours run at once per database (default 8). */
  readonly concurrency?: number;
  /** Called after each draw. */
  readonly onDraw?: (event: { readonly index: number; readonly activeGolds: number; readonly kept: boolean }) => void;
}

/** What {@link distillSuites} built. */
export interface DistillOutput {
  readonly golds: readonly DistilledGold[];
  /** Kept databases by draw index. */
  readonly databases: ReadonlyMap<number, GeneratedDatabase>;
  /** Draws made (shared by the golds). */
  readonly draws: number;
  /** Draws the generator could not make, with the reason. */
  readonly generationFailures: readonly { readonly index: number; readonly reason: string }[];
  /** Drawn databases dropped because they broke the contract of generated databases, by rule. */
  readonly rejectedDatabases: RejectedDatabases;
  readonly elapsedMs: number;
}

/** File name of a kept generated database. */
export function generatedDatabaseFile(index: number): string {
  return `gen-${String(index).padStart(4, '0')}.sqlite`;
}

/** The stream of draw `index` under `seed`. */
export function drawStream(seed: string, index: number): Prng {
  return createPrng(drawStreamName(seed, index));
}

/** The name of draw `index`'s stream under `seed` (what {@link drawStream} seeds from). */
export function drawStreamName(seed: string, index: number): string {
  return `${seed}/db/${index}`;
}

interface GoldState {
  readonly gold: DistillGold;
  readonly coverage: (Coverage | null)[];
  readonly uncovered: Set<number>;
  readonly kept: number[];
  readonly skipped: { gold_error: number; nondeterministic: number; ties: number };
  readonly snapshotErrors: string[];
  bySnapshots: number;
  drawn: number;
  sinceProgress: number;
  elapsedMs: number;
  stop: StopReason | null;
}

/**
 * Distils one suite per gold from databases drawn for their shared schema.
 * @returns per gold: kept indices, coverage, counts and why it stopped; the kept databases.
 */
export async function distillSuites(input: DistillInput): Promise<DistillOutput> {
  const started = performance.now();
  mkdirSync(input.dir, { recursive: true });
  const concurrency = input.concurrency ?? 8;
  const states: GoldState[] = input.golds.map((gold) => ({
    gold,
    coverage: gold.neighbours.map(() => null),
    uncovered: new Set(gold.neighbours.map((n) => n.index)),
    kept: [],
    skipped: { gold_error: 0, nondeterministic: 0, ties: 0 },
    snapshotErrors: [],
    bySnapshots: 0,
    drawn: 0,
    sinceProgress: 0,
    elapsedMs: 0,
    stop: null,
  }));

  // What the snapshots already distinguish (the golds at the same time, snapshots in order).
  await Promise.all(
    states.map(async (state) => {
      const t0 = performance.now();
      for (const snapshot of input.snapshots) {
        const gold = await runGold(input.context, snapshot.path, state.gold.sql, false);
        if (!gold.usable) {
          state.snapshotErrors.push(`${snapshot.name}: ${gold.message}`);
          continue;
        }
        await cover(state, snapshot.path, { database: snapshot.name, index: null }, gold, input.context, concurrency);
      }
      state.bySnapshots = state.gold.neighbours.length - state.uncovered.size;
      state.elapsedMs += performance.now() - t0;
      updateStop(state, input.budget);
    }),
  );

  const databases = new Map<number, GeneratedDatabase>();
  const generationFailures: { index: number; reason: string }[] = [];
  let rejectedDatabases: RejectedDatabases = {};
  const slots = [path.join(input.dir, 'draw-a.sqlite'), path.join(input.dir, 'draw-b.sqlite')];
  // Draw `index` into its slot, started while the draw before it is judged.
  const drawAt = (index: number): Promise<DrawnDatabase> => drawDatabase(input, index, slots[index % 2]!);
  let draws = 0;
  let ahead: Promise<DrawnDatabase> | null = null;
  try {
    for (let index = 0; index < input.budget.maxDatabases; index += 1) {
      const active = states.filter((s) => s.stop === null);
      if (active.length === 0) break;
      const t0 = performance.now();
      const outcome = await (ahead ?? drawAt(index));
      ahead = index + 1 < input.budget.maxDatabases ? drawAt(index + 1) : null;
      rejectedDatabases = addRejections(rejectedDatabases, outcome.rejected);
      const drawMs = (performance.now() - t0) / active.length;
      draws += 1;
      if (!outcome.ok) {
        generationFailures.push({ index, reason: outcome.reason });
        for (const state of active) {
          state.drawn += 1;
          state.sinceProgress += 1;
          state.elapsedMs += drawMs;
          updateStop(state, input.budget);
        }
        continue;
      }
      const slot = outcome.database.file;
      const progressed = await Promise.all(
        active.map(async (state) => {
          const t1 = performance.now();
          state.drawn += 1;
          const gold = await runGold(input.context, slot, state.gold.sql, true);
          let covered = false;
          if (!gold.usable) {
            state.skipped[gold.reason] += 1;
          } else {
            covered = (await cover(state, slot, { database: generatedName(index), index }, gold, input.context, concurrency)) > 0;
          }
          if (covered) {
            state.kept.push(index);
            state.sinceProgress = 0;
          } else {
            state.sinceProgress += 1;
          }
          state.elapsedMs += performance.now() - t1 + drawMs;
          return covered;
        }),
      );
      // Stops are decided once every gold is done with the draw, as when they ran one by one.
      for (const state of active) updateStop(state, input.budget);
      const kept = progressed.some(Boolean);
      if (kept) {
        const file = path.join(input.dir, generatedDatabaseFile(index));
        copyFileSync(slot, file);
        databases.set(index, { ...outcome.database, file });
      }
      input.onDraw?.({ index, activeGolds: active.length, kept });
    }
  } finally {
    // A draw started ahead and not needed is waited for, so no child writes a slot after this.
    await ahead;
    if (input.remote !== undefined) forgetRemotePlan(input.remote);
    for (const slot of slots) rmSync(slot, { force: true });
  }
  for (const state of states) if (state.stop === null) state.stop = 'databases';

  return {
    golds: states.map((state) => ({
      keptIndices: state.kept,
      coverage: state.coverage,
      bySnapshots: state.bySnapshots,
      byGenerated: state.gold.neighbours.length - state.uncovered.size - state.bySnapshots,
      drawn: state.drawn,
      skipped: state.skipped,
      stopReason: state.stop!,
      elapsedMs: Math.round(state.elapsedMs),
      snapshotErrors: state.snapshotErrors,
    })),
    databases,
    draws,
    generationFailures,
    rejectedDatabases,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** A draw of the suite: the generator's outcome, the database written to its slot when `ok`. */
type DrawnDatabase = { readonly ok: true; readonly database: GeneratedDatabase; readonly rejected: RejectedDatabases } | { readonly ok: false; readonly reason: string; readonly rejected: RejectedDatabases };

/**
 * Draw `index` of the suite into `file`: in a draw child when `input.remote` is given, else (or
 * when no child could make it) in this process; the same bytes either way. Never rejects.
 */
async function drawDatabase(input: DistillInput, index: number, file: string): Promise<DrawnDatabase> {
  const here = (): DrawnDatabase => generateDatabase(input.plan, { rng: drawStream(input.seed, index), file });
  if (input.remote === undefined) return here();
  let outcome: DrawOutcome;
  try {
    outcome = await drawInChild({ plan: input.remote, stream: drawStreamName(input.seed, index), file });
  } catch {
    return here();
  }
  if (!outcome.ok) return { ok: false, reason: outcome.reason, rejected: outcome.rejected };
  if (outcome.database === undefined) return here();
  return { ok: true, database: { ...outcome.database, file }, rejected: outcome.rejected };
}

/** Name of a generated database in reasons and coverage: `gen-<index>`. */
export function generatedName(index: number): string {
  return `gen-${index}`;
}

/** Runs the uncovered neighbours on one database; returns how many it newly covered. */
async function cover(
  state: GoldState,
  db: string,
  where: { database: string; index: number | null },
  gold: Extract<Awaited<ReturnType<typeof runGold>>, { usable: true }>,
  context: DistinguishContext,
  concurrency: number,
): Promise<number> {
  const pending = [...state.uncovered];
  const outcomes = await mapConcurrent(pending, concurrency, (i) => runAgainstGold(context, db, gold, state.gold.neighbours[i]!.sql));
  let newly = 0;
  outcomes.forEach((outcome, k) => {
    if (!outcome.distinguished) return;
    const i = pending[k]!;
    state.coverage[i] = { ...where, how: outcome.how, detail: outcome.detail };
    state.uncovered.delete(i);
    newly += 1;
  });
  return newly;
}

function updateStop(state: GoldState, budget: ResolvedSuiteBudget): void {
  if (state.stop !== null) return;
  if (state.uncovered.size === 0) state.stop = 'covered';
  else if (state.sinceProgress >= budget.patience) state.stop = 'patience';
  else if (state.drawn >= budget.maxDatabases) state.stop = 'databases';
  else if (state.elapsedMs >= budget.maxSeconds * 1000) state.stop = 'seconds';
}
