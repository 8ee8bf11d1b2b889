/**
 * Test-suite accuracy over a Spider-format run: L5 (the distilled test suite, then the
 * counterexample search; src/semantic/check-semantic.ts) on every item execution accuracy accepted.
 * An item's test-suite verdict is its EX verdict unless L5 rejects it: EX 0 stays 0, EX 1 becomes 0
 * when the suite rejects the prediction or the search refutes it (Zhong, Yu & Klein, "Semantic
 * Evaluation for Text-to-SQL with Distilled Test Suites", EMNLP 2020, score test-suite accuracy the
 * same way: a prediction must match on every database of the suite). An item L5 cannot score
 * (`unscored`: no gold runs on every database) keeps its EX verdict and is counted apart.
 *
 * Suites are built once per db_id with the golds of every item EX accepted on it, before the items
 * are judged.
 */
import { HARDNESS_LEVELS, type Hardness } from '../benchmarks/spider/hardness.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import type { SpiderGoldItem, SpiderPrediction } from '../benchmarks/spider/read-spider-files.js';
import type { GoldResultCache } from '../compare/gold-result-cache.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { errorText } from '../format.js';
import type { SemanticDetails, SemanticRejection } from '../rungs/semantic-details.js';
import { runLadder } from '../rungs/ladder.js';
import { createLadderRungs } from '../rungs/ladder-rungs.js';
import { createSemanticRung } from '../semantic/semantic-rung.js';
import type { SemanticOptions } from '../semantic/semantic-options.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import type { SpiderItemVerdict } from './evaluate-spider.js';

/** One item's L5 outcome. */
export interface SpiderSemanticVerdict {
  readonly i: number;
  readonly db_id: string;
  readonly hardness: Hardness | null;
  /** Test-suite verdict: EX's, or 0 when L5 rejected an EX match; `null` when EX did not score it. */
  readonly ts: 1 | 0 | null;
  /** L5's status on an EX match; `null` when L5 did not run (EX 0 or unscored). */
  readonly status: 'pass' | 'fail' | 'unscored' | null;
  /** L5's reason (with the witness's INSERT statements on a refutation); `null` when L5 did not run. */
  readonly reason: string | null;
  /** `snapshot` when the Spider database itself shows the difference, `suite` when the distilled suite rejected it, `search` when only the search refuted it (`SemanticDetails.rejectedBy`). */
  readonly rejectedBy: SemanticRejection | null;
  /** Most rows in one table of the search's witness (first witness), when it refuted. */
  readonly witnessMaxRows: number | null;
  readonly details: SemanticDetails | null;
}

/** Test-suite accuracy of one hardness level (or `all`). */
export interface SemanticLevelSummary {
  /** Items EX scored. */
  readonly scored: number;
  /** Items with test-suite verdict 1. */
  readonly correct: number;
  readonly accuracy: number;
  /** Items EX accepted and L5 rejected (suite or search). */
  readonly rejected: number;
  /** … of which the counterexample search refuted (with a witness). */
  readonly refuted: number;
  /** EX matches L5 could not score (kept as EX's 1). */
  readonly unscored: number;
}

/** The run's test-suite summary. */
export interface SpiderSemanticSummary {
  readonly levels: Readonly<Record<Hardness | 'all', SemanticLevelSummary>>;
  /** Refutations whose witness has at most 3 rows in every table. */
  readonly smallWitnesses: number;
}

/** Inputs of {@link evaluateSpiderTestSuite}. */
export interface SpiderTestSuiteInput {
  readonly gold: readonly SpiderGoldItem[];
  readonly predictions: readonly SpiderPrediction[];
  /** EX verdicts of the same run (evaluateSpider's items). */
  readonly verdicts: readonly SpiderItemVerdict[];
  readonly dbDir: string;
  readonly engine: Engine;
  readonly policy: ComparisonPolicy;
  readonly options: SemanticOptions;
  readonly service: SemanticService;
  readonly cache?: GoldResultCache;
  /** Items judged at once (default 2: each runs many small queries). */
  readonly concurrency?: number;
  /** Called after each judged item and after each suite build. */
  readonly onProgress?: (event: { readonly phase: 'suite' | 'item'; readonly done: number; readonly total: number }) => void;
}

/**
 * Runs L5 on the items EX accepted.
 * @returns one verdict per item (gold order) and the per-level summary.
 * @throws LadderError for misuse only (a bad option); an item whose L5 throws keeps its EX verdict
 *   and carries the error as its reason (`unscored`).
 */
export async function evaluateSpiderTestSuite(input: SpiderTestSuiteInput): Promise<{ readonly items: readonly SpiderSemanticVerdict[]; readonly summary: SpiderSemanticSummary }> {
  const accepted = input.verdicts.filter((v) => v.exec === 1);
  const snapshots = new Map<string, Snapshot[]>();
  for (const dbId of new Set(accepted.map((v) => v.db_id))) snapshots.set(dbId, await listSnapshots(input.dbDir, dbId));

  // One suite per db_id, with the golds of every accepted item on it.
  if (input.options.suite !== false) {
    const settings = input.options.suite;
    let done = 0;
    for (const [dbId, dbSnapshots] of snapshots) {
      const golds = [...new Set(accepted.filter((v) => v.db_id === dbId).map((v) => input.gold[v.i]!.sql))];
      // Built when its first item needs it (never when every verdict comes from the verdict cache).
      await input.service.announceSuite({ engine: input.engine, fixture: { snapshots: dbSnapshots, invariants: [] }, golds, policy: input.policy, settings });
      input.onProgress?.({ phase: 'suite', done: (done += 1), total: snapshots.size });
    }
  }

  const items: SpiderSemanticVerdict[] = input.verdicts.map((v) => ({ i: v.i, db_id: v.db_id, hardness: v.hardness, ts: v.exec, status: null, reason: null, rejectedBy: null, witnessMaxRows: null, details: null }));
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < accepted.length) {
      const verdict = accepted[next]!;
      next += 1;
      items[verdict.i] = await judgeItem(input, verdict, snapshots.get(verdict.db_id)!);
      input.onProgress?.({ phase: 'item', done: (done += 1), total: accepted.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, input.concurrency ?? 2), Math.max(1, accepted.length)) }, worker));
  return { items, summary: summarizeTestSuite(items) };
}

async function judgeItem(input: SpiderTestSuiteInput, verdict: SpiderItemVerdict, snapshots: readonly Snapshot[]): Promise<SpiderSemanticVerdict> {
  const base = { i: verdict.i, db_id: verdict.db_id, hardness: verdict.hardness };
  try {
    // The ladder's L4 and L5: L4 again (its gold results cached), then L5 after its pass.
    const ladder = await runLadder(
      {
        sql: input.predictions[verdict.i]!.sql,
        expectedBehavior: 'answer',
        golds: [input.gold[verdict.i]!.sql],
        snapshots,
        dialect: 'sqlite',
        engine: input.engine,
        comparisonPolicy: input.policy,
        only: ['execution', 'semantic'],
        ...(input.cache === undefined ? {} : { executionCache: input.cache }),
      },
      createLadderRungs({ semantic: createSemanticRung(input.options, input.service) }),
    );
    const result = ladder.results.semantic!;
    const status = result.status === 'skipped' ? 'unscored' : result.status;
    const details = result.details;
    const refutedBySearch = details?.search?.verdict === 'refuted';
    const rejectedBy = status === 'fail' ? (details?.rejectedBy ?? null) : null;
    const witness = refutedBySearch ? details!.search!.witnesses[0] : undefined;
    return { ...base, ts: status === 'fail' ? 0 : 1, status, reason: result.reason, rejectedBy, witnessMaxRows: witness?.maxRowsPerTable ?? null, details };
  } catch (error) {
    return { ...base, ts: 1, status: 'unscored', reason: `L5 error: ${errorText(error)}`, rejectedBy: null, witnessMaxRows: null, details: null };
  }
}

/** Aggregates the verdicts per hardness level. */
export function summarizeTestSuite(items: readonly SpiderSemanticVerdict[]): SpiderSemanticSummary {
  const level = (filter: (item: SpiderSemanticVerdict) => boolean): SemanticLevelSummary => {
    const chosen = items.filter(filter);
    const scored = chosen.filter((item) => item.ts !== null).length;
    const correct = chosen.filter((item) => item.ts === 1).length;
    return {
      scored,
      correct,
      accuracy: scored === 0 ? 0 : correct / scored,
      rejected: chosen.filter((item) => item.status === 'fail').length,
      refuted: chosen.filter((item) => item.status === 'fail' && item.details?.search?.verdict === 'refuted').length,
      unscored: chosen.filter((item) => item.status === 'unscored').length,
    };
  };
  const levels = Object.fromEntries([
    ...HARDNESS_LEVELS.map((h) => [h, level((item) => item.hardness === h)] as const),
    ['all', level(() => true)] as const,
  ]) as Record<Hardness | 'all', SemanticLevelSummary>;
  const refutations = items.filter((item) => item.witnessMaxRows !== null && item.status === 'fail');
  return { levels, smallWitnesses: refutations.filter((item) => item.witnessMaxRows! <= 3).length };
}
