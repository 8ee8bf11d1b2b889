/**
 * From a distinguishing database to a reported witness: shrink it, check that the result keeps the
 * contract of generated databases (a database the fixture could hold under the item's options),
 * run the golds and the prediction again on it (and its reordered copies), and describe it
 * (tables, `INSERT` statements, a replayable script, both results).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Witness } from '../../rungs/semantic-details.js';
import { fileContractViolation, type RejectedDatabases } from '../generation/database-contract.js';
import { dumpDatabase } from '../generation/dump-database.js';
import { readStoredTables } from '../generation/edit-database.js';
import type { Candidate } from './find-candidates.js';
import type { GeneratorPlan } from '../generation/generator-plan.js';
import type { SearchContext, SearchRequest } from './search-request.js';
import { shrinkWitness, type ShrinkResult } from './shrink-witness.js';
import { fileChecksum } from '../suite/suite-cache.js';
import { confirmOrderIndependent, judgeDatabase, type DatabaseJudgement, type JudgeContext } from '../suite/witness-check.js';
import { insertStatements, witnessTables } from './witness-format.js';

/**
 * Shrinks a candidate and re-runs the queries on the result; falls back to the unshrunk database;
 * `null` when neither refutes again. Databases dropped by the contract on the way (edits and a
 * final witness that break it) are added to `rejected`.
 */
export async function shrinkAndVerify(
  ctx: SearchContext,
  plan: GeneratorPlan,
  request: SearchRequest,
  golds: readonly string[],
  live: readonly number[],
  candidate: Candidate,
  rejected: (counts: RejectedDatabases) => void,
): Promise<Witness | null> {
  const { judge, predicted } = request;
  const reordered = path.join(ctx.dir, 'reordered.sqlite');
  const targets = new Set(candidate.golds);
  const stillRefutes = async (file: string): Promise<boolean> => {
    const judgement = await judgeDatabase(judge, file, golds, predicted, targets);
    if (!candidate.golds.every((g) => judgement.distinguished.includes(g))) return false;
    const confirmed = await confirmOrderIndependent(judge, ctx.schema, file, reordered, golds, predicted, judgement);
    return candidate.golds.every((g) => confirmed.includes(g));
  };
  const best = path.join(ctx.dir, 'best.sqlite');
  const shrink = await shrinkWitness({ plan, source: candidate.file, trialFile: path.join(ctx.dir, 'trial.sqlite'), bestFile: best, stillRefutes, maxTrials: request.budget.maxShrinkTrials, deadline: request.deadline });
  rejected(shrink.rejected);
  const witness = await finalWitness(ctx, plan, judge, best, golds, live, predicted, candidate, shrink, reordered, request.keepWitnessIn, rejected);
  if (witness !== null) return witness;
  // The unshrunk database was confirmed when it was found.
  return finalWitness(ctx, plan, judge, candidate.file, golds, live, predicted, candidate, { ...shrink, rowsAfter: shrink.rowsBefore, accepted: 0, valuesSimplified: 0 }, reordered, request.keepWitnessIn, rejected);
}

/**
 * Checks a witness against the contract, runs the golds and the prediction again on it (and its
 * reordered copies) and builds the report; `null` when it breaks the contract or no longer refutes.
 */
async function finalWitness(
  ctx: SearchContext,
  plan: GeneratorPlan,
  judge: JudgeContext,
  file: string,
  golds: readonly string[],
  live: readonly number[],
  predicted: string,
  candidate: Candidate,
  shrink: ShrinkResult,
  reordered: string,
  keepIn: string | undefined,
  rejected: (counts: RejectedDatabases) => void,
): Promise<Witness | null> {
  const violation = fileContractViolation(plan.contract, file);
  if (violation !== null) {
    rejected({ [violation.rule]: 1 });
    return null;
  }
  const targets = new Set(candidate.golds);
  const judgement = await judgeDatabase(judge, file, golds, predicted, targets);
  if (!candidate.golds.every((g) => judgement.distinguished.includes(g))) return null;
  const confirmed = await confirmOrderIndependent(judge, ctx.schema, file, reordered, golds, predicted, judgement);
  if (!candidate.golds.every((g) => confirmed.includes(g))) return null;
  const stored = readStoredTables(file, ctx.schema);
  const order = new Map(plan.order.tables.map((name, i) => [name, i]));
  const tables = witnessTables([...stored].sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0)));
  const rowsPerTable = Object.fromEntries(stored.map((t) => [t.name, t.rows.length]));
  const checksum = fileChecksum(file);
  let kept: string | null = null;
  if (keepIn !== undefined) {
    mkdirSync(keepIn, { recursive: true });
    kept = path.resolve(keepIn, `witness-${checksum.slice(0, 16)}.sqlite`);
    copyFileSync(file, kept);
  }
  const distinguished = candidate.golds.map((g) => judgement.golds[g]!) as Extract<DatabaseJudgement['golds'][number], { kind: 'distinguished' }>[];
  return {
    golds: candidate.golds.map((g) => live[g]!),
    rowsPerTable,
    totalRows: stored.reduce((n, t) => n + t.rows.length, 0),
    maxRowsPerTable: Math.max(0, ...stored.map((t) => t.rows.length)),
    tables,
    inserts: insertStatements(tables),
    script: dumpDatabase(file),
    checksum,
    file: kept,
    goldResults: distinguished.map((d) => d.gold),
    predicted: judgement.predicted,
    verdicts: distinguished.map((d) => d.verdict),
    difference: distinguished[0]!.detail,
    shrink: { rowsBefore: shrink.rowsBefore, rowsAfter: shrink.rowsAfter, trials: shrink.trials, accepted: shrink.accepted, valuesSimplified: shrink.valuesSimplified, stoppedBy: shrink.stoppedBy },
    draw: candidate.draw,
  };
}
