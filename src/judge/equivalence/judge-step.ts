/**
 * The ladder's `judge` step: after the rungs ran, route the item (route.ts), gather the evidence
 * the ladder holds, ask the judge where execution cannot settle the item, let a verified L5
 * witness overrule it, and count its verdict only under a passing calibration.
 *
 * Data shared with the judge (`share`, cumulative): `sql` — the question, gold and candidate only;
 * `schema` — plus the DDL of the tables the item's snapshot (its role's view) holds; `rows` — plus
 * result previews on each snapshot (at most `maxRows` rows per result) and the L5 witness. Default:
 * `rows` for a judge that runs on this machine (`ollama:`, `file://`, a function), `sql` for a
 * hosted provider, so nothing beyond the SQL leaves the machine unless the user says so.
 * `redactColumns` names result columns whose values are never sent (shown as `[redacted]`); with
 * any set, a witness's `INSERT` statements are not sent either (their values are the data).
 */
import type { Engine, QueryResult, Row } from '../../engine/engine.js';
import type { Snapshot } from '../../fixtures/snapshot.js';
import type { JudgeRecord } from '../../report/ladder-record.js';
import type { LadderResult } from '../../rungs/ladder.js';
import { errorText, oneLine, truncate } from '../../format.js';
import { LadderError } from '../../errors.js';
import { DEFAULT_CALIBRATION_THRESHOLDS, findPassingCalibration, type CalibrationLookup, type CalibrationThresholds, type JudgeIdentity } from '../calibration-record.js';
import { askEquivalenceJudge, type EquivalenceJudge, type JudgeCacheOption } from './ask-judge.js';
import { EQUIVALENCE_PROMPT_HASH, EQUIVALENCE_PROMPT_VERSION, buildEquivalencePrompt, type EvidenceDatabase, type ResultPreview } from './equivalence-prompt.js';
import { endToEndUnderJudge, isTrivialResult, outcomeOf, routeItem, type RoutingFacts } from './route.js';

/** How much of the item the judge is sent (see the module doc). */
export type JudgeShare = 'sql' | 'schema' | 'rows';

/** Default rows per result preview. */
export const DEFAULT_JUDGE_PREVIEW_ROWS = 5;

/** Options of the judge step. */
export interface JudgeStepOptions {
  readonly judge: EquivalenceJudge;
  /**
   * Calibration record files or folders (see `findPassingCalibration`), or a lookup already made
   * for this judge. Without a passing record the verdicts are shown `uncalibrated`.
   */
  readonly calibration?: readonly string[] | CalibrationLookup;
  readonly thresholds?: CalibrationThresholds;
  /** Default: `rows` for a local judge, `sql` for a hosted one. */
  readonly share?: JudgeShare;
  /** Rows per result preview (default {@link DEFAULT_JUDGE_PREVIEW_ROWS}). */
  readonly maxRows?: number;
  /** Result columns (case-insensitive names) whose values are never sent. */
  readonly redactColumns?: readonly string[];
  /** A match with at most this many gold rows is a possible lucky match (default 0: only empty or all-NULL/0 results). */
  readonly trivialRows?: number;
  /** Answer cache folder, or `false` (default `<cache folder>/judge`). */
  readonly cache?: JudgeCacheOption;
}

/** The item the step judges. */
export interface JudgeStepInput {
  /** The ladder's run; `undefined` when the item has no database (the judge alone decides, `no_database`). */
  readonly ladder?: LadderResult;
  readonly question: string;
  readonly golds: readonly string[];
  /** The candidate SQL (default: the SQL the ladder read from the output). */
  readonly candidate?: string;
  readonly snapshots: readonly Snapshot[];
  /** The engine that ran the ladder (previews, schema); absent with no database. */
  readonly engine?: Engine;
}

/** What the step returns: the record, and the item's `end_to_end` and verdict under the judge. */
export interface JudgeStepResult {
  readonly record: JudgeRecord;
  /** The ladder's `end_to_end`, changed only by a counted verdict (see route.ts). */
  readonly endToEnd: number | undefined;
  readonly verdict: LadderResult['verdict'];
}

/** The identity a calibration record must name for this judge and prompt. */
export function equivalenceJudgeIdentity(judge: Pick<EquivalenceJudge, 'id' | 'model'>): JudgeIdentity {
  return { task: 'equivalence', provider: judge.id, model: judge.model, promptVersion: EQUIVALENCE_PROMPT_VERSION, promptHash: EQUIVALENCE_PROMPT_HASH };
}

/**
 * Runs the judge step on one item.
 * @returns `undefined` for an item with nothing to judge (a declining item, an unscored L4, no SQL).
 * @throws LadderError `invalid_option` for a bad option; never for the judge's failures
 *   (`judge_error` in the record) or the model's SQL.
 */
export async function runJudgeStep(input: JudgeStepInput, options: JudgeStepOptions): Promise<JudgeStepResult | undefined> {
  const ladder = input.ladder;
  if (ladder !== undefined && (ladder.expectedBehavior !== 'answer' || ladder.answer.kind !== 'sql')) return undefined;
  const candidate = input.candidate ?? (ladder?.answer.kind === 'sql' ? ladder.answer.sql : undefined);
  if (candidate === undefined || input.golds.length === 0) return undefined;
  const trivialRows = options.trivialRows ?? 0;
  if (!Number.isInteger(trivialRows) || trivialRows < 0) throw new LadderError('invalid_option', `judge.trivialRows must be a non-negative integer; received ${JSON.stringify(options.trivialRows)}`);
  const facts = routingFactsOf(ladder, trivialRows);
  const routing = routeItem(facts);
  if (routing.route === 'none') return undefined;
  const judge = options.judge;
  const base = {
    judge: judge.id,
    task: 'equivalence',
    model: judge.model,
    promptVersion: EQUIVALENCE_PROMPT_VERSION,
    promptHash: EQUIVALENCE_PROMPT_HASH,
  } as const;
  const ladderEndToEnd = ladder?.endToEnd;
  const ladderVerdict = ladder?.verdict ?? 'unscored';
  const lookup = calibrationLookupOf(options, judge);
  const calibrated = lookup.record !== undefined;
  const calibration = lookup.file ?? lookup.reason;
  if (routing.route === 'settled') {
    const outcome = routing.outcome;
    const record: JudgeRecord = {
      ...base,
      verdict: outcome === 'pass' ? 'pass' : 'fail',
      score: ladderEndToEnd ?? null,
      reason: `${outcome}: settled by execution (judge not asked)`,
      state: outcome,
      outcome,
      route: 'settled',
      asked: false,
      equivalent: null,
      differences: [],
      witnessOverruled: false,
      calibrated,
      calibration,
      calls: 0,
      cached: false,
      tokens: 0,
    };
    return { record, endToEnd: ladderEndToEnd, verdict: ladderVerdict };
  }
  const prompt = await equivalencePromptFor(input, candidate, options);
  const answer = await askEquivalenceJudge(judge, prompt, options.cache);
  const cost = { calls: answer.calls, cached: answer.cached, tokens: answer.tokens };
  if (!answer.verdict.ok) {
    const record: JudgeRecord = {
      ...base,
      verdict: 'unreadable',
      score: null,
      reason: `judge_error: ${answer.verdict.error}`,
      state: 'judge_error',
      outcome: null,
      route: routing.route,
      asked: true,
      equivalent: null,
      differences: [],
      witnessOverruled: false,
      calibrated,
      calibration,
      error: answer.verdict.error,
      ...cost,
    };
    return { record, endToEnd: ladderEndToEnd, verdict: ladderVerdict };
  }
  const { equivalent, differences } = answer.verdict;
  const judged = outcomeOf(routing.route, equivalent, facts.witness);
  const said = `judge says ${equivalent ? 'equivalent' : 'not equivalent'}${differences.length > 0 ? ` (${truncate(oneLine(differences.join('; ')), 200)})` : ''}`;
  const overrule = judged.witnessOverruled ? '; a verified L5 witness shows they differ, so the witness wins' : '';
  const counted = calibrated ? endToEndUnderJudge(judged.outcome, ladderEndToEnd) : undefined;
  const record: JudgeRecord = {
    ...base,
    verdict: judged.outcome === 'pass' ? 'pass' : 'fail',
    score: counted ?? null,
    reason: `${calibrated ? judged.outcome : `uncalibrated (${judged.outcome} if it counted)`}: ${routeText(routing.route)}; ${said}${overrule}`,
    state: calibrated ? judged.outcome : 'uncalibrated',
    outcome: judged.outcome,
    route: routing.route,
    asked: true,
    equivalent,
    differences,
    witnessOverruled: judged.witnessOverruled,
    calibrated,
    calibration,
    ...cost,
  };
  if (counted === undefined) return { record, endToEnd: ladderEndToEnd, verdict: ladderVerdict };
  return { record, endToEnd: counted, verdict: counted === 1 ? (ladderVerdict === 'unscored' ? 'pass' : ladderVerdict) : 'fail' };
}

/**
 * The prompt for one item: question, schema and evidence as `share` allows (see the module doc).
 * Used by the step and by the calibration run, so that a judge is calibrated on the prompts it
 * later sees.
 */
export async function equivalencePromptFor(input: JudgeStepInput, candidate: string, options: Pick<JudgeStepOptions, 'judge' | 'share' | 'maxRows' | 'redactColumns'>): Promise<string> {
  const share = options.share ?? (options.judge.local ? 'rows' : 'sql');
  const evidence = await gatherEvidence(input, candidate, share, options);
  return buildEquivalencePrompt({
    question: input.question,
    ...(share !== 'sql' ? { schema: await schemaOf(input) } : {}),
    gold: goldShown(input.ladder, input.golds),
    candidate,
    evidence: evidence.databases,
    evidenceNote: evidence.note,
  });
}

function routeText(route: 'possible_lucky_match' | 'ex_failure' | 'no_database'): string {
  return route === 'possible_lucky_match' ? 'results match on an empty or trivially small gold result' : route === 'ex_failure' ? 'results differ' : 'no database to run on';
}

function calibrationLookupOf(options: JudgeStepOptions, judge: EquivalenceJudge): CalibrationLookup {
  const given = options.calibration;
  if (given !== undefined && !Array.isArray(given)) return given as CalibrationLookup;
  return findPassingCalibration(equivalenceJudgeIdentity(judge), (given as readonly string[] | undefined) ?? [], options.thresholds ?? DEFAULT_CALIBRATION_THRESHOLDS);
}

/** What execution established, read from a ladder run (see route.ts). */
export function routingFactsOf(ladder: LadderResult | undefined, trivialRows = 0): RoutingFacts {
  if (ladder === undefined) return { invalid: false, execution: 'not_run', trivialGold: false, witness: false };
  const results = ladder.results;
  const gateFailed = [results.syntax, results.schema, results.safety].some((result) => result?.status === 'fail');
  const execution = results.execution;
  const details = execution?.details ?? null;
  const predictionFailedEverywhere = details !== null && details.predictedRuns.length > 0 && details.predictedRuns.every((run) => !run.ok);
  const witness = results.semantic?.status === 'fail';
  if (gateFailed || predictionFailedEverywhere) return { invalid: true, execution: 'mismatch', trivialGold: false, witness };
  if (execution === undefined || execution.status === 'skipped') return { invalid: false, execution: 'not_run', trivialGold: false, witness };
  if (execution.status === 'unscored') return { invalid: false, execution: 'unscored', trivialGold: false, witness };
  if (execution.status === 'fail') return { invalid: false, execution: 'mismatch', trivialGold: false, witness };
  // On a match the prediction's rows are the gold's (under the policy): judge their size.
  const trivialGold = details !== null && (details.flags.includes('empty_gold') || details.flags.includes('all_null_gold_row') || details.predictedRuns.some((run) => run.ok && isTrivialResult(run.rows, trivialRows)));
  return { invalid: false, execution: 'match', trivialGold, witness };
}

function goldShown(ladder: LadderResult | undefined, golds: readonly string[]): string {
  const index = ladder?.results.execution?.details?.goldIndex ?? 0;
  return golds[index] ?? golds[0]!;
}

/** The DDL of the item's first snapshot (SQLite: its CREATE statements; other engines: from the catalog). */
async function schemaOf(input: JudgeStepInput): Promise<string | undefined> {
  const snapshot = input.snapshots[0];
  if (input.engine === undefined || snapshot === undefined) return undefined;
  try {
    if ((snapshot.engine ?? 'sqlite') === 'sqlite') {
      const outcome = await input.engine.execute({ db: snapshot.path, sql: "SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type, name" });
      if (outcome.ok) return outcome.result.rows.map((row) => `${String(row[0]).trim()};`).join('\n');
    }
    const catalog = await input.engine.catalog(snapshot.path);
    return catalog.tables.map((table) => `CREATE ${table.kind === 'view' ? 'VIEW' : 'TABLE'} ${table.schema === 'main' || table.schema === 'public' ? '' : `${table.schema}.`}${table.name} (${table.columns.map((column) => `${column.name} ${column.type}${column.primaryKey ? ' PRIMARY KEY' : ''}`.trim()).join(', ')});`).join('\n');
  } catch (error) {
    return `(schema unavailable: ${errorText(error)})`;
  }
}

/** Result previews on each snapshot and the L5 witness, as `share` allows. */
async function gatherEvidence(input: JudgeStepInput, candidate: string, share: JudgeShare, options: Pick<JudgeStepOptions, 'maxRows' | 'redactColumns'>): Promise<{ databases: EvidenceDatabase[]; note: string }> {
  if (share !== 'rows') return { databases: [], note: 'result rows are not shared with this judge (share: rows sends them)' };
  const engine = input.engine;
  if (engine === undefined || input.snapshots.length === 0) return { databases: [], note: 'no database' };
  const maxRows = options.maxRows ?? DEFAULT_JUDGE_PREVIEW_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 0) throw new LadderError('invalid_option', `judge.maxRows must be a non-negative integer; received ${JSON.stringify(options.maxRows)}`);
  const redact = new Set((options.redactColumns ?? []).map((name) => name.toLowerCase()));
  const details = input.ladder?.results.execution?.details ?? null;
  const gold = details?.executedSql.golds[details.goldIndex ?? 0] ?? goldShown(input.ladder, input.golds);
  const predicted = details?.executedSql.predicted ?? candidate;
  const run = async (db: string, sql: string): Promise<ResultPreview> => {
    const outcome = await engine.execute({ db, sql });
    return outcome.ok ? preview(outcome.result, maxRows, redact) : { ok: false, error: oneLine(outcome.error.message) };
  };
  const databases: EvidenceDatabase[] = [];
  for (const snapshot of input.snapshots) {
    databases.push({ name: `snapshot ${snapshot.name}`, gold: await run(snapshot.path, gold), candidate: await run(snapshot.path, predicted) });
  }
  const semantic = input.ladder?.results.semantic;
  const witness = semantic?.status === 'fail' ? semantic.details?.search?.witnesses[0] : undefined;
  const suiteFailure = semantic?.status === 'fail' ? semantic.details?.suite?.failing : undefined;
  if (witness !== undefined) {
    const goldResult = witness.goldResults[0];
    databases.push({
      name: `the L5 witness (${witness.totalRows} ${witness.totalRows === 1 ? 'row' : 'rows'}; the schema above, these rows only)`,
      ...(redact.size === 0 ? { inserts: witness.inserts } : {}),
      gold: goldResult !== undefined ? preview(goldResult, maxRows, redact) : { ok: false, error: 'not recorded' },
      candidate: witness.predicted.ok ? preview(witness.predicted.result, maxRows, redact) : { ok: false, error: oneLine(witness.predicted.error.message) },
    });
  } else if (suiteFailure !== undefined && suiteFailure !== null) {
    databases.push({ name: `the L5 suite database ${suiteFailure.database}`, gold: await run(suiteFailure.path, gold), candidate: await run(suiteFailure.path, predicted) });
  }
  return { databases, note: 'no database' };
}

function preview(result: Pick<QueryResult, 'columns' | 'rows'>, maxRows: number, redact: ReadonlySet<string>): ResultPreview {
  const hidden = result.columns.map((name) => redact.has(name.toLowerCase()));
  const rows: Row[] = result.rows.slice(0, maxRows).map((row) => (hidden.some(Boolean) ? row.map((cell, index) => (hidden[index] ? '[redacted]' : cell)) : row));
  return { ok: true, columns: result.columns, rows, rowCount: result.rows.length };
}
