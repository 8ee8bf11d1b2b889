/**
 * The databases a counterexample searcher has drawn, kept for the later searches that would draw
 * the very same ones.
 *
 * A search's draw `i` is `generateDatabase(plan, createPrng(`${seed}/search/${i}`))` with the rows
 * of its size tier, and its plan depends on what the searcher fixes (schema, snapshots' values,
 * invariants, NULL policy) and on the pair's constants alone: their values, operators and the
 * columns they are compared with, in source order (value-pools.ts reads nothing else of them).
 * Two pairs whose constants are the same — one gold judged against several predictions, questions
 * without constants on one schema (in the first 150 Spider dev pairs, 150 searches need only 52
 * plans) — therefore draw byte-identical databases, and a search that finds one already drawn uses
 * its file instead of drawing it again; a gold it runs there that an earlier search already ran
 * there under the same policy is not run again either ({@link PlanDraws.goldRun}). Which
 * databases a pair gets, and so every verdict, is what drawing them afresh gives.
 *
 * The draws themselves run in the draw children (draw-children.ts; in process when none can run),
 * so the process searching only judges. They are written without the contract check (a fifth of
 * a draw): the search checks the contract of the few draws that tell its queries apart, before
 * they may refute anything ({@link PlanDraws.contractViolation}). Files are written once and never changed (one per plan
 * and draw); the engine opens them read-only. A plan's files stay while a search uses the plan and, after that, until
 * {@link SearchDrawStoreOptions.keptPlans} more recently used plans are idle; the store's folder is
 * the searcher's scratch.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { drawInChild, forgetRemotePlan, remotePlan, type DrawJob, type DrawOutcome, type RemotePlan } from '../generation/draw-children.js';
import { generateDatabase, releaseGeneratorPlan } from '../generation/generate-database.js';
import { createGeneratorPlan, type CreatePlanInput, type GeneratorPlan } from '../generation/generator-plan.js';
import type { GoldLiteral } from '../model/gold-literals.js';
import { fileContractViolation, type ContractViolation, type RejectedDatabases } from '../generation/database-contract.js';
import { runGold, type DistinguishContext, type GoldOnDatabase } from '../suite/distinguish.js';
import { countTransientFailures } from '../model/transient-failures.js';
import { createPrng } from '../model/prng.js';
import type { RowRange } from '../generation/table-filler.js';

/** One draw: its file, or `null` when the generator could not make one; what the generator dropped on the way. */
export interface SearchDraw {
  readonly file: string | null;
  readonly rejected: RejectedDatabases;
}

/** The draws of one plan, held by one search until {@link PlanDraws.release}. */
export interface PlanDraws {
  /** The plan in this process (made on first call, shared by every search of the same constants): to edit a witness. */
  plan(): GeneratorPlan;
  /**
   * Draw `stream` with `rows` per table (two attempts, as the search always drew): the file
   * already drawn for the same stream and rows, or a new one. Never rejects.
   */
  draw(stream: string, rows: RowRange): Promise<SearchDraw>;
  /**
   * Runs a gold on a file {@link draw} gave, as `runGold(ctx, file, gold, true)`: the run an
   * earlier search made of the same gold on the same file under the same policy and
   * `goldOrdered` when there is one (the file never changes, so neither does the answer), else a
   * new run. A run that met a timeout, a memory cap or a lost child is never reused: the next
   * search runs the gold itself, so its own count of such failures sees it.
   */
  goldRun(ctx: DistinguishContext, file: string, gold: string): Promise<GoldOnDatabase>;
  /**
   * The contract rule a file {@link draw} gave breaks (`fileContractViolation` against the plan's
   * contract), or `null`: draws are written unchecked, and a search checks the few that tell its
   * queries apart before they may refute anything. Checked once per file.
   */
  contractViolation(file: string): ContractViolation | null;
  /** Ends this search's use; the files stay for later searches (see the module doc). Idempotent. */
  release(): void;
}

/** A searcher's store of drawn databases. */
export interface SearchDrawStore {
  /**
   * The draws of the plan of these constants.
   * @param input - the plan's inputs (`createGeneratorPlan`): the searcher's fixed ones with `observed` given, and the pair's `literals`.
   */
  acquire(input: CreatePlanInput & { readonly literals: readonly GoldLiteral[] }): PlanDraws;
  /** Plans (and their files) held now, in use or idle. */
  readonly size: number;
  /** Drops every plan and removes its files (the folder itself stays). */
  clear(): void;
}

/** Options of {@link createSearchDrawStore}. */
export interface SearchDrawStoreOptions {
  /** Idle plans whose files are kept for a later search (default {@link KEPT_IDLE_PLANS}). */
  readonly keptPlans?: number;
}

/**
 * Idle plans kept. A search's files are about 100 small databases (a few MB); the main job's rows
 * of one schema come a few at a time, and the Spider runs group a database's items together.
 */
export const KEPT_IDLE_PLANS = 4;

interface Entry {
  readonly key: string;
  readonly dir: string;
  readonly input: CreatePlanInput;
  readonly remote: RemotePlan;
  /** The plan in this process, once needed (an edit, a draw no child could make). */
  plan: GeneratorPlan | undefined;
  readonly draws: Map<string, Promise<SearchDraw>>;
  /** Contract checks of its files (a file never changes). */
  readonly violations: Map<string, ContractViolation | null>;
  /** Gold runs on its files, with the count of transient failures each met. */
  readonly goldRuns: Map<string, { readonly run: Promise<GoldOnDatabase>; readonly transient: () => number }>;
  users: number;
}

/** The policy's part of a gold run's key (a policy object is resolved once per search). */
const policyKeys = new WeakMap<object, string>();
function policyKey(policy: DistinguishContext['policy']): string {
  let key = policyKeys.get(policy);
  if (key === undefined) policyKeys.set(policy, (key = JSON.stringify(policy)));
  return key;
}

function localPlan(entry: Entry): GeneratorPlan {
  return (entry.plan ??= createGeneratorPlan(entry.input));
}

function dropFiles(entry: Entry): void {
  forgetRemotePlan(entry.remote);
  if (entry.plan !== undefined) releaseGeneratorPlan(entry.plan);
  rmSync(entry.dir, { recursive: true, force: true });
}

/**
 * Creates the store of one searcher.
 * @param dir - a folder the store owns (created; each plan gets a sub-folder).
 */
export function createSearchDrawStore(dir: string, options: SearchDrawStoreOptions = {}): SearchDrawStore {
  const kept = options.keptPlans ?? KEPT_IDLE_PLANS;
  // Least recently used first (a Map keeps insertion order; a used entry is moved to the end).
  const entries = new Map<string, Entry>();
  let folders = 0;
  let files = 0;

  const drop = (entry: Entry): void => {
    entries.delete(entry.key);
    dropFiles(entry);
  };
  const evictIdle = (): void => {
    let idle = [...entries.values()].filter((e) => e.users === 0);
    while (idle.length > kept) {
      drop(idle[0]!);
      idle = idle.slice(1);
    }
  };

  return {
    acquire(input) {
      const key = planKey(input.literals);
      let entry = entries.get(key);
      if (entry === undefined) {
        const entryDir = path.join(dir, `plan-${folders++}`);
        rmSync(entryDir, { recursive: true, force: true });
        mkdirSync(entryDir, { recursive: true });
        entry = { key, dir: entryDir, input, remote: remotePlan(input), plan: undefined, draws: new Map(), violations: new Map(), goldRuns: new Map(), users: 0 };
      } else {
        entries.delete(key);
      }
      entries.set(key, entry);
      entry.users += 1;
      const held = entry;
      let released = false;
      return {
        plan: () => localPlan(held),
        draw(stream, rows) {
          const drawKey = `${stream}\u0000${rows.min}\u0000${rows.max}`;
          const known = held.draws.get(drawKey);
          if (known !== undefined) return known;
          // The contract is checked by the search, on the draws that tell the queries apart (contractViolation).
          const job: DrawJob = { plan: held.remote, stream, rows, maxAttempts: 2, checkContract: false, file: path.join(held.dir, `draw-${files++}.sqlite`) };
          const drawn = drawInChild(job)
            .catch((): DrawOutcome => drawHere(held, job))
            .then((outcome): SearchDraw => (outcome.ok ? { file: job.file, rejected: outcome.rejected } : { file: null, rejected: outcome.rejected }));
          held.draws.set(drawKey, drawn);
          // Only a database is kept: a failed draw is drawn again (a failure may be the disk's).
          void drawn.then((d) => {
            if (d.file === null && held.draws.get(drawKey) === drawn) held.draws.delete(drawKey);
          });
          return drawn;
        },
        async goldRun(ctx, file, gold) {
          const key = `${file}\u0000${gold}\u0000${policyKey(ctx.policy)}\u0000${String(ctx.goldOrdered)}`;
          const known = held.goldRuns.get(key);
          if (known !== undefined) {
            const reused = await known.run.catch(() => undefined);
            if (reused !== undefined && known.transient() === 0) return reused;
          }
          const counting = countTransientFailures(ctx.engine);
          const run = runGold({ ...ctx, engine: counting.engine }, file, gold, true);
          const memo = { run, transient: counting.count };
          held.goldRuns.set(key, memo);
          const forget = (): void => {
            if (held.goldRuns.get(key) === memo) held.goldRuns.delete(key);
          };
          void run.then(() => {
            if (counting.count() > 0) forget();
          }, forget);
          return run;
        },
        contractViolation(file) {
          if (!held.violations.has(file)) held.violations.set(file, fileContractViolation(localPlan(held).contract, file));
          return held.violations.get(file)!;
        },
        release() {
          if (released) return;
          released = true;
          held.users -= 1;
          if (entries.get(held.key) !== held) {
            // Cleared while in use: the last user removes the files.
            if (held.users === 0) dropFiles(held);
            return;
          }
          evictIdle();
        },
      };
    },
    get size() {
      return entries.size;
    },
    clear() {
      for (const entry of [...entries.values()]) {
        if (entry.users === 0) drop(entry);
        else entries.delete(entry.key);
      }
    },
  };
}

/** A draw in this process (no draw child could make it): the same outcome, drawn here. */
function drawHere(entry: Entry, job: DrawJob): DrawOutcome {
  const outcome = generateDatabase(localPlan(entry), {
    rng: createPrng(job.stream),
    file: job.file,
    ...(job.rows === undefined ? {} : { rows: job.rows }),
    ...(job.maxAttempts === undefined ? {} : { maxAttempts: job.maxAttempts }),
    ...(job.checkContract === undefined ? {} : { checkContract: job.checkContract }),
  });
  return outcome.ok ? { ok: true, rejected: outcome.rejected } : { ok: false, reason: outcome.reason, rejected: outcome.rejected };
}

/**
 * What of the constants the plan is built from (value-pools.ts): each one's value, operator and
 * columns, in order. Values keep their storage class (`1`, `1.0` and `'1'` differ).
 */
export function planKey(literals: readonly GoldLiteral[]): string {
  return JSON.stringify(literals.map((l) => [valueKey(l.value), l.operator, l.columns.map((c) => [c.table, c.column])]));
}

function valueKey(value: GoldLiteral['value']): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `i:${value}`;
  if (typeof value === 'number') return `r:${Object.is(value, -0) ? '-0' : String(value)}`;
  if (typeof value === 'string') return `t:${value}`;
  return `b:${Buffer.from(value).toString('hex')}`;
}
