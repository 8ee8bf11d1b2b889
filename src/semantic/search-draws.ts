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
 * its file instead of drawing it again. Which databases a pair gets, and so every verdict, is what
 * drawing them afresh gives.
 *
 * Files are written once and never changed (one per plan and draw); the engine opens them
 * read-only. A plan's files stay while a search uses the plan and, after that, until
 * {@link SearchDrawStoreOptions.keptPlans} more recently used plans are idle; the store's folder is
 * the searcher's scratch.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { generateDatabase, releaseGeneratorPlan } from './generate-database.js';
import type { GeneratorPlan } from './generator-plan.js';
import type { GoldLiteral } from './gold-literals.js';
import type { RejectedDatabases } from './database-contract.js';
import { createPrng } from './prng.js';
import type { RowRange } from './table-filler.js';

/** One draw: its file, or `null` when the generator could not make one; what the generator dropped on the way. */
export interface SearchDraw {
  readonly file: string | null;
  readonly rejected: RejectedDatabases;
}

/** The draws of one plan, held by one search until {@link PlanDraws.release}. */
export interface PlanDraws {
  /** The plan (shared by every search of the same constants; also used to edit a witness). */
  readonly plan: GeneratorPlan;
  /**
   * Draw `stream` with `rows` per table (two attempts, as the search always drew): the file
   * already drawn for the same stream and rows, or a new one.
   */
  draw(stream: string, rows: RowRange): SearchDraw;
  /** Ends this search's use; the files stay for later searches (see the module doc). Idempotent. */
  release(): void;
}

/** A searcher's store of drawn databases. */
export interface SearchDrawStore {
  /**
   * The draws of the plan of these constants, made with `makePlan` on first use.
   * @param literals - the pair's constants (gold-literals.ts), as the plan is built from them.
   */
  acquire(literals: readonly GoldLiteral[], makePlan: () => GeneratorPlan): PlanDraws;
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
  readonly plan: GeneratorPlan;
  readonly draws: Map<string, SearchDraw>;
  users: number;
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

  const drop = (entry: Entry): void => {
    entries.delete(entry.key);
    releaseGeneratorPlan(entry.plan);
    rmSync(entry.dir, { recursive: true, force: true });
  };
  const evictIdle = (): void => {
    let idle = [...entries.values()].filter((e) => e.users === 0);
    while (idle.length > kept) {
      drop(idle[0]!);
      idle = idle.slice(1);
    }
  };

  return {
    acquire(literals, makePlan) {
      const key = planKey(literals);
      let entry = entries.get(key);
      if (entry === undefined) {
        const entryDir = path.join(dir, `plan-${folders++}`);
        rmSync(entryDir, { recursive: true, force: true });
        mkdirSync(entryDir, { recursive: true });
        entry = { key, dir: entryDir, plan: makePlan(), draws: new Map(), users: 0 };
      } else {
        entries.delete(key);
      }
      entries.set(key, entry);
      entry.users += 1;
      const held = entry;
      let released = false;
      return {
        plan: held.plan,
        draw(stream, rows) {
          const drawKey = `${stream}\u0000${rows.min}\u0000${rows.max}`;
          const known = held.draws.get(drawKey);
          if (known !== undefined) return known;
          const file = path.join(held.dir, `draw-${held.draws.size}.sqlite`);
          const outcome = generateDatabase(held.plan, { rng: createPrng(stream), file, rows, maxAttempts: 2 });
          if (!outcome.ok) return { file: null, rejected: outcome.rejected };
          // Only a database is kept: a failed draw is drawn again (a failure may be the disk's).
          const drawn: SearchDraw = { file, rejected: outcome.rejected };
          held.draws.set(drawKey, drawn);
          return drawn;
        },
        release() {
          if (released) return;
          released = true;
          held.users -= 1;
          if (entries.get(held.key) !== held) {
            // Cleared while in use: the last user removes the files.
            if (held.users === 0) {
              releaseGeneratorPlan(held.plan);
              rmSync(held.dir, { recursive: true, force: true });
            }
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
