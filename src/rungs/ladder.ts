/**
 * The ladder: runs the rungs of one item in order and decides the item's verdict once.
 *
 * Order and gates (../shared/DESIGN.md, "The data that flows" §3):
 * | step | rung        | runs when                                   | gate |
 * |------|-------------|---------------------------------------------|------|
 * | L1   | `syntax`    | the output holds SQL (else L1 fails)        | yes  |
 * | L2   | `schema`    | L1 passed                                   | yes  |
 * | L3   | `safety`    | L2 passed                                   | yes  |
 * | L4   | `execution` | L3 passed; `unscored` when the item has no gold | no |
 * | L6   | `efficiency`| L4 passed and an efficiency rung is given   | no   |
 * | L7   | `answer`    | L3 passed, the output has a prose answer and an answer rung is given (else not listed) | no |
 *
 * A rung after a failed gate is `skipped` (never passed, never failed). `end_to_end` is 1 only when
 * L1–L4 all pass; 0 when any of them fails or was skipped; absent (unscored) when L4 is unscored.
 * The item's verdict is `fail` when any rung that ran failed (so an L6 budget or an L7 grounding
 * failure fails the item without changing `end_to_end`, which measures correctness only).
 *
 * Declining (`expected_behavior`): `clarify` / `refuse` items pass when the output declines
 * (`{action: clarify|refuse}` or text without SQL) and fail when it holds SQL; nothing is run for
 * them, not even L1. An `answer` item answered with a decline fails at L1.
 *
 * The rung functions are injected ({@link LadderRungs}) so that the ladder is testable alone and
 * each front end (promptfoo, vitest, CLI) picks the implementations it ships.
 */
import type { Catalog, DoubleQuoteMode, Engine } from '../engine/engine.js';
import type { Dialect } from '../sql/parse.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import type { ProviderAnswer } from '../sql/provider-output.js';
import { LADDER_SCORE_NAMES, createRungResult, createSkippedResult } from './rung-result.js';
import type { RungId, RungResult } from './rung-result.js';

import type { ExpectedBehavior } from '../dataset/item.js';

/** What an item expects from the provider (record format, reference 000 §12; defined by the dataset). */
export type { ExpectedBehavior };

/** A snapshot database the item runs on (structurally the comparison layer's `Snapshot`). */
export interface LadderSnapshot {
  readonly name: string;
  /** Path of the database file. */
  readonly path: string;
  readonly checksum?: string;
}

/**
 * The rung implementations the ladder calls. Method syntax on purpose: each implementation may
 * declare a narrower policy type than `unknown`.
 */
export interface LadderRungs {
  syntax(input: { sql: string; dialect: Dialect; engine?: Engine; db?: string; doubleQuotes?: DoubleQuoteMode }): Promise<RungResult>;
  /** Receives the passed L1 result (its details say whether SQLite's prepare accepted the text). */
  schema(input: { sql: string; dialect: Dialect; catalog: Catalog; syntax: RungResult; doubleQuotes?: DoubleQuoteMode }): RungResult | Promise<RungResult>;
  /** Receives the passed L1 result too. */
  safety(input: { sql: string; dialect: Dialect; syntax: RungResult; policy?: any }): RungResult | Promise<RungResult>;
  execution(input: {
    predictedSql: string;
    golds: readonly string[];
    snapshots: readonly LadderSnapshot[];
    engine: Engine;
    policy?: any;
    cache?: any;
    doubleQuotes?: DoubleQuoteMode;
    asOfDate?: string;
  }): Promise<RungResult>;
  /** L6, run after a passed L4 when present. Receives the L4 result. */
  efficiency?(input: { sql: string; golds: readonly string[]; snapshots: readonly LadderSnapshot[]; engine: Engine; execution: RungResult; options?: any }): Promise<RungResult>;
  /** L7, run when the output has a prose answer and L4 ran. Receives the L4 result. */
  answer?(input: { answer: string; sql: string; question?: string; snapshots: readonly LadderSnapshot[]; engine: Engine; execution: RungResult; options?: any }): RungResult | Promise<RungResult>;
}

/** Everything one ladder run reads. */
export interface LadderInput {
  /** The raw provider output (string or protocol object). */
  readonly output: unknown;
  readonly expectedBehavior: ExpectedBehavior;
  /** Gold SQL, one or many; empty for an unscored `answer` item or a declining item. */
  readonly golds: readonly string[];
  /** The item's snapshots, at least one for `answer` items. L1/L2 use the first. */
  readonly snapshots: readonly LadderSnapshot[];
  readonly dialect: Dialect;
  readonly engine: Engine;
  /**
   * Set when there is no output to grade (e.g. the replay provider had no recorded prediction);
   * the item then fails at L1 with this reason, whatever its expected behaviour.
   */
  readonly missingOutput?: string;
  /** Double-quote handling for L1/L2 (engine default when absent). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** Passed to the safety rung as `policy` (LIMIT / allowed tables; off by default). */
  readonly safetyPolicy?: unknown;
  /** Passed to the execution rung as `policy`. */
  readonly comparisonPolicy?: unknown;
  /** Passed to the execution rung as `cache` (gold results per snapshot checksum and SQL). */
  readonly executionCache?: unknown;
  /** Passed to the efficiency rung as `options`. */
  readonly efficiencyOptions?: unknown;
  /** The question (context for L7: its numbers are not claims). */
  readonly question?: string;
  /** The item's `as_of_date` (`YYYY-MM-DD`), passed to the execution rung (gold checks). */
  readonly asOfDate?: string;
  /** Passed to the answer rung as `options`. */
  readonly answerOptions?: unknown;
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
  /** One result per ladder rung in order (L1–L4 always; L6/L7 when given), skipped ones included. */
  readonly rungs: readonly RungResult[];
  /** One line: the deciding rung and its reason, plus the skipped rungs by name. */
  readonly reason: string;
}

const GATES = ['syntax', 'schema', 'safety'] as const;

/**
 * Runs the ladder on one item.
 *
 * @returns the verdict, `end_to_end`, and every rung's result (see the module doc). Never throws
 *   for the model's output; a rung implementation's misuse errors (LadderError) propagate.
 * @example
 * await runLadder({ output: 'SELECT 1 FORM t', expectedBehavior: 'answer', ... }, rungs)
 * // { verdict: 'fail', endToEnd: 0, reason: 'L1_syntax fail: near "FORM": syntax error; skipped: L2_schema, L3_safety, L4_execution', ... }
 */
export async function runLadder(input: LadderInput, rungs: LadderRungs): Promise<LadderResult> {
  const answer: LadderAnswer =
    input.missingOutput !== undefined ? { kind: 'missing', message: input.missingOutput } : parseProviderOutput(input.output);

  if (input.expectedBehavior !== 'answer') return declineVerdict(input.expectedBehavior, answer);

  const results: RungResult[] = [];
  if (answer.kind !== 'sql') {
    const reason = answer.kind === 'missing' ? answer.message : `expected an answer, but the provider declined (${answer.action})${answer.message ? `: ${answer.message}` : ''}`;
    results.push(createRungResult({ rung: 'syntax', status: 'fail', reason, details: { answer: answer.kind === 'missing' ? 'missing' : answer.action } }));
    return finish(input, answer, skipRest(results, rungs, 'syntax', false));
  }

  const sql = answer.sql;
  const [first] = input.snapshots;
  if (first === undefined) throw new TypeError('snapshots must hold at least one snapshot for an answer item');

  for (const gate of GATES) {
    const result = await runGate(gate, sql, input, rungs, first.path, results[0]);
    results.push(result);
    if (result.status !== 'pass') return finish(input, answer, skipRest(results, rungs, gate, answer.answer !== undefined));
  }

  const execution =
    input.golds.length === 0
      ? createRungResult({ rung: 'execution', status: 'unscored', reason: 'no gold SQL: the item is unscored', details: null })
      : await rungs.execution({
          predictedSql: sql,
          golds: input.golds,
          snapshots: input.snapshots,
          engine: input.engine,
          ...(input.comparisonPolicy !== undefined ? { policy: input.comparisonPolicy } : {}),
          ...(input.executionCache !== undefined ? { cache: input.executionCache } : {}),
          ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
          ...(input.asOfDate !== undefined ? { asOfDate: input.asOfDate } : {}),
        });
  results.push(execution);

  if (rungs.efficiency) {
    results.push(
      execution.status === 'pass'
        ? await rungs.efficiency({ sql, golds: input.golds, snapshots: input.snapshots, engine: input.engine, execution, options: input.efficiencyOptions })
        : createSkippedResult('efficiency', `${LADDER_SCORE_NAMES.execution} ${execution.status}`),
    );
  }
  if (rungs.answer && answer.answer !== undefined) {
    results.push(
      await rungs.answer({
        answer: answer.answer,
        sql,
        ...(input.question !== undefined ? { question: input.question } : {}),
        snapshots: input.snapshots,
        engine: input.engine,
        execution,
        options: input.answerOptions,
      }),
    );
  }
  return finish(input, answer, results);
}

async function runGate(gate: (typeof GATES)[number], sql: string, input: LadderInput, rungs: LadderRungs, db: string, syntax: RungResult | undefined): Promise<RungResult> {
  const doubleQuotes = input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {};
  switch (gate) {
    case 'syntax':
      return rungs.syntax({ sql, dialect: input.dialect, engine: input.engine, db, ...doubleQuotes });
    case 'schema':
      return rungs.schema({ sql, dialect: input.dialect, catalog: await input.engine.catalog(db), syntax: syntax!, ...doubleQuotes });
    case 'safety':
      return rungs.safety({ sql, dialect: input.dialect, syntax: syntax!, ...(input.safetyPolicy !== undefined ? { policy: input.safetyPolicy } : {}) });
  }
}

/**
 * The ladder rungs in order: L1–L4, then L6 when an efficiency rung is given, then L7 when an
 * answer rung is given and the output has a prose answer (otherwise L7 is not listed at all).
 */
export function ladderRungIds(rungs: Pick<LadderRungs, 'efficiency' | 'answer'>, hasProse: boolean): RungId[] {
  return ['syntax', 'schema', 'safety', 'execution', ...(rungs.efficiency ? (['efficiency'] as const) : []), ...(rungs.answer && hasProse ? (['answer'] as const) : [])];
}

function skipRest(results: RungResult[], rungs: LadderRungs, failed: RungId, hasProse: boolean): RungResult[] {
  const failedName = scoreName(failed);
  const failedStatus = results[results.length - 1]?.status ?? 'fail';
  for (const rung of ladderRungIds(rungs, hasProse).slice(results.length)) {
    results.push(createSkippedResult(rung, `${failedName} ${failedStatus}`));
  }
  return results;
}

function scoreName(rung: RungId): string {
  return (LADDER_SCORE_NAMES as Partial<Record<RungId, string>>)[rung] ?? rung;
}

function finish(input: LadderInput, answer: LadderAnswer, rungs: RungResult[]): LadderResult {
  const core = rungs.slice(0, 4);
  const execution = core[3];
  const failedRung = rungs.find((result) => result.status === 'fail');
  const unscored = execution?.status === 'unscored' && failedRung === undefined;
  const endToEnd = unscored ? undefined : core.length === 4 && core.every((result) => result.status === 'pass') ? 1 : 0;
  const verdict = failedRung ? 'fail' : unscored ? 'unscored' : 'pass';
  const skipped = rungs.filter((result) => result.status === 'skipped').map((result) => scoreName(result.rung));
  const deciding = failedRung ?? (unscored ? execution : rungs.findLast((result) => result.status === 'pass'));
  const head = deciding ? `${scoreName(deciding.rung)} ${deciding.status}: ${oneLine(deciding.reason)}` : verdict;
  const reason = skipped.length > 0 ? `${head}; skipped: ${skipped.join(', ')}` : head;
  return { verdict, endToEnd, expectedBehavior: input.expectedBehavior, answer, rungs, reason };
}

function declineVerdict(expected: 'clarify' | 'refuse', answer: LadderAnswer): LadderResult {
  const base = { expectedBehavior: expected, answer, rungs: [] as RungResult[] };
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

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
