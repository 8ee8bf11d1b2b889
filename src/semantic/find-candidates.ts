/**
 * The search loop of a counterexample search: draw databases in growing size tiers and judge each
 * until every gold is distinguished from the prediction or the budget is spent, keeping the
 * distinguishing databases (candidates) and the counts of what told nothing.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { addRejections, type RejectedDatabases } from './database-contract.js';
import { generateDatabase } from './generate-database.js';
import type { GeneratorPlan } from './generator-plan.js';
import { createPrng } from './prng.js';
import { tierOfDraw } from './search-budget.js';
import type { SearchContext, SearchRequest } from './search-request.js';
import { confirmOrderIndependent, judgeDatabase, type DatabaseJudgement } from './witness-check.js';

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

/**
 * Draws and judges databases until every gold is distinguished (by one database, or one per
 * gold) or the budget is spent. Two slots alternate so that the next database is drawn while the
 * engine runs the queries on the current one.
 */
export async function findCandidates(
  ctx: SearchContext,
  plan: GeneratorPlan,
  request: SearchRequest,
  golds: readonly string[],
  tally: Tally,
): Promise<{ candidates: Candidate[]; covered: Set<number>; stoppedBy: 'databases' | 'seconds' | 'refuted' }> {
  const { judge, budget, predicted } = request;
  const slots = [path.join(ctx.dir, 'draw-a.sqlite'), path.join(ctx.dir, 'draw-b.sqlite')];
  const reordered = path.join(ctx.dir, 'reordered.sqlite');
  const candidates: Candidate[] = [];
  const covered = new Set<number>();
  const draw = (index: number): { file: string; tier: string } | null => {
    const tier = tierOfDraw(index, budget.maxDatabases);
    const file = slots[index % 2]!;
    const outcome = generateDatabase(plan, { rng: createPrng(`${request.seed}/search/${index}`), file, rows: tier.rows, maxAttempts: 2 });
    tally.rejectedDatabases = addRejections(tally.rejectedDatabases, outcome.rejected);
    if (outcome.ok) return { file, tier: tier.name };
    tally.generationFailures += 1;
    return null;
  };
  let next = draw(0);
  for (let index = 0; index < budget.maxDatabases; index += 1) {
    if (performance.now() >= request.deadline) return { candidates, covered, stoppedBy: 'seconds' };
    const current = next;
    const pending = current === null ? null : judgeDatabase(judge, current.file, golds, predicted);
    next = index + 1 < budget.maxDatabases ? draw(index + 1) : null;
    if (current === null || pending === null) continue;
    const judgement = await pending;
    tally.databases += 1;
    tally.byTier[current.tier] = (tally.byTier[current.tier] ?? 0) + 1;
    countNoEvidence(tally, judgement);
    if (judgement.distinguished.every((g) => covered.has(g))) continue;
    const confirmed = await confirmOrderIndependent(judge, ctx.schema, current.file, reordered, golds, predicted, judgement);
    tally.orderDependent += judgement.distinguished.length - confirmed.length;
    const all = confirmed.length === golds.length;
    if (!all && confirmed.every((g) => covered.has(g))) continue;
    // One database that distinguishes every gold replaces the per-gold ones.
    if (all) candidates.splice(0, candidates.length);
    const file = path.join(ctx.dir, `candidate-${candidates.length}.sqlite`);
    copyFileSync(current.file, file);
    candidates.push({ file, golds: confirmed, draw: { index, tier: current.tier } });
    for (const g of confirmed) covered.add(g);
    if (covered.size === golds.length) return { candidates, covered, stoppedBy: 'refuted' };
  }
  return { candidates, covered, stoppedBy: 'databases' };
}

/** Counts why a database told nothing about some gold. */
function countNoEvidence(tally: Tally, judgement: DatabaseJudgement): void {
  const unusable = judgement.golds.find((g) => g.kind === 'unusable');
  if (unusable !== undefined && unusable.kind === 'unusable') tally.unusable[unusable.reason] += 1;
  if (judgement.golds.some((g) => g.kind === 'no_evidence' && g.why === 'empty_vs_null_row')) tally.emptyVsNullRow += 1;
  else if (judgement.golds.some((g) => g.kind === 'no_evidence')) tally.noEvidence += 1;
}
