/**
 * Reads one column of a promptfoo result (`promptfoo eval -o out.json`, or `-o out.jsonl` rows) as
 * a {@link RunRecord}.
 *
 * Columns: `results.prompts[k]` is the column of the rows with `promptIdx === k` (one per prompt ×
 * provider). A selector picks one: the provider label (`#weak`), `label/prompt` when a provider has
 * several prompts, the ladder summary's column label (`#fake-model [prompt-v1]`, quoted in a
 * shell), the provider id, or the column index (`#0`). A file with one column needs none.
 *
 * Per row (item): the ladder assertion's stored verdict gives each rung that ran and `end_to_end`
 * with their reasons; rows graded by single-rung assertions give those rungs and an `end_to_end`
 * that passes when the execution rung passed and nothing failed (as the ladder summary counts them);
 * an errored row (promptfoo `failureReason` 2) fails `end_to_end` with promptfoo's error; rows of
 * other assertions give their 0/1 named scores. Identity: `config.metadata.text2sqlLadder` as
 * written by the summary hook; without it, the dataset hash and the policies are recomputed from
 * the rows (the snapshot checksums cannot be).
 */
import { LadderError } from '../errors.js';
import { PROMPTFOO_RUNS_FORMAT, datasetContentOf } from './promptfoo-run-identity.js';
import { columnLabel, columnsOf, itemIdOf, policyOf, tagsOf, type PromptfooColumn, type PromptfooPromptEntry, type PromptfooRow } from './promptfoo-rows.js';
import { findLadderRecords, type FoundRecords } from './ladder-record.js';
import { distinctJson, hashDatasetItems, parseRunIdentity, type JsonValue, type RunIdentity } from './run-identity.js';
import { END_TO_END, type MetricOutcome, type RunItem, type RunRecord } from './run-record.js';
import { oneLine } from '../format.js';
import { scoreNameOf } from '../rungs/scores.js';
import { isObject } from '../objects.js';

/** A parsed promptfoo result file. */
export interface PromptfooResultFile {
  readonly file: string;
  readonly rows: readonly PromptfooRow[];
  readonly columns: readonly PromptfooColumn[];
  /** `config.metadata.text2sqlLadder.columns`, keyed by promptIdx. */
  readonly identities: ReadonlyMap<number, unknown>;
}


/**
 * Interprets parsed JSON as a promptfoo result file (`{ results: { prompts, results }, config }`).
 * @throws LadderError `input_invalid` when it has no `results.results` list.
 */
export function parsePromptfooResult(data: unknown, file: string): PromptfooResultFile {
  const results = isObject(data) ? data['results'] : undefined;
  if (!isObject(results) || !Array.isArray(results['results'])) {
    throw new LadderError('input_invalid', `${file}: not a promptfoo result file (expected an object with results.results, as written by promptfoo eval -o FILE.json)`);
  }
  const rows = (results['results'] as unknown[]).filter(isObject) as PromptfooRow[];
  const prompts = Array.isArray(results['prompts']) ? (results['prompts'] as Array<PromptfooPromptEntry | null>) : undefined;
  const config = isObject(data) ? data['config'] : undefined;
  const entry = isObject(config) && isObject(config['metadata']) ? config['metadata']['text2sqlLadder'] : undefined;
  const identities = new Map<number, unknown>();
  if (isObject(entry) && entry['format'] === PROMPTFOO_RUNS_FORMAT && Array.isArray(entry['columns'])) {
    for (const column of entry['columns'] as unknown[]) {
      if (isObject(column) && typeof column['promptIdx'] === 'number') identities.set(column['promptIdx'], column['identity']);
    }
  }
  return { file, rows, columns: columnsOf(prompts, rows), identities };
}

/** Rows of promptfoo's JSONL output (one EvaluateResult per line), as a result file without prompts or config. */
export function promptfooRowsAsResult(rows: readonly PromptfooRow[], file: string): PromptfooResultFile {
  return { file, rows, columns: columnsOf(undefined, rows), identities: new Map() };
}

/** How a column is named in messages and selectors: the provider label, with `/prompt` when the provider has several columns. */
export function columnName(column: PromptfooColumn, columns: readonly PromptfooColumn[]): string {
  const shared = columns.filter((other) => other.provider === column.provider).length > 1;
  return shared ? `${column.provider}/${column.prompt || column.index}` : column.provider;
}

/**
 * Picks the column a selector names (see the module doc).
 * @throws LadderError `invalid_option` when no column or several match, or the file has several
 *   columns and no selector was given; the message lists the columns.
 */
export function selectColumn(result: PromptfooResultFile, selector: string | undefined): PromptfooColumn {
  const { columns, file } = result;
  const listing = columns.map((column) => `#${columnName(column, columns)}`).join(', ');
  if (columns.length === 0) throw new LadderError('input_invalid', `${file}: the promptfoo result holds no rows`);
  if (selector === undefined || selector === '') {
    if (columns.length === 1) return columns[0]!;
    throw new LadderError('invalid_option', `${file} has ${columns.length} columns; name one: ${columns.map((column) => `${file}#${columnName(column, columns)}`).join(', ')}`);
  }
  const tries: Array<(column: PromptfooColumn) => boolean> = [
    (column) => columnName(column, columns) === selector,
    (column) => column.provider === selector,
    // The ladder summary's label (`fake-model [prompt-v1]`), as printed after a run.
    (column) => columnLabel(column, columns) === selector,
    (column) => `${column.provider}/${column.prompt}` === selector,
    (column) => result.rows.some((row) => (row.promptIdx ?? 0) === column.index && row.provider?.id === selector),
    (column) => /^\d+$/.test(selector) && column.index === Number(selector),
  ];
  for (const matches of tries) {
    const found = columns.filter(matches);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) throw new LadderError('invalid_option', `${file}#${selector} names ${found.length} columns (${found.map((column) => `#${columnName(column, columns)}`).join(', ')}); use one of those`);
  }
  throw new LadderError('invalid_option', `${file} has no column "${selector}"; its columns: ${listing}`);
}

/**
 * The run of one column.
 * @param spec - what the user wrote (kept for messages and output).
 * @throws LadderError `input_invalid` when an item id appears twice in the column (e.g. promptfoo
 *   `--repeat`), or the recorded identity is malformed.
 */
export function promptfooRunRecord(result: PromptfooResultFile, column: PromptfooColumn, spec: string): RunRecord {
  const rows = result.rows.filter((row) => (row.promptIdx ?? 0) === column.index);
  const name = columnName(column, result.columns);
  const items: RunItem[] = [];
  const seen = new Map<string, number>();
  // Without a recorded identity, the dataset hash and the policies are recomputed from the rows.
  const recorded = result.identities.has(column.index);
  const policies: unknown[] = [];
  const contents: Array<{ id: string; content: unknown }> = [];
  for (const [index, row] of rows.entries()) {
    const id = itemIdOf(row);
    const previous = seen.get(id);
    if (previous !== undefined) {
      throw new LadderError('input_invalid', `${result.file}#${name}: item id "${id}" appears in two rows (${previous + 1} and ${index + 1} of the column); compare needs one row per item (was the eval run with --repeat?)`);
    }
    seen.set(id, index);
    const verdicts = findLadderRecords(row);
    const process = verdicts.ladder?.trajectory;
    items.push({ id, tags: tagsOf(row), metrics: metricsOf(row, verdicts), ...(process !== undefined ? { process } : {}) });
    if (!recorded) {
      const policy = policyOf(row, verdicts);
      if (policy !== undefined) policies.push(policy);
      contents.push({ id, content: datasetContentOf(row) });
    }
  }
  const identity: RunIdentity | undefined = recorded ? parseRunIdentity(result.identities.get(column.index), `${result.file} config.metadata.text2sqlLadder column ${column.index}`) : undefined;
  const derived = recorded ? {} : { datasetContentHash: hashDatasetItems(contents), policies: distinctJson(policies) as JsonValue[] };
  return { spec, label: name, format: 'promptfoo', identity, derived, items };
}

/**
 * The metric outcomes of one row (see the module doc).
 * @param verdicts - the row's stored verdicts, when already read.
 */
export function metricsOf(row: PromptfooRow, verdicts: FoundRecords = findLadderRecords(row)): Record<string, MetricOutcome> {
  const metrics: Record<string, MetricOutcome> = {};
  if (row.failureReason === 2) {
    metrics[END_TO_END] = { status: 'fail', reason: `error: ${oneLine(row.error ?? row.gradingResult?.reason ?? 'the row errored')}` };
    return metrics;
  }
  const { ladder, rungs } = verdicts;
  if (ladder !== undefined) {
    for (const rung of ladder.rungs) {
      if (rung.status === 'pass' || rung.status === 'fail') metrics[scoreNameOf(rung.rung)] = { status: rung.status, reason: oneLine(rung.reason) };
    }
    if (ladder.endToEnd === 1 || ladder.endToEnd === 0) metrics[END_TO_END] = { status: ladder.endToEnd === 1 ? 'pass' : 'fail', reason: oneLine(ladder.reason) };
    return metrics;
  }
  if (rungs.length > 0) {
    for (const rung of rungs) {
      if (rung.status === 'pass' || rung.status === 'fail') metrics[scoreNameOf(rung.rung)] = { status: rung.status, reason: oneLine(rung.reason) };
    }
    const failed = rungs.find((rung) => rung.status === 'fail');
    const execution = rungs.find((rung) => rung.rung === 'execution');
    if (failed !== undefined) metrics[END_TO_END] = { status: 'fail', reason: `${scoreNameOf(failed.rung)} fail: ${oneLine(failed.reason)}` };
    else if (execution?.status === 'pass') metrics[END_TO_END] = { status: 'pass', reason: `${scoreNameOf('execution')} pass: ${oneLine(execution.reason)}` };
    else if (execution !== undefined && execution.status !== 'unscored') metrics[END_TO_END] = { status: 'fail', reason: `${scoreNameOf('execution')} ${execution.status}: ${oneLine(execution.reason)}` };
    return metrics;
  }
  const reason = oneLine(row.gradingResult?.reason ?? '');
  for (const [name, value] of Object.entries(row.namedScores ?? {})) {
    if (value === 0 || value === 1) metrics[name] = { status: value === 1 ? 'pass' : 'fail', reason };
  }
  return metrics;
}

