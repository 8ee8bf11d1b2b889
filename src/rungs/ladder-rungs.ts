/**
 * The typed ladder: the table of rungs keyed by the rung-id union, the context every rung reads,
 * and the details each returns. `runLadder` (src/rungs/ladder.ts) walks {@link LADDER_RUNG_IDS} in
 * order: the gates through the gate runner (src/rungs/gates.ts), then each executing rung of the
 * table.
 *
 * Adding a rung (docs/development.md, "Adding a rung"): its own file, and its entry in the score
 * table (src/rungs/scores.ts); the compiler then asks for its details in {@link LadderRungDetails}
 * and its entry in the shipped table here (`SHIPPED`). Ids, order, score names, labels and the
 * optional rungs' switches ({@link LadderRungOptions}) come from the score table.
 *
 * Wiring rules of the shipped entries:
 * - L1–L3: {@link GATE_RUNGS}; `engineAccepted` comes from L1 (gates.ts).
 * - L4: `checkExecution` on every snapshot under the item's policy and gold cache. An item without
 *   gold runs the prediction anyway (so later rungs have its rows) and is `unscored`.
 * - L5: not listed by the shipped entry; `createLadderRungs({ semantic })` lists the entry a front
 *   end made with `createSemanticRung` (src/semantic/semantic-rung.ts: distilled test suite, then the
 *   counterexample search), which runs after a passed L4 and counts in `end_to_end`.
 * - L6: compares the prediction with the gold L4 matched, both as run after the policy's rewrites
 *   (`details.executedSql`), on the first snapshot; skipped unless L4 passed.
 * - L7: grounds the prose answer in the rows the prediction returned on the first snapshot as L4 ran
 *   it (`details.predictedRuns[0]`): the engine is not asked again.
 */
import type { Snapshot } from '../fixtures/snapshot.js';
import type { DoubleQuoteMode, Engine } from '../engine/engine.js';
import type { GoldResultCache } from '../compare/gold-result-cache.js';
import type { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import type { ComparisonPolicy } from '../compare/policy.js';
import { applySqlRewrites } from '../compare/sql-rewrites.js';
import { parseGoldAhead } from '../compare/gold-ordering.js';
import type { GroundingOptions } from '../answer/ground.js';
import type { SafetyPolicy } from '../safety/policy.js';
import type { Dialect } from '../sql/parse.js';
import { checkAnswerGrounding, type AnswerGroundingDetails } from './answer.js';
import { checkEfficiency, type EfficiencyDetails, type EfficiencyOptions } from './efficiency.js';
import { checkExecution, engineDefaults, type ExecutionDetails } from './execution.js';
import { GATE_RUNGS, engineAcceptedBy, type GateRungs, type GateSafetyDetails } from './gates.js';
import type { ParseMemo } from './parse-memo.js';
import { runPrediction } from './predicted-runs.js';
import { createRungResult, createSkippedResult, scoreNameOf } from './rung-result.js';
import { OPTIONAL_RUNG_IDS, type OptionalRungId } from './scores.js';
import { LadderError } from '../errors.js';
import type { ExecutingRungId, LadderRungId, RungResult } from './rung-result.js';
import type { SchemaDetails } from './schema.js';
import type { SyntaxDetails } from './syntax.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { SemanticDetails } from './semantic-details.js';

export { LADDER_RUNG_IDS, GATE_IDS } from './rung-result.js';
export type { ExecutingRungId, GateId, LadderRungId } from './rung-result.js';

/** L1's details when the output held no SQL at all (a decline, or no recorded prediction). */
export interface NoSqlDetails {
  /** `missing` (no output), or the decline's action. */
  readonly answer: 'missing' | 'clarify' | 'refuse' | 'none';
}

/** The details each ladder rung returns, keyed by rung id (a skipped rung carries `null`). */
export interface LadderRungDetails {
  readonly syntax: SyntaxDetails | NoSqlDetails;
  readonly schema: SchemaDetails;
  /** L3 with the statements named and the probes judged (see gates.ts). */
  readonly safety: GateSafetyDetails;
  readonly execution: ExecutionDetails;
  readonly semantic: SemanticDetails;
  readonly efficiency: EfficiencyDetails;
  readonly answer: AnswerGroundingDetails;
}

/** One rung's result with its typed details (`null` when skipped or not scored). */
export type LadderRungResult<K extends LadderRungId> = RungResult<LadderRungDetails[K] | null>;

/** The results of the rungs that ran so far, by id. */
export type LadderResults = { readonly [K in LadderRungId]?: LadderRungResult<K> };

/**
 * Everything the rungs of one ladder run read: the item, its policy, the front end's runtime pieces
 * (engine view, gold cache) and the fixture's snapshots.
 */
export interface LadderContext {
  /** The predicted SQL, extracted from the output. */
  readonly sql: string;
  /** The output's prose answer, when it has one (L7). */
  readonly prose: string | undefined;
  /** The question (its numbers are context for L7, not claims). */
  readonly question: string | undefined;
  /** Gold SQL, one or many; empty for an unscored item. */
  readonly golds: readonly string[];
  readonly dialect: Dialect;
  /**
   * The fixture: its snapshots (at least one), role-scoped; the gates read the first. `invariants`:
   * the rules its manifest declares beyond the schema (L5's generated databases keep them).
   */
  readonly fixture: { readonly snapshots: readonly Snapshot[]; readonly invariants?: readonly FixtureInvariant[] };
  /** The front end's engine view (its per-request defaults applied). */
  readonly engine: Engine;
  /** The front end's gold-result cache (shared across items). */
  readonly goldCache: GoldResultCache;
  /** The front end's L6 cache: statistics, views and gold plans per snapshot (shared across items). */
  readonly efficiencyCache: EfficiencyCache;
  /** The item's policies. */
  readonly policy: {
    /** L4's comparison policy, resolved. */
    readonly comparison: ComparisonPolicy;
    /** L3's opt-in policies (absent: LIMIT and allowed tables off). */
    readonly safety: SafetyPolicy | undefined;
    /** Dataset `gold_result_ordered` (absent: derived from the gold). */
    readonly goldOrdered: boolean | undefined;
    /** SQLite double-quote handling for L1 / L2 (absent: the engine's). */
    readonly doubleQuotes: DoubleQuoteMode | undefined;
  };
  /** Options of the optional rungs, validated (absent: defaults). */
  readonly options: { readonly efficiency: EfficiencyOptions | undefined; readonly answer: GroundingOptions | undefined };
  /** The item's parses: one per SQL text, shared by every rung. */
  readonly parses: ParseMemo;
  /** The item's `as_of_date` (`YYYY-MM-DD`), for L4's gold checks (a gold reading the clock). */
  readonly asOfDate: string | undefined;
  /** Deadline per statement of the executing rungs, in ms (absent: the engine's). */
  readonly timeoutMs?: number | undefined;
}

/** What decides whether an executing rung is listed for an item (known before anything runs). */
export type RungListing = Pick<LadderContext, 'prose' | 'golds'>;

/** A rung that executes (after the gates). */
export interface ExecutingRung<K extends ExecutingRungId> {
  /** Whether the rung is part of this run at all (not listed → not reported). */
  listed(listing: RungListing): boolean;
  /** True when the rung counts in `end_to_end` (it must pass for 1). */
  readonly endToEnd: boolean;
  /** Runs the rung once the gates are open; `earlier` holds the rungs before it in ladder order. */
  run(context: LadderContext, earlier: LadderResults): Promise<LadderRungResult<K>>;
  /**
   * Set on a shipped entry that cannot run on its own (L5 needs its options and the front end's
   * service): what to pass to `createLadderRungs` instead of `true`.
   */
  readonly needs?: string;
}

/** One entry per executing rung, keyed by id. */
export type ExecutingRungs = { readonly [K in ExecutingRungId]: ExecutingRung<K> };

/** The ladder's table: the gate implementations and one entry per executing rung, keyed by id. */
export type LadderRungTable = GateRungs & ExecutingRungs;

/** Compile-time check that the table covers every id of `LADDER_RUNG_IDS` (gate or executing). */
type Covers<T, K extends PropertyKey> = [K] extends [keyof T] ? true : never;
const COVERS_EVERY_RUNG: Covers<LadderRungTable, LadderRungId> = true;
void COVERS_EVERY_RUNG;

/** L4 (+ snapshots). Reads the item, the policy, the gold cache and the engine. */
const executionRung: ExecutingRung<'execution'> = {
  listed: () => true,
  endToEnd: true,
  async run(context: Pick<LadderContext, 'sql' | 'golds' | 'fixture' | 'engine' | 'goldCache' | 'policy' | 'parses' | 'asOfDate' | 'timeoutMs'>) {
    const { snapshots } = context.fixture;
    const policy = context.policy.comparison;
    if (context.golds.length === 0) {
      const predicted = applySqlRewrites(context.sql, 'predicted', policy.rewrites);
      const doubleQuotes = context.policy.doubleQuotes ?? engineDefaults(context.engine).doubleQuotes ?? 'legacy';
      const predictedRuns = await runPrediction(context.engine, snapshots, predicted, { doubleQuotes, ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}) });
      return createRungResult<ExecutionDetails>({
        rung: 'execution',
        status: 'unscored',
        reason: 'no gold SQL: nothing checks the result, so the item is unscored (never counted as 0); add gold_sql to grade it',
        details: { policy, goldIndex: null, snapshots: [], firstFailingSnapshot: null, goldErrors: [], flags: [], executedSql: { predicted, golds: [] }, doubleQuotes, goldFindings: [], predictedRuns },
      });
    }
    // A gold with ORDER BY is parsed for its row order once its result is in: the parse starts now,
    // in the parser thread, so that it overlaps the runs instead of blocking this thread then.
    if (context.policy.goldOrdered === undefined && context.parses.dialect === 'sqlite') {
      for (const gold of context.golds) parseGoldAhead(applySqlRewrites(gold, 'gold', policy.rewrites));
    }
    return checkExecution({
      predictedSql: context.sql,
      golds: context.golds,
      snapshots,
      engine: context.engine,
      policy,
      cache: context.goldCache,
      parses: context.parses,
      ...(context.policy.doubleQuotes !== undefined ? { doubleQuotes: context.policy.doubleQuotes } : {}),
      ...(context.asOfDate !== undefined ? { asOfDate: context.asOfDate } : {}),
      ...(context.policy.goldOrdered !== undefined ? { goldOrdered: context.policy.goldOrdered } : {}),
      ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}),
    });
  },
};

/** L5 when no front end switched it on: not listed (see `createSemanticRung`). */
const semanticRungOff: ExecutingRung<'semantic'> = {
  needs: 'the entry createSemanticRung(options, service) makes (src/semantic/semantic-rung.ts)',
  listed: () => false,
  endToEnd: true,
  run: () => Promise.resolve(createSkippedResult('semantic', `${scoreNameOf('semantic')} is off`)),
};

/** L6, once switched on: every item. Reads L4's result (the gold that matched, the SQL as run) and the first snapshot. */
const efficiencyRung: ExecutingRung<'efficiency'> = {
  listed: () => true,
  endToEnd: false,
  async run(context: Pick<LadderContext, 'fixture' | 'engine' | 'options' | 'parses' | 'efficiencyCache'>, earlier: Pick<LadderResults, 'execution'>) {
    const execution = earlier.execution;
    if (execution === undefined || execution.status !== 'pass' || execution.details === null || execution.details.goldIndex === null) {
      return createSkippedResult('efficiency', `${scoreNameOf('execution')} ${execution?.status ?? 'skipped'}`);
    }
    const { executedSql, goldIndex } = execution.details;
    const goldSql = executedSql.golds[goldIndex];
    const snapshot = context.fixture.snapshots[0];
    if (goldSql === undefined || snapshot === undefined) return createSkippedResult('efficiency', goldSql === undefined ? 'no gold SQL to compare with' : 'no snapshot to analyze');
    return checkEfficiency({
      predictedSql: executedSql.predicted,
      goldSql,
      snapshot: snapshot.path,
      engine: context.engine,
      execution,
      cache: context.efficiencyCache,
      ...(context.options.efficiency !== undefined ? { options: context.options.efficiency } : {}),
      ...(context.parses.dialect === 'sqlite' ? { parses: context.parses } : {}),
    });
  },
};

/** L7, once switched on: the items whose output has a prose answer. Reads the prose, the question, the predicted SQL and L4's predicted rows on the first snapshot. */
const answerRung: ExecutingRung<'answer'> = {
  listed: (listing) => listing.prose !== undefined,
  endToEnd: false,
  async run(context: Pick<LadderContext, 'prose' | 'question' | 'sql' | 'options' | 'parses'>, earlier: Pick<LadderResults, 'execution'>) {
    if (context.prose === undefined) return createSkippedResult('answer', 'no prose answer to ground');
    const first = earlier.execution?.details?.predictedRuns[0];
    if (first === undefined) return createSkippedResult('answer', `no rows to ground the answer in (${scoreNameOf('execution')} ${earlier.execution?.status ?? 'skipped'})`);
    if (!first.ok) return createSkippedResult('answer', `the predicted SQL did not run on ${first.snapshot}: ${first.error.code}: ${first.error.message}`);
    return checkAnswerGrounding({
      answer: context.prose,
      rows: first.rows,
      columns: first.columns,
      sql: context.sql,
      parses: context.parses,
      ...(context.question !== undefined ? { question: context.question } : {}),
      ...(context.options.answer !== undefined ? { options: context.options.answer } : {}),
    });
  },
};

/** The shipped executing rungs; an optional one is listed only once a table switches it on. */
const SHIPPED: ExecutingRungs = {
  execution: executionRung,
  semantic: semanticRungOff,
  efficiency: efficiencyRung,
  answer: answerRung,
};

/**
 * Which optional rungs to include: one key per optional rung of the score table
 * (src/rungs/scores.ts: L5, L6, L7), each `true` (the shipped entry), an entry of its own (L5's
 * `createSemanticRung(options, service)`, or a test's), or absent / `false` (off, not listed).
 */
export type LadderRungOptions = { readonly [K in OptionalRungId]?: boolean | ExecutingRung<K> } & {
  /**
   * L7 counts in `end_to_end` when it runs (listed and not skipped): an ungrounded number in the
   * prose answer makes the item not end-to-end correct — what a reader of the answer gets. Default
   * true; false judges `end_to_end` on the SQL only (L7 still runs and fails the item's verdict).
   */
  readonly answerInEndToEnd?: boolean;
  /**
   * Row order override from the dataset (`gold_result_ordered`) for every item run with this table.
   * Prefer `LadderInput.goldOrdered`, which is per item and wins over this.
   */
  readonly goldOrdered?: boolean;
};

/** An optional rung's entry as `on` asks: the shipped one, the one given, or the shipped one never listed. */
function switched<K extends OptionalRungId>(id: K, shipped: ExecutingRung<K>, on: boolean | ExecutingRung<K> | undefined): ExecutingRung<K> {
  if (typeof on === 'object' && on !== null) return on;
  if (on !== true) return { ...shipped, listed: () => false };
  if (shipped.needs !== undefined) throw new LadderError('invalid_argument', `createLadderRungs: ${id} cannot be switched on with true; pass ${shipped.needs}`);
  return shipped;
}

/**
 * The shipped table with the chosen optional rungs listed (see {@link LadderRungOptions}).
 * @throws LadderError('invalid_argument') for `true` on a rung that needs an entry of its own (L5).
 */
export function createLadderRungs(options: LadderRungOptions = {}): LadderRungTable {
  const goldOrdered = options.goldOrdered;
  const optional = Object.fromEntries(
    OPTIONAL_RUNG_IDS.map((id) => [id, switched(id, SHIPPED[id] as ExecutingRung<typeof id>, options[id] as boolean | ExecutingRung<typeof id> | undefined)]),
  ) as { [K in OptionalRungId]: ExecutingRung<K> };
  return {
    ...GATE_RUNGS,
    ...SHIPPED,
    ...optional,
    execution:
      goldOrdered === undefined
        ? executionRung
        : { ...executionRung, run: (context, earlier) => executionRung.run(context.policy.goldOrdered === undefined ? { ...context, policy: { ...context.policy, goldOrdered } } : context, earlier) },
    answer: { ...optional.answer, endToEnd: options.answerInEndToEnd !== false },
  };
}

/** The shipped table with every optional rung off (L5, L6 and L7 not listed); {@link createLadderRungs} switches them on. */
export const LADDER_RUNGS: LadderRungTable = createLadderRungs();

/**
 * True when SQLite's own prepare accepted the text at L1 (`details.engineAccepted`).
 * @deprecated use `engineAcceptedBy` from src/rungs/gates.ts (the gate runner derives it once).
 */
export function engineAccepted(syntax: RungResult): boolean {
  return engineAcceptedBy(syntax);
}

/** Facts about an L4 result for reports (see src/report/ladder-summary.ts). */
export interface ExecutionFacts {
  /** The prediction ran without error on every snapshot. */
  readonly executed: boolean;
  /** A gold failed on a snapshot. */
  readonly goldError: boolean;
  /** L4 passed with an empty gold result (flag `empty_gold`). */
  readonly emptyGoldMatch: boolean;
}

/**
 * Reads {@link ExecutionFacts} from an execution result (any status; absent or skipped → all
 * false). `executed` is read from the comparisons of a scored item; an unscored item (no gold
 * runs, no gold at all) counts as not executed, as reports count it.
 */
export function executionFacts(execution: RungResult<ExecutionDetails | null> | undefined): ExecutionFacts {
  const details = execution?.details;
  if (execution === undefined || details === null || details === undefined) return { executed: false, goldError: false, emptyGoldMatch: false };
  const snapshots = details.snapshots;
  return {
    executed: snapshots.length > 0 && snapshots.every((snapshot) => snapshot.predictedError === undefined),
    goldError: details.goldErrors.length > 0,
    emptyGoldMatch: execution.status === 'pass' && details.flags.includes('empty_gold'),
  };
}
