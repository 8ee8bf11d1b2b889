/**
 * The search loop of a counterexample search: draw databases in growing size tiers and judge each
 * until every gold is distinguished from the prediction or the budget is spent, keeping the
 * distinguishing databases (candidates) and the counts of what told nothing.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { addRejections, countRejection, type RejectedDatabases } from '../generation/database-contract.js';
import { tierOfDraw } from './search-budget.js';
import type { PlanDraws } from './search-draws.js';
import type { SearchContext, SearchRequest } from './search-request.js';
import { confirmOrderIndependent, judgeDatabase, type DatabaseJudgement } from '../suite/witness-check.js';

/** A database that distinguishes some golds, before shrinking. */
export interface Candidate {
  readonly file: string;
  /** Indices into the golds that prepare (`live`). */
  readonly golds: readonly number[];
  readonly draw: { readonly index: number; readonly tier: string };
}

/** Counts kept while the search runs. */
export interface Tally {
  databases: number;
  byTier: Record<string, number>;
  generationFailures: number;
  unusable: { gold_error: number; nondeterministic: number; ties: number };
  noEvidence: number;
  emptyVsNullRow: number;
  orderDependent: number;
  rejectedDatabases: RejectedDatabases;
}

/** Databases drawn and sent to the engine together: one message per child instead of one per query. */
export const SEARCH_BATCH = 10;

/** One draw of a batch: the database (or `null` when the generator could not make one) and what the generator dropped. */
interface BatchDraw {
  readonly database: { readonly file: string; readonly tier: string } | null;
  readonly rejected: RejectedDatabases;
  /** The golds and prediction run on it (never rejects: a failure is remembered for the draw's turn). */
  readonly judgement: Promise<{ ok: true; value: DatabaseJudgement } | { ok: false; error: unknown }> | null;
}

/**
 * Draws and judges databases until every gold is distinguished (by one database, or one per
 * gold) or the budget is spent.
 *
 * The engine gets the databases {@link SEARCH_BATCH} at a time: a batch is drawn (in the draw
 * children: search-draws.ts), every query on every database of it is handed to the engine in one
 * turn of the event loop (one message per engine child), and the next batch is drawn while the
 * engine's children run them. Judgements are read in draw
 * order and the loop stops at the first database that completes the refutation, so the outcome,
 * the witness and every count are those of judging the draws one by one: a database judged after
 * the stopping one is never looked at (the loop waits for its queries so none outlives the search).
 * A database an earlier search of the same constants drew is read from `draws`, not drawn again.
 */
export async function findCandidates(
  ctx: SearchContext,
  draws: PlanDraws,
  request: SearchRequest,
  golds: readonly string[],
  tally: Tally,
): Promise<{ candidates: Candidate[]; covered: Set<number>; stoppedBy: 'databases' | 'seconds' | 'refuted' }> {
  const { judge, budget, predicted } = request;
  const reordered = path.join(ctx.dir, 'reordered.sqlite');
  const candidates: Candidate[] = [];
  const covered = new Set<number>();
  // Each batch: its draws (made in the draw children), then every judgement of it at once.
  const batches = new Map<number, Promise<BatchDraw[]>>();
  const issue = (batch: number): void => {
    if (batches.has(batch) || batch * SEARCH_BATCH >= budget.maxDatabases) return;
    const pending: Promise<BatchDraw>[] = [];
    for (let index = batch * SEARCH_BATCH; index < Math.min(budget.maxDatabases, (batch + 1) * SEARCH_BATCH); index += 1) {
      const tier = tierOfDraw(index, budget.maxDatabases);
      pending.push(
        draws.draw(`${request.seed}/search/${index}`, tier.rows).then((outcome) => ({
          database: outcome.file === null ? null : { file: outcome.file, tier: tier.name },
          rejected: outcome.rejected,
          judgement: null,
        })),
      );
    }
    // Every query of the batch is queued in one turn, so the engine sends them together.
    batches.set(
      batch,
      Promise.all(pending).then((drawn) =>
        drawn.map((draw) => ({
          ...draw,
          judgement: draw.database === null ? null : judgeDatabase(judge, draw.database.file, golds, predicted, undefined, (gold) => draws.goldRun(judge, draw.database!.file, gold)).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error })),
        })),
      ),
    );
  };
  const drawAt = async (index: number): Promise<BatchDraw> => (await batches.get(Math.floor(index / SEARCH_BATCH))!)[index % SEARCH_BATCH]!;
  // What the generator dropped is counted one draw ahead of the judging, as when the next
  // database was drawn while the current one was judged.
  const account = async (index: number): Promise<void> => {
    if (index >= budget.maxDatabases) return;
    const draw = await drawAt(index);
    tally.rejectedDatabases = addRejections(tally.rejectedDatabases, draw.rejected);
    if (draw.database === null) tally.generationFailures += 1;
  };
  const settle = async (): Promise<void> => {
    const issued = await Promise.all(batches.values());
    await Promise.all(issued.flatMap((drawn) => drawn.map((d) => d.judgement)));
  };

  try {
    issue(0);
    await account(0);
    for (let index = 0; index < budget.maxDatabases; index += 1) {
      if (performance.now() >= request.deadline) return { candidates, covered, stoppedBy: 'seconds' };
      const batch = Math.floor(index / SEARCH_BATCH);
      if (index % SEARCH_BATCH === 0 && !batches.has(batch + 1)) {
        // Let this batch's queries leave before the next batch's draws are sent.
        await new Promise<void>((resolve) => setImmediate(resolve));
        issue(batch + 1);
      }
      const current = await drawAt(index);
      await account(index + 1);
      if (current.database === null || current.judgement === null) continue;
      const settled = await current.judgement;
      if (!settled.ok) throw settled.error;
      const judgement = settled.value;
      tally.databases += 1;
      tally.byTier[current.database.tier] = (tally.byTier[current.database.tier] ?? 0) + 1;
      countNoEvidence(tally, judgement);
      if (judgement.distinguished.every((g) => covered.has(g))) continue;
      // Draws are written unchecked: one that tells the queries apart must keep the contract.
      const violation = draws.contractViolation(current.database.file);
      if (violation !== null) {
        tally.rejectedDatabases = addRejections(tally.rejectedDatabases, countRejection({}, violation.rule));
        continue;
      }
      const confirmed = await confirmOrderIndependent(judge, ctx.schema, current.database.file, reordered, golds, predicted, judgement);
      tally.orderDependent += judgement.distinguished.length - confirmed.length;
      const all = confirmed.length === golds.length;
      if (!all && confirmed.every((g) => covered.has(g))) continue;
      // One database that distinguishes every gold replaces the per-gold ones.
      if (all) candidates.splice(0, candidates.length);
      const file = path.join(ctx.dir, `candidate-${candidates.length}.sqlite`);
      copyFileSync(current.database.file, file);
      candidates.push({ file, golds: confirmed, draw: { index, tier: current.database.tier } });
      for (const g of confirmed) covered.add(g);
      if (covered.size === golds.length) return { candidates, covered, stoppedBy: 'refuted' };
    }
    return { candidates, covered, stoppedBy: 'databases' };
  } finally {
    await settle();
  }
}

/** Counts why a database told nothing about some gold. */
function countNoEvidence(tally: Tally, judgement: DatabaseJudgement): void {
  const unusable = judgement.golds.find((g) => g.kind === 'unusable');
  if (unusable !== undefined && unusable.kind === 'unusable') tally.unusable[unusable.reason] += 1;
  if (judgement.golds.some((g) => g.kind === 'no_evidence' && g.why === 'empty_vs_null_row')) tally.emptyVsNullRow += 1;
  else if (judgement.golds.some((g) => g.kind === 'no_evidence')) tally.noEvidence += 1;
}
