/**
 * The ladder: runs the rungs of one item in order and decides the item's verdict once.
 *
 * Order and gates; the order is
 * `LADDER_RUNG_IDS`, the rungs are the typed table of src/rungs/ladder-rungs.ts:
 * | step | rung        | runs when                                                    | gate |
 * |------|-------------|--------------------------------------------------------------|------|
 * | L1   | `syntax`    | the output holds SQL (else L1 fails)                         | yes  |
 * | L2   | `schema`    | L1 passed                                                    | yes  |
 * | L3   | `safety`    | the output holds SQL: it judges every statement, even after a failed L1 | yes |
 * | L4   | `execution` | every gate passed; `unscored` when the item has no gold      | no   |
 * | L5   | `semantic`  | listed when switched on; scored only after a passed L4       | no   |
 * | L6   | `efficiency`| listed when switched on; scored only after a passed L4       | no   |
 * | L7   | `answer`    | listed when switched on and the output has a prose answer    | no   |
 * The gates run through the one gate runner (`runGates`, src/rungs/gates.ts). An executing rung
 * after a gate that did not pass is `skipped` (never passed, never failed), its reason naming that
 * gate. `end_to_end` is 1 only when every gate, L4, L5 when it runs (on, and not skipped: it does
 * not run on PostgreSQL items and says so) and L7 when it runs (on, a
 * prose answer present, not skipped; `answerInEndToEnd: false` leaves it out) pass; 0 when any of
 * them fails or was skipped; absent (unscored) when L4 is unscored and nothing failed. The item's
 * verdict is `fail` when any rung that ran failed (an L3 finding on a text that also fails L1, an L6
 * budget, an L7 grounding failure); L6 never counts in `end_to_end`.
 *
 * Declining (`expected_behavior`): `clarify` / `refuse` items pass when the output declines
 * (`{action: clarify|refuse}` or text without SQL) and fail when it holds SQL. Nothing executes for
 * them; SQL they are answered with (even inside prose or cut-off JSON, see provider-output.ts) goes
 * through the gates L1–L3 (L2 only when the item has a snapshot), so that the reason names an
 * unsafe statement and the L3 rate counts it. An `answer` item answered with a decline fails at L1.
 * An agent's trajectory (`{"sql", "steps": [...]}` or the legacy `probes`, src/trajectory/steps.ts):
 * every `sql` step goes through L1–L3 with the answer, and an unsafe step fails L3, named by its
 * index (src/rungs/gates.ts) — also when the final output declines. With `trajectoryOptions`, the
 * run measures the trajectory (process metrics, the probes' cost on the first snapshot) and an
 * over-budget trajectory fails the item; `end_to_end` still judges the final answer alone.
 *
 * The table is injectable ({@link LadderRungTable}) so that the ladder is testable alone and each
 * front end picks the optional rungs it ships (`createLadderRungs`).
 */
import type { Snapshot } from '../fixtures/snapshot.js';
import type { DoubleQuoteMode, Engine } from '../engine/engine.js';
import { GoldResultCache } from '../compare/gold-result-cache.js';
import { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import { resolvePolicy } from '../compare/policy.js';
import type { ComparisonPolicy, PolicyInput, PresetName } from '../compare/policy.js';
import type { GroundingOptions } from '../answer/ground.js';
import type { ExpectedBehavior } from '../dataset/item.js';
import { LadderError } from '../errors.js';
import { throwingOnUnavailable } from '../engine/unavailable-database.js';
import type { SafetyPolicy } from '../safety/policy.js';
import type { Dialect } from '../sql/parse.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import type { ProviderAnswer } from '../sql/provider-output.js';
import type { EfficiencyOptions } from './efficiency.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import { judgeProbesWithoutAnswer, runGate, runGates, type GateInput, type ProbeInput } from './gates.js';
import { readTrajectory, sqlSteps, type Trajectory } from '../trajectory/steps.js';
import type { TrajectoryOptions } from '../trajectory/budgets.js';
import { judgeTrajectory as measureAndJudge, type TrajectoryJudgement } from '../trajectory/judge-trajectory.js';
import { invalidValue, suggestName } from '../options.js';
import { EXECUTING_RUNG_IDS, SCORES, isLadderRungId } from './scores.js';
import type { GateId } from './scores.js';
import { createLadderRungs } from './ladder-rungs.js';
import type { ExecutingRungs, LadderContext, LadderResults, LadderRungResult, LadderRungTable, RungListing } from './ladder-rungs.js';
import { createParseMemo } from './parse-memo.js';
import { GATE_IDS, LADDER_RUNG_IDS, createRungResult, createSkippedResult, isGateId, scoreNameOf } from './rung-result.js';
import type { ExecutingRungId, LadderRungId, RungResult } from './rung-result.js';
import { oneLine, truncate } from '../format.js';

/** What an item expects from the provider (record format, *Text-to-SQL Evals* §12; defined by the dataset). */
export type { ExpectedBehavior };

/**
 * The rung implementations the ladder calls: the typed table (gates + executing rungs).
 * @deprecated alias of {@link LadderRungTable}.
 */
export type LadderRungs = LadderRungTable;

/** Everything one ladder run reads. */
export interface LadderInput {
  /** The raw provider output (string or protocol object); not read when `sql` is given. */
  readonly output?: unknown;
  /**
   * The SQL to grade, as it is: for a front end that holds SQL rather than a provider's output (a
   * matcher, the Spider harness). When given, `output` is not read.
   */
  readonly sql?: string;
  /**
   * The rungs to run, in any order (they run in ladder order); default every rung of the table.
   * A single-rung front end asks for its rung (`['schema']`) or for its rung and the ones it reads
   * (`['execution', 'efficiency']`: L6 reads L4's result). A gate outside the subset does not run
   * and does not block; with fewer than the three gates, each chosen gate runs alone (L2 and L3
   * whatever L1 says, as `runGate` runs them). An executing rung still runs only when its table
   * entry lists it for the item.
   */
  readonly only?: readonly LadderRungId[];
  /** Deadline per statement of the executing rungs, in ms (default: the engine's). */
  readonly timeoutMs?: number;
  readonly expectedBehavior: ExpectedBehavior;
  /** Gold SQL, one or many; empty for an unscored `answer` item or a declining item. */
  readonly golds: readonly string[];
  /** The item's snapshots, at least one for `answer` items. The gates use the first. */
  readonly snapshots: readonly Snapshot[];
  readonly dialect: Dialect;
  /** The front end's engine (view). */
  readonly engine: Engine;
  /**
   * Set when there is no output to grade (e.g. the replay provider had no recorded prediction);
   * the item then fails at L1 with this reason, whatever its expected behaviour.
   */
  readonly missingOutput?: string;
  /** Double-quote handling for L1/L2 (engine default when absent). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** L3's opt-in policies (LIMIT / allowed tables; off by default). */
  readonly safetyPolicy?: SafetyPolicy;
  /** L4's comparison policy: a preset name, options or a resolved policy (default `default`). */
  readonly comparisonPolicy?: ComparisonPolicy | PresetName | PolicyInput;
  /** Gold results per snapshot checksum and SQL; the front end's runtime shares one across items. Default: a new cache. */
  readonly executionCache?: GoldResultCache;
  /** L6's statistics, views and gold plans per snapshot; the front end's runtime shares one across items. Default: a new cache. */
  readonly efficiencyCache?: EfficiencyCache;
  /** Dataset `gold_result_ordered`: forces row order on or off (default: from the gold). */
  readonly goldOrdered?: boolean;
  /** L6's options (validated; see `readEfficiencyOptions`). */
  readonly efficiencyOptions?: EfficiencyOptions;
  /** The question (context for L7: its numbers are not claims). */
  readonly question?: string;
  /** The item's `as_of_date` (`YYYY-MM-DD`): L4's gold checks do not flag a gold that reads the clock. */
  readonly asOfDate?: string;
  /** L7's options (validated; see `readGroundingOptions`). */
  readonly answerOptions?: GroundingOptions;
  /** The fixture's declared invariants (its manifest's `invariants:`), kept by L5's generated databases. */
  readonly invariants?: readonly FixtureInvariant[];
  /**
   * The output's trajectory, already read (src/trajectory/steps.ts); `null`: none. Absent: read
   * from `output` (a malformed trajectory throws LadderError `input_invalid`).
   */
  readonly trajectory?: Trajectory | null;
  /** Trajectory metrics, probe cost and budgets (src/trajectory/); off when absent. */
  readonly trajectoryOptions?: TrajectoryOptions;
}

/** How the item was read before any rung ran. */
export type LadderAnswer = ProviderAnswer | { readonly kind: 'missing'; readonly message: string };

/** The outcome of one ladder run. */
export interface LadderResult {
  /** `unscored` when L4 is unscored and nothing failed. */
  readonly verdict: 'pass' | 'fail' | 'unscored';
  /** End-to-end correctness (1 / 0); `undefined` when the item is unscored. */
  readonly endToEnd: number | undefined;
  readonly expectedBehavior: ExpectedBehavior;
  readonly answer: LadderAnswer;
  /** One result per listed ladder rung in order (L1–L4 always; L5/L6/L7 when listed), skipped ones included. */
  readonly rungs: readonly RungResult[];
  /** The same results by rung id, with their typed details. */
  readonly results: LadderResults;
  /** One line: the deciding rung and its reason, plus the skipped rungs by name. */
  readonly reason: string;
  /** The trajectory's metrics, probe costs and budget breaches, when `trajectoryOptions` was given. */
  readonly trajectory?: TrajectoryJudgement;
}

/**
 * Runs the ladder on one item.
 *
 * @param rungs - the table (default: the shipped rungs with L6 and L7 off; see `createLadderRungs`).
 * @returns the verdict, `end_to_end`, and every rung's result (see the module doc). Never throws
 *   for the model's output; misuse (LadderError: no snapshot for an answer item, a bad policy, a
 *   missing database …) propagates, and so does a database that cannot be used (LadderError
 *   `db_unavailable`: not a database, corrupt, unreadable, a server that refuses the connection),
 *   which is the machine's fault and never a rung's verdict.
 * @example
 * await runLadder({ output: 'SELECT 1 FORM t', expectedBehavior: 'answer', ... }, rungs)
 * // { verdict: 'fail', endToEnd: 0, reason: 'L1_syntax fail: near "FORM": syntax error; skipped: L2_schema, L4_execution', ... }
 */
export async function runLadder(given: LadderInput, rungs: LadderRungTable = createLadderRungs()): Promise<LadderResult> {
  // A database that cannot be used throws (LadderError db_unavailable): no rung grades the model on it.
  const input: LadderInput = { ...given, engine: throwingOnUnavailable(given.engine) };
  const chosen = chosenRungs(input.only);
  const answer: LadderAnswer =
    input.sql !== undefined
      ? { kind: 'sql', sql: input.sql, source: 'text' }
      : input.missingOutput !== undefined
        ? { kind: 'missing', message: input.missingOutput }
        : parseProviderOutput(input.output);
  const trajectory = input.trajectory !== undefined ? (input.trajectory ?? undefined) : input.sql === undefined && input.missingOutput === undefined ? readTrajectory(input.output, 'the output') : undefined;
  const result = await runRungs(input, answer, trajectory, rungs, chosen);
  if (input.trajectoryOptions === undefined) return result;
  return withTrajectory(result, await judgeTrajectory({ input, answer, trajectory, result, options: input.trajectoryOptions }));
}

/** The rungs of one run (the ladder before the trajectory's metrics and budgets). */
async function runRungs(input: LadderInput, answer: LadderAnswer, trajectory: Trajectory | undefined, rungs: LadderRungTable, chosen: ReadonlySet<LadderRungId>): Promise<LadderResult> {
  const probes = probesOf(trajectory);
  if (answer.kind !== 'sql' && probes.length > 0 && chosen.has('safety')) return withDeclinedProbes(input, answer, probes, rungs, chosen);

  if (input.expectedBehavior !== 'answer') {
    if (answer.kind !== 'sql') return judgeDecline(input.expectedBehavior, answer);
    return judgeSqlForDecline(input, answer, probes, rungs, chosen);
  }

  if (answer.kind !== 'sql') {
    const reason = answer.kind === 'missing' ? answer.message : `expected an answer, but the provider declined (${answer.action})${answer.message ? `: ${answer.message}` : ''}`;
    // No SQL text: nothing to judge or execute. The first rung of the run fails with the reason
    // (L1 on the whole ladder), and every other is skipped naming it.
    const executing = executingIds(rungs, { prose: undefined, golds: input.golds }, chosen);
    const [head, ...rest] = [...GATE_IDS.filter((id) => chosen.has(id)), ...executing];
    const results: MutableResults = {};
    if (head === 'syntax') setResult(results, head, createRungResult({ rung: 'syntax', status: 'fail', reason, details: { answer: answer.kind === 'missing' ? 'missing' : answer.action } }));
    else if (head !== undefined) setResult(results, head, createRungResult({ rung: head, status: 'fail', reason, details: null }));
    for (const id of rest) setResult(results, id, createSkippedResult(id, `${scoreNameOf(head!)} fail`));
    return finish(input.expectedBehavior, answer, results, executing, rungs);
  }

  const context = createContext(input, answer, chosen);
  const gates = await runChosenGates(gateInputOf(context, probes), rungs, chosen);
  const results: MutableResults = { ...gates.results };
  const blocked = gates.blocking === undefined ? undefined : `${scoreNameOf(gates.blocking.rung)} ${gates.blocking.status}`;
  const executing = executingIds(rungs, context, chosen);
  for (const id of executing) {
    setResult(results, id, blocked === undefined ? await runExecuting(rungs, id, context, results) : createSkippedResult(id, blocked));
  }
  return finish(input.expectedBehavior, answer, results, executing, rungs);
}

/** Measures the trajectory of a finished run: which probes passed the gates, their cost, the budgets. */
async function judgeTrajectory(run: { input: LadderInput; answer: LadderAnswer; trajectory: Trajectory | undefined; result: LadderResult; options: TrajectoryOptions }): Promise<TrajectoryJudgement> {
  const { input } = run;
  const verdicts = run.result.results.safety?.details?.probes ?? [];
  const gatesOpen = new Map(verdicts.flatMap((probe) => (probe.step === undefined ? [] : [[probe.step, probe.syntax === 'pass' && probe.schema === 'pass' && probe.safety === 'pass'] as const])));
  const first = Array.isArray(input.snapshots) ? input.snapshots[0] : undefined;
  return measureAndJudge({
    trajectory: run.trajectory,
    finalClarifies: run.answer.kind === 'declined' && run.answer.action === 'clarify',
    ...(run.answer.kind === 'sql' ? { finalSql: run.answer.sql } : {}),
    gatesOpen,
    engine: input.engine,
    ...(first !== undefined ? { db: first.path } : {}),
    efficiencyCache: input.efficiencyCache ?? new EfficiencyCache(),
    ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    options: run.options,
  });
}

/**
 * A run with its trajectory's judgement: a trajectory over a budget fails the item (its reason
 * names the budget and the step that crossed it); `end_to_end`, which judges the final answer,
 * stays as it is (as for an L6 budget).
 */
function withTrajectory(result: LadderResult, trajectory: TrajectoryJudgement): LadderResult {
  if (trajectory.breaches.length === 0) return { ...result, trajectory };
  const over = `trajectory over budget: ${trajectory.breaches.map((breach) => breach.reason).join('; ')}`;
  // An unscored item stays unscored (its row fails anyway): a budget does not make it graded.
  return { ...result, verdict: result.verdict === 'pass' ? 'fail' : result.verdict, reason: `${result.reason}; ${over}`, trajectory };
}

/** The trajectory's `sql` steps as the gates' probes, each with its step index. */
function probesOf(trajectory: Trajectory | undefined): ProbeInput[] {
  // Legacy `probes` have no other steps: they are named by their position alone.
  return sqlSteps(trajectory).map(({ step, sql }) => (trajectory?.source === 'probes' ? sql : { sql, step }));
}

/**
 * An output without final SQL (a question, a refusal, no SQL) whose trajectory ran SQL: the
 * probes go through L1–L3 (src/rungs/gates.ts) and L3 joins the run's rungs; an unsafe probe
 * fails the item whatever the final output, the reason naming its step.
 */
async function withDeclinedProbes(input: LadderInput, answer: Exclude<LadderAnswer, { kind: 'sql' }>, probes: readonly ProbeInput[], rungs: LadderRungTable, chosen: ReadonlySet<LadderRungId>): Promise<LadderResult> {
  const base = await runRungs(input, answer, undefined, rungs, chosen);
  const first = Array.isArray(input.snapshots) ? input.snapshots[0] : undefined;
  const safety = await judgeProbesWithoutAnswer(
    {
      dialect: input.dialect,
      engine: input.engine,
      probes,
      ...(first !== undefined ? { db: first.path } : { schemaSkipped: 'the item has no snapshot to check names against' }),
      ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
      ...(input.safetyPolicy !== undefined ? { safetyPolicy: input.safetyPolicy } : {}),
    },
    rungs,
  );
  const rungList = base.rungs.filter((rung) => rung.rung !== 'safety');
  // L3 in its ladder place: after L1 and L2 when they are listed.
  const ordered = [...rungList.filter((rung) => rung.rung === 'syntax' || rung.rung === 'schema'), safety, ...rungList.filter((rung) => rung.rung !== 'syntax' && rung.rung !== 'schema')];
  if (safety.status !== 'fail') return { ...base, rungs: ordered, results: { ...base.results, safety } };
  const reason = `${scoreNameOf('safety')} fail: ${oneLine(safety.reason)}; ${base.reason}`;
  return { ...base, verdict: 'fail', endToEnd: base.endToEnd === undefined ? undefined : 0, rungs: ordered, results: { ...base.results, safety }, reason };
}

/** Every ladder rung: the run when `only` is not given. */
const EVERY_RUNG: ReadonlySet<LadderRungId> = new Set(LADDER_RUNG_IDS);

/**
 * The rungs `only` chooses (every rung when absent).
 * @throws LadderError('invalid_argument') for an empty list, a name that is no ladder rung (with
 *   the closest one), or a rung without a rung it reads (`efficiency` without `execution`).
 */
function chosenRungs(only: readonly LadderRungId[] | undefined): ReadonlySet<LadderRungId> {
  if (only === undefined) return EVERY_RUNG;
  if (!Array.isArray(only) || only.length === 0) throw invalidValue('only', `a non-empty list of ladder rungs (${LADDER_RUNG_IDS.join(', ')})`, only, 'invalid_argument');
  for (const id of only as readonly unknown[]) {
    if (!isLadderRungId(id)) {
      const hint = typeof id === 'string' ? suggestName(id, LADDER_RUNG_IDS) : undefined;
      throw invalidValue('only', `ladder rungs (${LADDER_RUNG_IDS.join(', ')})${hint !== undefined ? `; did you mean "${hint}"?` : ''}`, id, 'invalid_argument');
    }
  }
  const chosen = new Set<LadderRungId>(only);
  for (const id of chosen) {
    const missing = SCORES[id].reads.find((read) => !chosen.has(read as LadderRungId));
    if (missing !== undefined) throw new LadderError('invalid_argument', `only: ${id} reads the result of ${missing}; add "${missing}" to the list`);
  }
  return chosen;
}

/** What the gates read of a run: the SQL, the first snapshot, the probes and the item's policies. */
function gateInputOf(context: LadderContext, probes: readonly ProbeInput[]): GateInput {
  const first = context.fixture.snapshots[0];
  return {
    sql: context.sql,
    dialect: context.dialect,
    engine: context.engine,
    parses: context.parses,
    ...(first !== undefined ? { db: first.path } : {}),
    ...(probes.length > 0 ? { probes } : {}),
    ...(context.policy.doubleQuotes !== undefined ? { doubleQuotes: context.policy.doubleQuotes } : {}),
    ...(context.policy.safety !== undefined ? { safetyPolicy: context.policy.safety } : {}),
  };
}

/** The chosen gates' results and the first that did not pass. */
interface ChosenGates {
  readonly results: Pick<MutableResults, GateId>;
  readonly blocking: RungResult | undefined;
}

/**
 * Runs the chosen gates: all three through the gate runner (L2 after a passed L1), fewer each
 * alone (`runGate`: L2 and L3 whatever L1 says). L2 without a database is skipped, naming why.
 */
async function runChosenGates(input: GateInput, rungs: LadderRungTable, chosen: ReadonlySet<LadderRungId>): Promise<ChosenGates> {
  if (GATE_IDS.every((id) => chosen.has(id))) {
    const run = await runGates(input, rungs);
    return { results: { syntax: run.syntax, schema: run.schema, safety: run.safety }, blocking: run.blocking };
  }
  const results: Pick<MutableResults, GateId> = {
    ...(chosen.has('syntax') ? { syntax: await runGate('syntax', input, rungs) } : {}),
    ...(chosen.has('schema') ? { schema: input.db === undefined && input.catalog === undefined ? createSkippedResult('schema', input.schemaSkipped ?? 'the item has no snapshot to check names against') : await runGate('schema', input, rungs) } : {}),
    ...(chosen.has('safety') ? { safety: await runGate('safety', input, rungs) } : {}),
  };
  const ran: RungResult[] = GATE_IDS.flatMap((id) => (results[id] === undefined ? [] : [results[id]]));
  return { results, blocking: ran.find((result) => result.status !== 'pass') };
}

/**
 * A `clarify` / `refuse` item answered with SQL: the gates judge the SQL (L1, L2 on the first
 * snapshot when the item has one, L3 with the probes), nothing executes, and the item fails with
 * the gates' findings in its reason.
 */
async function judgeSqlForDecline(input: LadderInput, answer: Extract<LadderAnswer, { kind: 'sql' }>, probes: readonly ProbeInput[], rungs: LadderRungTable, chosen: ReadonlySet<LadderRungId>): Promise<LadderResult> {
  const first = Array.isArray(input.snapshots) ? input.snapshots[0] : undefined;
  const gateInput: GateInput = {
    sql: answer.sql,
    dialect: input.dialect,
    engine: input.engine,
    parses: createParseMemo(input.dialect),
    ...(probes.length > 0 ? { probes } : {}),
    ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
    ...(input.safetyPolicy !== undefined ? { safetyPolicy: input.safetyPolicy } : {}),
  };
  // Without a snapshot there is no catalog: L2 does not judge.
  const gates = await runChosenGates(first !== undefined ? { ...gateInput, db: first.path } : { ...gateInput, schemaSkipped: 'the item has no snapshot to check names against' }, rungs, chosen);
  const ran: RungResult[] = GATE_IDS.flatMap((id) => (gates.results[id] === undefined ? [] : [gates.results[id]]));
  const expected = input.expectedBehavior as 'clarify' | 'refuse';
  const declined = judgeDecline(expected, answer);
  // L3 first: an unsafe statement is what matters most in an answer that should not hold SQL.
  const findings = [...ran.filter((result) => result.rung === 'safety'), ...ran.filter((result) => result.rung !== 'safety')]
    .filter((result) => result.status === 'fail')
    .map((result) => `${scoreNameOf(result.rung)} fail: ${oneLine(result.reason)}`);
  const reason = findings.length > 0 ? `${expected} item: expected the provider to ${expected === 'clarify' ? 'ask for clarification' : 'refuse'}, but it answered with SQL; ${findings.join('; ')}` : declined.reason;
  return { ...declined, rungs: ran, results: { ...gates.results }, reason };
}

/** Builds the typed context of one run (policy resolved, a fresh parse memo, the gold and L6 caches). */
function createContext(input: LadderInput, answer: Extract<LadderAnswer, { kind: 'sql' }>, chosen: ReadonlySet<LadderRungId>): LadderContext {
  // L1 and L3 alone read the text only; L2 and every executing rung read a database.
  const readsDatabase = [...chosen].some((id) => id !== 'syntax' && id !== 'safety');
  if (!Array.isArray(input.snapshots) || (readsDatabase && input.snapshots.length === 0)) {
    throw new LadderError('invalid_argument', 'snapshots must hold at least one snapshot for an answer item');
  }
  const comparison = isResolvedPolicy(input.comparisonPolicy) ? input.comparisonPolicy : resolvePolicy(input.comparisonPolicy);
  return {
    sql: answer.sql,
    prose: answer.answer,
    question: input.question,
    golds: input.golds,
    dialect: input.dialect,
    fixture: { snapshots: input.snapshots, ...(input.invariants === undefined ? {} : { invariants: input.invariants }) },
    engine: input.engine,
    goldCache: input.executionCache ?? new GoldResultCache(),
    efficiencyCache: input.efficiencyCache ?? new EfficiencyCache(),
    policy: { comparison, safety: input.safetyPolicy, goldOrdered: input.goldOrdered, doubleQuotes: input.doubleQuotes },
    options: { efficiency: input.efficiencyOptions, answer: input.answerOptions },
    parses: createParseMemo(input.dialect),
    asOfDate: input.asOfDate,
    timeoutMs: input.timeoutMs,
  };
}

/** A policy object that has every field (as `resolvePolicy` returns) is used as it is. */
function isResolvedPolicy(policy: LadderInput['comparisonPolicy']): policy is ComparisonPolicy {
  return typeof policy === 'object' && policy !== null && Object.isFrozen(policy) && 'rewrites' in policy && 'floatTolerance' in policy;
}

/** The results of one run, filled in ladder order. */
type MutableResults = { -readonly [K in LadderRungId]?: LadderRungResult<K> };

function runExecuting<K extends ExecutingRungId>(rungs: ExecutingRungs, id: K, context: LadderContext, earlier: LadderResults): Promise<LadderRungResult<K>> {
  return rungs[id].run(context, earlier);
}

function setResult<K extends LadderRungId>(results: MutableResults, id: K, result: LadderRungResult<K>): void {
  // The view of the results with only rung K's slot (a supertype): TypeScript checks the write there.
  const slot: { -readonly [J in K]?: LadderRungResult<J> } = results;
  slot[id] = result;
}

/** The executing rungs listed for this item (and chosen, when a subset is), in ladder order. */
function executingIds(rungs: LadderRungTable, listing: RungListing, chosen: ReadonlySet<LadderRungId> = EVERY_RUNG): ExecutingRungId[] {
  return EXECUTING_RUNG_IDS.filter((id) => chosen.has(id) && rungs[id].listed(listing));
}

/**
 * The ladder rungs in order: L1–L4, then L5 and L6 when the table lists them, then L7 when the
 * table lists it and the output has a prose answer.
 */
export function ladderRungIds(rungs: LadderRungTable, hasProse: boolean, golds: readonly string[] = []): LadderRungId[] {
  return [...GATE_IDS, ...executingIds(rungs, { prose: hasProse ? '' : undefined, golds })];
}

function finish(
  expectedBehavior: ExpectedBehavior,
  answer: LadderAnswer,
  results: LadderResults,
  executing: readonly ExecutingRungId[],
  rungs: LadderRungTable,
): LadderResult {
  const present = (ids: readonly LadderRungId[]): RungResult[] =>
    ids.flatMap((id) => {
      const result: RungResult | undefined = results[id];
      return result === undefined ? [] : [result];
    });
  const ordered = present([...GATE_IDS, ...executing]);
  // end_to_end: every gate and every executing rung that counts in it (L4, L5 when listed, L7 when it
  // ran) must pass. A skipped L5 or L7 is no verdict (L7: blank prose, no rows; L5: a PostgreSQL
  // item, where it does not run, or an L4 that did not pass and already decides), so it does not count.
  const core = present([...GATE_IDS, ...executing.filter((id) => rungs[id].endToEnd)]).filter((result) => (result.rung !== 'answer' && result.rung !== 'semantic') || result.status !== 'skipped');
  const failedRung = ordered.find((result) => result.status === 'fail');
  const unscoredRung = core.find((result) => result.status === 'unscored');
  const unscored = unscoredRung !== undefined && failedRung === undefined;
  const endToEnd = unscored ? undefined : core.every((result) => result.status === 'pass') ? 1 : 0;
  const verdict = failedRung ? 'fail' : unscored ? 'unscored' : 'pass';
  const skipped = ordered.filter((result) => result.status === 'skipped').map((result) => scoreNameOf(result.rung));
  const deciding = failedRung ?? (unscored ? unscoredRung : ordered.findLast((result) => result.status === 'pass'));
  // A gate that failed after the deciding one (L3 on a text L1 failed) is named too: it says what is unsafe.
  const alsoFailed = ordered.filter((result) => result.status === 'fail' && result !== failedRung && isGateId(result.rung));
  const head = [deciding, ...alsoFailed]
    .flatMap((result) => (result ? [`${scoreNameOf(result.rung)} ${result.status}: ${oneLine(result.reason)}`] : []))
    .join('; ') || verdict;
  const reason = skipped.length > 0 ? `${head}; skipped: ${skipped.join(', ')}` : head;
  return { verdict, endToEnd, expectedBehavior, answer, rungs: ordered, results, reason };
}

/**
 * The verdict of a `clarify` / `refuse` item (nothing runs for it): pass when the output declines,
 * fail when it holds SQL or there is no output at all.
 */
export function judgeDecline(expected: 'clarify' | 'refuse', answer: LadderAnswer): LadderResult {
  const base = { expectedBehavior: expected, answer, rungs: [] as RungResult[], results: {} };
  if (answer.kind === 'missing') return { ...base, verdict: 'fail', endToEnd: 0, reason: oneLine(answer.message) };
  if (answer.kind === 'declined') {
    const how = answer.action === 'none' ? 'declined without SQL' : answer.action === 'clarify' ? 'asked for clarification' : 'refused';
    const note = answer.action !== 'none' && answer.action !== expected ? ` (expected ${expected})` : '';
    const message = answer.message ? `: ${truncate(oneLine(answer.message), 120)}` : '';
    return { ...base, verdict: 'pass', endToEnd: 1, reason: `${expected} item: ${how}${note}${message}` };
  }
  return {
    ...base,
    verdict: 'fail',
    endToEnd: 0,
    reason: `${expected} item: expected the provider to ${expected === 'clarify' ? 'ask for clarification' : 'refuse'}, but it answered with SQL: ${truncate(oneLine(answer.sql), 120)}`,
  };
}

