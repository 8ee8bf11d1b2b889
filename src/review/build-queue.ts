/**
 * Builds the review queue from finished promptfoo runs: every row whose stored judge outcome is
 * `review` (EX failed, a calibrated judge says equivalent, no witness refutes it) or
 * `lucky_match` (an empty-gold match a calibrated judge calls lucky) becomes a {@link ReviewEntry},
 * unless a person already decided that pair (the dataset's decisions file) or the candidate is
 * already one of the item's golds. An uncalibrated judge's outcomes queue nothing: they move no
 * score, so there is nothing to settle.
 *
 * A result file with several columns (providers × prompts) is read whole unless `#COLUMN` picks
 * one; the same pair found in two columns is queued once (the first).
 */
import path from 'node:path';
import { LadderError } from '../errors.js';
import { isObject } from '../objects.js';
import { readUserText } from '../files/user-file.js';
import { errorText } from '../format.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import { findLadderRecords, type LadderRecord, type RungRecord } from '../report/ladder-record.js';
import { parseRunSpec } from '../report/read-run.js';
import { columnName, parsePromptfooResult, promptfooRowsAsResult, selectColumn, type PromptfooResultFile } from '../report/read-promptfoo-run.js';
import { itemIdOf, varsOf, type PromptfooColumn, type PromptfooRow } from '../report/promptfoo-rows.js';
import { parseRunIdentity, type RunIdentity } from '../report/run-identity.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { queuedOutcomeOf, readJudgeOutcome } from './judge-outcome.js';
import { computeEvidence, DEFAULT_PREVIEW_ROWS } from './result-evidence.js';
import { decisionsFileOf, normalizeCandidate, readDecisions, REVIEW_ENTRY_FORMAT, reviewIdOf, type ReviewEntry, type ReviewRunRef, type SemanticEvidence, type SnapshotEvidence } from './review-entry.js';

/** Options of {@link buildReviewQueue}. */
export interface BuildQueueOptions {
  /**
   * Runs gold and candidate on each snapshot for the entries' results. Without one the entries
   * say the results were not computed.
   */
  readonly runtime?: LadderRuntime;
  /** Rows kept per result (default {@link DEFAULT_PREVIEW_ROWS}). */
  readonly previewRows?: number;
  /** The clock of `queuedAt` (tests). */
  readonly now?: () => Date;
}

/** What {@link buildReviewQueue} found. */
export interface QueueBuild {
  readonly entries: ReviewEntry[];
  /** Judged rows left out, by why. */
  readonly skipped: {
    /** A person already accepted or rejected the pair. */
    readonly decided: number;
    /** The candidate is already one of the item's golds. */
    readonly alreadyGold: number;
    /** The judge said review or lucky match without a passing calibration. */
    readonly uncalibrated: number;
  };
}

/**
 * Reads the runs and builds the queue (see the module doc).
 * @param runs - `FILE` or `FILE#COLUMN` of promptfoo results (`-o out.json` or JSONL rows).
 * @throws LadderError `input_invalid` for a file that is not a promptfoo result (a Spider JSONL
 *   is refused: its judge records are not queued), `invalid_option` for a column selector that names no column.
 */
export async function buildReviewQueue(runs: readonly string[], options: BuildQueueOptions = {}): Promise<QueueBuild> {
  const state: QueueState = { entries: [], seen: new Set(), decidedByFile: new Map(), skipped: { decided: 0, alreadyGold: 0, uncalibrated: 0 } };
  for (const spec of runs) {
    const { result, columns } = readPromptfooRun(spec);
    await addResult(state, result, columns, columns.length > 1 || parseRunSpec(spec).selector !== undefined ? undefined : spec, options);
  }
  return { entries: state.entries, skipped: state.skipped };
}

/**
 * The queue of one promptfoo result already in memory (the `afterAll` hook's rows), every column.
 * @param result - rows, columns and run identities (by column index), `file` the result file.
 */
export async function buildReviewQueueOfResult(result: PromptfooResultFile, options: BuildQueueOptions = {}): Promise<QueueBuild> {
  const state: QueueState = { entries: [], seen: new Set(), decidedByFile: new Map(), skipped: { decided: 0, alreadyGold: 0, uncalibrated: 0 } };
  await addResult(state, result, result.columns, result.columns.length > 1 ? undefined : result.file, options);
  return { entries: state.entries, skipped: state.skipped };
}

interface QueueState {
  readonly entries: ReviewEntry[];
  readonly seen: Set<string>;
  readonly decidedByFile: Map<string, Set<string>>;
  readonly skipped: { decided: number; alreadyGold: number; uncalibrated: number };
}

/**
 * Adds the queued rows of `columns` of one result to the state.
 * @param spec - how entries name the run; `undefined`: `FILE#COLUMN` per column.
 */
async function addResult(state: QueueState, result: PromptfooResultFile, columns: readonly PromptfooColumn[], spec: string | undefined, options: BuildQueueOptions): Promise<void> {
  const now = options.now ?? (() => new Date());
  const { entries, seen, decidedByFile, skipped } = state;
  for (const column of columns) {
    const identity = identityOf(result, column);
    const run: ReviewRunRef = { spec: spec ?? `${result.file}#${columnName(column, result.columns)}`, label: columnName(column, result.columns), recordedAt: identity?.recordedAt ?? null };
    for (const row of result.rows.filter((entry) => (entry.promptIdx ?? 0) === column.index)) {
      const ladder = findLadderRecords(row).ladder;
      if (ladder === undefined) continue;
      const judge = readJudgeOutcome(ladder);
      const outcome = queuedOutcomeOf(judge);
      if (outcome === undefined || judge === undefined) {
        if (judge !== undefined && (judge.wouldBe === 'review' || judge.wouldBe === 'lucky_match')) skipped.uncalibrated += 1;
        continue;
      }
      const answer = parseProviderOutput(row.response?.output);
      if (answer.kind !== 'sql') continue;
      const item = itemIdOf(row);
      const vars = varsOf(row);
      const golds = stringList(vars['gold_sql']);
      if (golds.some((gold) => normalizeCandidate(gold) === normalizeCandidate(answer.sql))) {
        skipped.alreadyGold += 1;
        continue;
      }
      const id = reviewIdOf(item, answer.sql);
      const source = sourceOf(row);
      let decided = decidedByFile.get(source.file);
      if (decided === undefined) {
        decided = new Set(readDecisions(decisionsFileOf(source.file)).map((decision) => decision.review));
        decidedByFile.set(source.file, decided);
      }
      if (decided.has(id)) {
        skipped.decided += 1;
        continue;
      }
      if (seen.has(id)) continue;
      seen.add(id);
      const execution = ladder.rungs.find((rung) => rung.rung === 'execution');
      const goldIndex = goldIndexOf(execution);
      const role = typeof vars['role'] === 'string' && vars['role'] !== '' ? vars['role'] : null;
      const { snapshots, evidenceError } = await evidenceOf({ vars, role, golds, goldIndex, candidate: answer.sql, execution, options });
      entries.push({
        format: REVIEW_ENTRY_FORMAT,
        id,
        item,
        outcome,
        dataset: { file: source.file, line: source.line, hash: identity?.dataset.files.find((file) => file.path === source.file)?.hash ?? null },
        run,
        question: typeof vars['question'] === 'string' ? vars['question'] : '',
        golds,
        goldIndex,
        candidate: answer.sql,
        role,
        snapshots,
        evidenceError,
        judge,
        semantic: semanticOf(ladder),
        queuedAt: now().toISOString(),
      });
    }
  }
}

/** A promptfoo result file and the columns a spec names (all of them without `#COLUMN`). */
function readPromptfooRun(spec: string): { readonly result: PromptfooResultFile; readonly columns: readonly PromptfooColumn[] } {
  const { file, selector } = parseRunSpec(spec);
  const text = readUserText(file, { what: 'run file' });
  const result = parseResultText(text, file);
  return { result, columns: selector === undefined ? result.columns : [selectColumn(result, selector)] };
}

function parseResultText(text: string, file: string): PromptfooResultFile {
  const trimmed = text.trim();
  if (trimmed === '') throw new LadderError('input_invalid', `${file} is empty`);
  try {
    const whole = JSON.parse(trimmed) as unknown;
    if (isObject(whole) && 'results' in whole) return parsePromptfooResult(whole, file);
  } catch {
    // JSON lines: read below.
  }
  const rows: PromptfooRow[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new LadderError('input_invalid', `${file}:${index + 1}: not JSON (${(error as Error).message})`);
    }
    if (isObject(value) && 'i' in value && 'exec' in value) // Accepting a pair adds a gold to the item's dataset file; a Spider gold file holds one gold
      // per item and no question, so `spider --judge` verdicts stay in its JSONL.
      throw new LadderError('input_invalid', `${file}: a text2sql-ladder spider JSONL: its judge records (spider --judge) are not queued, since accepting a pair adds a gold to a dataset file and a Spider gold file holds one gold per item; the review queue reads promptfoo results (promptfoo eval -o FILE.json)`);
    if (!isObject(value) || !('testCase' in value || 'gradingResult' in value)) throw new LadderError('input_invalid', `${file}: not a promptfoo result (JSON with results.results, or promptfoo JSONL rows)`);
    rows.push(value as PromptfooRow);
  }
  return promptfooRowsAsResult(rows, file);
}

function identityOf(result: PromptfooResultFile, column: PromptfooColumn): RunIdentity | undefined {
  const raw = result.identities.get(column.index);
  return raw === undefined ? undefined : parseRunIdentity(raw, `${result.file} config.metadata.text2sqlLadder column ${column.index}`);
}

/** The dataset file and line the test came from (`metadata.source`, `file:line`). */
function sourceOf(row: PromptfooRow): { readonly file: string; readonly line: number | null } {
  const source = row.testCase?.metadata?.['source'];
  if (typeof source !== 'string' || source === '') return { file: '', line: null };
  const match = /^(.*):(\d+)$/.exec(source);
  return match === null ? { file: source, line: null } : { file: match[1]!, line: Number(match[2]) };
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string' && value !== '') return [value];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '') : [];
}

function goldIndexOf(execution: RungRecord | undefined): number | null {
  const details = execution?.details;
  return isObject(details) && typeof details['goldIndex'] === 'number' ? details['goldIndex'] : null;
}

/** L4's verdict line per snapshot: the comparison's reason, or the candidate's error. */
function storedVerdicts(execution: RungRecord | undefined): Map<string, string> {
  const verdicts = new Map<string, string>();
  const details = execution?.details;
  const snapshots = isObject(details) && Array.isArray(details['snapshots']) ? (details['snapshots'] as unknown[]) : [];
  for (const snapshot of snapshots) {
    if (!isObject(snapshot) || typeof snapshot['snapshot'] !== 'string') continue;
    const verdict = snapshot['verdict'];
    const error = snapshot['predictedError'];
    if (isObject(verdict) && typeof verdict['reason'] === 'string') verdicts.set(snapshot['snapshot'], `${verdict['match'] === true ? 'match' : 'no match'}: ${verdict['reason']}`);
    else if (isObject(error) && typeof error['message'] === 'string') verdicts.set(snapshot['snapshot'], `candidate error: ${error['message']}`);
  }
  return verdicts;
}

async function evidenceOf(input: {
  readonly vars: Readonly<Record<string, unknown>>;
  readonly role: string | null;
  readonly golds: readonly string[];
  readonly goldIndex: number | null;
  readonly candidate: string;
  readonly execution: RungRecord | undefined;
  readonly options: BuildQueueOptions;
}): Promise<{ readonly snapshots: SnapshotEvidence[]; readonly evidenceError: string | null }> {
  const { vars, options } = input;
  if (options.runtime === undefined) return { snapshots: [], evidenceError: 'results not computed (no database at hand)' };
  const gold = input.golds[input.goldIndex ?? 0];
  if (gold === undefined) return { snapshots: [], evidenceError: 'the item has no gold to run' };
  try {
    const snapshots = await computeEvidence(
      {
        db: typeof vars['db'] === 'string' ? vars['db'] : null,
        dbPaths: stringList(vars['db_path']).map((file) => path.resolve(file)),
        snapshots: stringList(vars['snapshots']),
        role: input.role,
        gold,
        candidate: input.candidate,
      },
      options.runtime,
      storedVerdicts(input.execution),
      options.previewRows ?? DEFAULT_PREVIEW_ROWS,
    );
    return { snapshots, evidenceError: null };
  } catch (error) {
    return { snapshots: [], evidenceError: errorText(error) };
  }
}

function semanticOf(ladder: LadderRecord): SemanticEvidence | null {
  const rung = ladder.rungs.find((entry) => entry.rung === 'semantic');
  if (rung === undefined || rung.status === 'skipped') return null;
  return { status: rung.status, reason: rung.reason, rejectedBy: rung.rejectedBy ?? null };
}
