/**
 * Earlier runs as evidence against golds (`audit --runs A B C`): when most runs agree with one
 * another and not with the gold, the gold is the likely mistake (two strong models seldom make the
 * same error). Read from the files `compare` reads and the files the replay provider replays:
 * - a promptfoo result (`promptfoo eval -o out.json`, or its JSONL rows; `FILE#COLUMN` picks a
 *   provider column as in `compare`): each row's `response.output`;
 * - a `text2sql-ladder spider --out` JSONL: the prediction file its run identity
 *   (`<out>.run.json`) names, checked against the digest recorded there;
 * - a recording `{"id", "output"}` per line, a Spider prediction file (one SQL per line, item `i`
 *   on line `i + 1`) or a BIRD `predict_dev.json`.
 *
 * Judging (`judgeRuns`): each run's SQL is judged against the item's golds by L4 itself
 * (`checkExecution`, the audit's policy, the item's row order); the runs that fail are grouped by
 * agreement — a run joins a group when L4 accepts it against the group's first run as if that were
 * the gold, on every snapshot. A group holding more than half of the runs given is the finding.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { LadderError } from '../errors.js';
import { itemIdOf, type PromptfooRow } from '../report/promptfoo-rows.js';
import { columnName, parsePromptfooResult, promptfooRowsAsResult, selectColumn, type PromptfooResultFile } from '../report/read-promptfoo-run.js';
import { loadRecording } from '../report/read-recording.js';
import { parseRunSpec } from '../report/read-run.js';
import { isSpiderVerdictLine } from '../report/read-spider-run.js';
import { hashFileOrNull, parseRunIdentity } from '../report/run-identity.js';
import { runFilePathOf } from '../report/spider-run-identity.js';
import { checkExecution, type ExecutionDetails } from '../rungs/execution.js';
import type { RungResult } from '../rungs/rung-result.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { parseProviderOutput } from '../sql/provider-output.js';
import { createFinding, type AuditFinding } from './audit-finding.js';
import type { AuditItem } from './audit-source.js';
import { readUserText } from '../files/user-file.js';
import { isObject } from '../objects.js';

/** One earlier run: its outputs by item id. */
export interface AuditRun {
  /** What the user wrote. */
  readonly spec: string;
  /** A short name: the promptfoo column, else the file name without extension. */
  readonly label: string;
  readonly format: 'promptfoo' | 'spider-jsonl' | 'recording' | 'lines' | 'bird';
  /** Item id → the output as recorded (SQL text or a protocol object). */
  readonly outputs: ReadonlyMap<string, unknown>;
}

/**
 * Reads one run (see the module doc for the formats).
 * @throws LadderError `input_invalid` for an unreadable or malformed file, a Spider JSONL without
 *   its run identity or whose prediction file changed; `invalid_option` for a column selector that
 *   names no column or is given for a file with one run.
 */
export function readAuditRun(spec: string): AuditRun {
  const { file, selector } = parseRunSpec(spec);
  const text = readUserText(file, { what: 'run file', prefix: '--runs: ' });
  const label = path.basename(file).replace(/\.[^.]+$/, '');
  const noSelector = (format: AuditRun['format']): void => {
    if (selector !== undefined) throw new LadderError('invalid_option', `--runs: ${file} holds one run (${format}); drop "#${selector}"`);
  };
  const trimmed = text.trimStart();
  if (trimmed === '') throw new LadderError('input_invalid', `--runs: ${file} is empty`);
  if (trimmed.startsWith('{')) {
    const whole = tryJson(text);
    if (isObject(whole) && 'results' in whole) return promptfooRun(spec, parsePromptfooResult(whole, file), selector);
    if (isObject(whole) && path.extname(file).toLowerCase() === '.json') {
      noSelector('bird');
      return { spec, label, format: 'bird', outputs: loadRecording(file, 'bird', '--runs').outputs };
    }
    const lines = text.split(/\r?\n/);
    const first = tryJson(lines.find((line) => line.trim() !== '') ?? '');
    if (isSpiderVerdictLine(first)) {
      noSelector('spider-jsonl');
      return spiderJsonlRun(spec, file);
    }
    if (isObject(first) && ('testCase' in first || 'gradingResult' in first || 'promptIdx' in first)) {
      const rows = lines.flatMap((line, index) => {
        if (line.trim() === '') return [];
        const row = tryJson(line);
        if (!isObject(row)) throw new LadderError('input_invalid', `--runs: ${file}:${index + 1}: not a JSON object`);
        return [row as PromptfooRow];
      });
      return promptfooRun(spec, promptfooRowsAsResult(rows, file), selector);
    }
    if (isObject(first) && 'id' in first && 'output' in first) {
      noSelector('recording');
      return { spec, label, format: 'recording', outputs: loadRecording(file, 'jsonl', '--runs').outputs };
    }
    throw new LadderError('input_invalid', `--runs: ${file}: not a run: expected a promptfoo result, a text2sql-ladder spider --out JSONL, a recording ({"id", "output"} lines) or a prediction file (one SQL per line)`);
  }
  noSelector('lines');
  return { spec, label, format: 'lines', outputs: loadRecording(file, 'lines', '--runs').outputs };
}

function promptfooRun(spec: string, result: PromptfooResultFile, selector: string | undefined): AuditRun {
  const column = selectColumn(result, selector);
  const outputs = new Map<string, unknown>();
  for (const row of result.rows) {
    if ((row.promptIdx ?? 0) !== column.index) continue;
    const id = itemIdOf(row);
    if (outputs.has(id)) throw new LadderError('input_invalid', `--runs: ${result.file}#${columnName(column, result.columns)}: item "${id}" appears in two rows (was the eval run with --repeat?)`);
    outputs.set(id, row.response?.output ?? null);
  }
  return { spec, label: columnName(column, result.columns), format: 'promptfoo', outputs };
}

/** The prediction file a `spider --out` JSONL was graded from, through its run identity. */
function spiderJsonlRun(spec: string, file: string): AuditRun {
  const runFile = runFilePathOf(file);
  if (!existsSync(runFile)) {
    throw new LadderError('input_invalid', `--runs: ${file} holds verdicts, not predictions, and has no ${path.basename(runFile)} naming its prediction file; pass the prediction file itself`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readUserText(runFile, { what: 'run identity', prefix: '--runs: ' }));
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw new LadderError('input_invalid', `--runs: ${runFile}: cannot read the run identity (${(error as Error).message})`);
  }
  const identity = parseRunIdentity(parsed, runFile);
  const predictions = identity.provider.settings['predictions'];
  const digest = identity.provider.settings['predictionsHash'];
  if (typeof predictions !== 'string') throw new LadderError('input_invalid', `--runs: ${runFile} names no prediction file (provider.settings.predictions)`);
  // Written as given to `spider --pred`: relative to where it ran, else to the JSONL's folder.
  const found = [predictions, path.resolve(path.dirname(file), predictions)].find((candidate) => existsSync(candidate));
  if (found === undefined) throw new LadderError('input_invalid', `--runs: ${file}: its prediction file ${predictions} (from ${path.basename(runFile)}) does not exist`);
  if (typeof digest === 'string' && hashFileOrNull(found) !== digest) {
    throw new LadderError('input_invalid', `--runs: ${file}: its prediction file ${found} changed since the run (digest differs from ${path.basename(runFile)})`);
  }
  return { spec, label: identity.provider.label, format: 'spider-jsonl', outputs: loadRecording(found, 'lines', '--runs').outputs };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}


/** One run on one item. */
export interface RunVerdict {
  readonly run: string;
  /** `pass`/`fail`: L4 against the golds; `unscored`: L4 could not decide; `missing`: no output for the item; `no_sql`: the output declined. */
  readonly status: 'pass' | 'fail' | 'unscored' | 'missing' | 'no_sql';
  /** L4's reason, or why there is no verdict. */
  readonly reason: string;
  readonly sql?: string;
}

/** What {@link judgeRuns} reads. */
export interface JudgeRunsInput {
  readonly item: AuditItem;
  readonly snapshots: readonly Snapshot[];
  readonly runs: readonly AuditRun[];
  readonly runtime: LadderRuntime;
  readonly policy: ComparisonPolicy;
}

/**
 * Judges every run on one item and finds the runs that agree against the gold (module doc).
 * @returns each run's verdict, in run order, and the finding when a majority agrees against the gold.
 */
export async function judgeRuns(input: JudgeRunsInput): Promise<{ readonly verdicts: readonly RunVerdict[]; readonly finding?: AuditFinding }> {
  const { item, snapshots, runs, runtime, policy } = input;
  const engine = await runtime.engineForSnapshot(snapshots[0] ?? {});
  const l4 = (predictedSql: string, golds: readonly string[]): Promise<RungResult<ExecutionDetails>> =>
    checkExecution({
      predictedSql,
      golds,
      snapshots,
      engine,
      policy,
      cache: runtime.goldCache,
      ...(item.goldOrdered === undefined ? {} : { goldOrdered: item.goldOrdered }),
      ...(item.asOfDate === undefined ? {} : { asOfDate: item.asOfDate }),
    });
  const verdicts: RunVerdict[] = [];
  const failing: { run: AuditRun; sql: string; result: RungResult<ExecutionDetails> }[] = [];
  for (const run of runs) {
    if (!run.outputs.has(item.id)) {
      verdicts.push({ run: run.label, status: 'missing', reason: `no output for item ${item.id}` });
      continue;
    }
    const answer = parseProviderOutput(run.outputs.get(item.id));
    if (answer.kind !== 'sql') {
      verdicts.push({ run: run.label, status: 'no_sql', reason: `declined (${answer.action})` });
      continue;
    }
    const result = await l4(answer.sql, item.golds);
    verdicts.push({ run: run.label, status: result.status === 'pass' ? 'pass' : result.status === 'fail' ? 'fail' : 'unscored', reason: result.reason, sql: answer.sql });
    // A prediction that does not run on every snapshot can agree with nothing.
    if (result.status === 'fail' && !result.details.flags.includes('prediction_error')) failing.push({ run, sql: answer.sql, result });
  }
  // Group the failing runs: a run joins the first group whose first run L4 accepts it against.
  const groups: (typeof failing)[] = [];
  for (const entry of failing) {
    let joined = false;
    for (const group of groups) {
      if ((await l4(entry.sql, [group[0]!.sql])).status === 'pass') {
        group.push(entry);
        joined = true;
        break;
      }
    }
    if (!joined) groups.push([entry]);
  }
  const largest = [...groups].sort((a, b) => b.length - a.length)[0];
  if (largest === undefined || largest.length * 2 <= runs.length || largest.length < 2) return { verdicts };
  const first = largest[0]!.result;
  const failingSnapshot = first.details.firstFailingSnapshot;
  const verdict = first.details.snapshots.find((s) => s.snapshot === failingSnapshot);
  const columns = verdict?.columns;
  const names = largest.map((entry) => entry.run.label);
  const rows = verdict?.verdict === undefined || columns === undefined
    ? []
    : [
        ...(verdict.verdict.missingRows.count > 0 ? [{ label: 'only the gold returns', columns: columns.gold, rows: verdict.verdict.missingRows.rows, count: verdict.verdict.missingRows.count }] : []),
        ...(verdict.verdict.extraRows.count > 0 ? [{ label: 'only the runs return', columns: columns.predicted, rows: verdict.verdict.extraRows.rows, count: verdict.verdict.extraRows.count }] : []),
      ];
  return {
    verdicts,
    finding: createFinding({
      kind: 'runs_agree_against_gold',
      item: item.id,
      source: item.source,
      snapshot: failingSnapshot,
      role: item.role ?? null,
      gold: first.details.goldIndex,
      message: `${largest.length} of ${runs.length} runs (${names.join(', ')}) return the same result, and L4 fails it against the gold: ${first.reason}`,
      rows,
      details: { runs: largest.map((entry) => ({ run: entry.run.label, sql: entry.sql })) },
    }),
  };
}
