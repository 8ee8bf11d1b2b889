/**
 * Does one database refute a prediction? The golds and the prediction run on it through the
 * engine (child processes, deadline, row cap; the file opened read-only like a snapshot), and each
 * gold's result is compared with the prediction's under the item's comparison policy.
 *
 * Per gold, the database is:
 * - `distinguished` when the gold is usable there (it runs and its answer is determined: no LIMIT
 *   cutting a tie group with differing rows, no differing ties under a row-by-row policy — see
 *   distinguish.ts) and the prediction returns a different result or fails at run time;
 * - `unusable` when the gold fails there or its answer is not determined;
 * - `no_evidence` when the prediction timed out, the column-map search ran out of budget, or the
 *   only difference is an empty result against one row of NULLs and the policy counts those as
 *   the same answer ({@link EmptyVsNullRow});
 * - `same` otherwise.
 *
 * A refutation is also checked for order dependence ({@link confirmOrderIndependent}): on copies
 * whose rows are stored in other orders, the gold must return the same result and the prediction
 * must still differ, so that a witness never rests on the order SQLite happens to read rows in.
 */
import { compareResults, type Verdict } from '../../compare/compare-results.js';
import type { GoldOrdering } from '../../compare/gold-ordering.js';
import type { ComparisonPolicy } from '../../compare/policy.js';
import type { ExecutionOutcome, QueryResult } from '../../engine/engine.js';
import { fileContractViolation, type ContractViolation, type DatabaseContract } from '../generation/database-contract.js';
import { runGold, type DistinguishContext, type GoldOnDatabase } from './distinguish.js';
import { ROW_REORDERINGS, writeReorderedCopy } from '../generation/edit-database.js';
import { isEmptyVsNullRow, type EmptyVsNullRow } from '../model/empty-vs-null-row.js';
import type { DatabaseSchema } from '../model/schema-reader.js';

/** What one database showed for one gold. */
export type GoldJudgement =
  | {
      readonly kind: 'distinguished';
      /** `result`: different rows under the policy; `error`: the prediction failed at run time. */
      readonly how: 'result' | 'error';
      readonly gold: QueryResult;
      readonly ordering: GoldOrdering;
      /** The comparison (`null` when the prediction failed). */
      readonly verdict: Verdict | null;
      /** The verdict's reason or the prediction's error. */
      readonly detail: string;
    }
  | { readonly kind: 'same'; readonly gold: QueryResult }
  | { readonly kind: 'unusable'; readonly reason: 'gold_error' | 'nondeterministic' | 'ties'; readonly message: string }
  | { readonly kind: 'no_evidence'; readonly why: 'timeout' | 'undecided' | 'empty_vs_null_row' }
  /** Left out by the caller (`only`). */
  | { readonly kind: 'not_run' };

/** What one database showed for every gold. */
export interface DatabaseJudgement {
  /** One per gold, in the order given. */
  readonly golds: readonly GoldJudgement[];
  readonly predicted: ExecutionOutcome;
  /** Indices of the golds the database distinguishes from the prediction. */
  readonly distinguished: readonly number[];
}

/** Inputs of {@link judgeDatabase}. */
export interface JudgeContext extends DistinguishContext {
  readonly emptyVsNullRow: EmptyVsNullRow;
}

/** Error codes of the moment (not of the query): never evidence. */
const TRANSIENT = new Set(['timeout', 'memory_limit', 'engine_failure']);

/**
 * Runs the golds and the prediction on one database and judges each gold.
 *
 * @param ctx - engine, resolved policy, deadline, `goldOrdered`, empty-vs-NULL-row policy.
 * @param db - the database file (opened read-only by the engine).
 * @param golds - the golds as they run (policy rewrites applied).
 * @param predictedSql - the prediction as it runs.
 * @param only - judge only these gold indices (the others are `not_run`); default all.
 * @param goldOn - runs a gold on `db` as `runGold(ctx, db, gold, true)` does (default that): the
 *   search passes one that reuses a run another search made on the same unchanged file.
 */
export async function judgeDatabase(
  ctx: JudgeContext,
  db: string,
  golds: readonly string[],
  predictedSql: string,
  only?: ReadonlySet<number>,
  goldOn: (gold: string) => Promise<GoldOnDatabase> = (gold) => runGold(ctx, db, gold, true),
): Promise<DatabaseJudgement> {
  const wanted = (i: number): boolean => only === undefined || only.has(i);
  const [predicted, ...goldRuns] = await Promise.all([
    ctx.engine.execute({ db, sql: predictedSql, ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }) }),
    ...golds.map((gold, i) => (wanted(i) ? goldOn(gold) : Promise.resolve(null))),
  ]);
  const judgements: GoldJudgement[] = goldRuns.map((run) => {
    if (run === null) return { kind: 'not_run' };
    if (!run.usable) return { kind: 'unusable', reason: run.reason, message: run.message };
    if (!predicted.ok) {
      if (TRANSIENT.has(predicted.error.code)) return { kind: 'no_evidence', why: 'timeout' };
      return { kind: 'distinguished', how: 'error', gold: run.result, ordering: run.ordering, verdict: null, detail: `${predicted.error.code}: ${predicted.error.message}` };
    }
    return judgeResults(ctx.policy, ctx.emptyVsNullRow, run.result, run.ordering, predicted.result);
  });
  return { golds: judgements, predicted, distinguished: judgements.flatMap((j, i) => (j.kind === 'distinguished' ? [i] : [])) };
}

/**
 * Compares a gold result with a predicted one under the policy and the empty-vs-NULL-row rule.
 * @returns `distinguished` (with the verdict), `same`, or `no_evidence`.
 */
export function judgeResults(policy: ComparisonPolicy, emptyVsNullRow: EmptyVsNullRow, gold: QueryResult, ordering: GoldOrdering, predicted: QueryResult): GoldJudgement {
  const verdict = compareResults(gold, predicted, policy, { ordering });
  if (verdict.match === true) return { kind: 'same', gold };
  if (verdict.match === 'undecided') return { kind: 'no_evidence', why: 'undecided' };
  if (emptyVsNullRow === 'same' && isEmptyVsNullRow(gold, predicted)) return { kind: 'no_evidence', why: 'empty_vs_null_row' };
  return { kind: 'distinguished', how: 'result', gold, ordering, verdict, detail: verdict.reason };
}

/**
 * Checks a refutation on copies of the database whose rows are stored in other orders (reversed,
 * rotated by one, sorted both ways: `writeReorderedCopy`): keeps the golds whose result is the same on every
 * copy and from which the prediction still differs on every copy.
 *
 * @param ctx - as for {@link judgeDatabase}.
 * @param schema - the database's schema.
 * @param db - the database the judgement was made on.
 * @param scratch - a file for the copies (overwritten).
 * @param golds - the golds as they run.
 * @param predictedSql - the prediction as it runs.
 * @param original - the judgement on `db`.
 * @returns indices of the golds whose distinction survives every reordering.
 */
export async function confirmOrderIndependent(
  ctx: JudgeContext,
  schema: DatabaseSchema,
  db: string,
  scratch: string,
  golds: readonly string[],
  predictedSql: string,
  original: DatabaseJudgement,
): Promise<number[]> {
  let kept = [...original.distinguished];
  for (const reordering of ROW_REORDERINGS) {
    if (kept.length === 0) break;
    writeReorderedCopy(schema, db, scratch, reordering);
    const again = await judgeDatabase(ctx, scratch, golds, predictedSql, new Set(kept));
    kept = kept.filter((i) => {
      const before = original.golds[i]!;
      const after = again.golds[i]!;
      if (before.kind !== 'distinguished' || after.kind !== 'distinguished') return false;
      // The gold's own answer must not depend on the order rows are read in.
      return compareResults(before.gold, after.gold, ctx.policy, { ordering: before.ordering }).match === true;
    });
  }
  return kept;
}

/** What a generated database showed: the contract broken (it refutes nothing), or the judgement with the golds it refutes. */
export type GeneratedJudgement =
  | { readonly kind: 'rejected'; readonly violation: ContractViolation }
  | {
      readonly kind: 'judged';
      readonly judgement: DatabaseJudgement;
      /** Golds the database refutes: distinguished, on every reordered copy too. */
      readonly refuted: readonly number[];
    };

/**
 * Judges one generated database the way both L5 steps do (the suite's kept databases and the
 * search's witnesses): the golds and the prediction run on it under the item's policy and
 * empty-vs-NULL-row rule ({@link judgeDatabase}); a distinction counts only when the database keeps
 * the contract of generated databases (database-contract.ts) and the distinction survives every
 * reordering of its rows ({@link confirmOrderIndependent}).
 *
 * @param ctx - engine, policy, deadline, `goldOrdered`, empty-vs-NULL-row rule.
 * @param contract - what the database must obey (schema, invariants, NULL policy).
 * @param db - the database file (read-only).
 * @param scratch - a file for the reordered copies (overwritten).
 * @param golds - the golds as they run; `only` limits the golds judged (default all).
 * @returns `rejected` with the rule broken (checked only when some gold is distinguished), or the
 *   judgement and the golds refuted.
 */
export async function judgeGeneratedDatabase(
  ctx: JudgeContext,
  contract: DatabaseContract,
  db: string,
  scratch: string,
  golds: readonly string[],
  predictedSql: string,
  only?: ReadonlySet<number>,
): Promise<GeneratedJudgement> {
  const judgement = await judgeDatabase(ctx, db, golds, predictedSql, only);
  if (judgement.distinguished.length === 0) return { kind: 'judged', judgement, refuted: [] };
  const violation = fileContractViolation(contract, db);
  if (violation !== null) return { kind: 'rejected', violation };
  return { kind: 'judged', judgement, refuted: await confirmOrderIndependent(ctx, contract.schema, db, scratch, golds, predictedSql, judgement) };
}
