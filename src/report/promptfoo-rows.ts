/**
 * promptfoo result rows (an `EvaluateResult` of promptfoo 0.121, as in `results.results[]` of
 * `promptfoo eval -o out.json` and in the `afterEach` / `afterAll` hooks): the one row type every
 * reader uses, and what the rows say besides the ladder's records. Only the slice of the row that
 * is read (or, by the `afterEach` hook, written) is declared, so the core does not depend on
 * promptfoo's types (the core never imports promptfoo).
 *
 * The ladder's records in a row (the stored ladder record and single-rung records) are found and
 * checked by src/report/ladder-record.ts (`findLadderRecords`): the `text2sqlLadder` entries of the
 * grading result and its components, or the row's `metadata.ladder` JSON once the `afterEach` hook
 * has moved the ladder's there (older result files hold it in both places).
 */
import { isObject } from '../objects.js';
import { oneLine } from '../format.js';
import { findLadderRecords, type FoundRecords } from './ladder-record.js';

/** The slice of a promptfoo result row read here. */
export interface PromptfooRow {
  readonly promptIdx?: number;
  readonly testIdx?: number;
  readonly promptId?: string;
  readonly provider?: { readonly id?: string; readonly label?: string };
  readonly prompt?: { readonly raw?: string; readonly label?: string };
  readonly testCase?: {
    readonly description?: string;
    readonly vars?: Readonly<Record<string, unknown>>;
    readonly metadata?: Readonly<Record<string, unknown>>;
    readonly assert?: ReadonlyArray<{ readonly type?: string; readonly value?: unknown; readonly config?: unknown } | null>;
  };
  readonly vars?: Readonly<Record<string, unknown>>;
  /** The provider's response; `output` is what the model returned (read by `audit --runs`). */
  readonly response?: { readonly output?: unknown } | null;
  readonly gradingResult?: {
    readonly reason?: string;
    /** Written by the `afterEach` hook (the ladder record moved out). */
    metadata?: Readonly<Record<string, unknown>>;
    readonly componentResults?: ReadonlyArray<{ metadata?: Readonly<Record<string, unknown>> } | null | undefined> | null;
  } | null;
  /** The row's metadata; the `afterEach` hook adds the rungs' one-line verdicts and the ladder record. */
  metadata?: Readonly<Record<string, unknown>>;
  readonly namedScores?: Readonly<Record<string, unknown>>;
  readonly success?: boolean;
  /** 0 none, 1 assertion failed, 2 error (promptfoo's ResultFailureReason). */
  readonly failureReason?: number;
  readonly error?: string | null;
}

/**
 * What an ERROR row says, on one line: promptfoo's `error` without the stack it may carry (`at …`
 * lines) and without the error class prefix (`LadderError: `, `Error: `).
 * @example rowErrorText({ error: 'LadderError: cannot open a.sqlite: file is not a database\n    at query (…)' })
 * // 'cannot open a.sqlite: file is not a database'
 */
export function rowErrorText(row: Pick<PromptfooRow, 'error'>): string {
  const lines = (row.error ?? '').split('\n');
  const end = lines.findIndex((line) => /^\s+at\s/.test(line));
  const text = (end === -1 ? lines : lines.slice(0, end)).join(' ').replace(/\s+/g, ' ').trim();
  return text.replace(/^(?:[A-Z]\w*Error): /, '') || 'ERROR row (promptfoo gave no message)';
}

/** The test vars of a row (the test case's, else the row's). */
export function varsOf(row: PromptfooRow): Readonly<Record<string, unknown>> {
  return row.testCase?.vars ?? row.vars ?? {};
}

/**
 * The item id of a row, as the ladder summary reads it: `testCase.metadata.id`, else `vars.id`,
 * else the test description, else `#<testIdx>`.
 */
export function itemIdOf(row: PromptfooRow): string {
  const raw = row.testCase?.metadata?.['id'] ?? varsOf(row)['id'] ?? row.testCase?.description;
  if (typeof raw === 'string' && raw !== '') return raw;
  if (typeof raw === 'number') return String(raw);
  return `#${row.testIdx ?? '?'}`;
}

/** Tags of a row (`testCase.metadata.tags`, `key:value` strings written by the dataset generator). */
export function tagsOf(row: PromptfooRow): string[] {
  const tags = row.testCase?.metadata?.['tags'];
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** The resolved comparison policy of the row's execution verdict, when it ran. */
export function policyOf(row: PromptfooRow, records: FoundRecords = findLadderRecords(row)): unknown {
  const { ladder, rungs } = records;
  const execution = ladder?.rungs.find((rung) => rung.rung === 'execution') ?? rungs.find((rung) => rung.rung === 'execution');
  const details = execution?.details;
  return isObject(details) && isObject(details['policy']) ? details['policy'] : undefined;
}

/**
 * The columns of a promptfoo result: `results.prompts[k]` is the column of rows with
 * `promptIdx === k` (one per prompt × provider).
 */
export interface PromptfooColumn {
  readonly index: number;
  /** Provider label (or id). */
  readonly provider: string;
  /** Prompt label. */
  readonly prompt: string;
  /** promptfoo's prompt id. */
  readonly promptId: string | null;
}

/** The slice of `results.prompts[k]` read here. */
export interface PromptfooPromptEntry {
  readonly provider?: unknown;
  readonly label?: unknown;
  readonly id?: unknown;
}

/** Columns from `results.prompts`, falling back to the rows' providers when it is missing. */
export function columnsOf(prompts: ReadonlyArray<PromptfooPromptEntry | null> | undefined, rows: readonly PromptfooRow[]): PromptfooColumn[] {
  if (Array.isArray(prompts) && prompts.length > 0) {
    return prompts.map((entry, index) => ({
      index,
      provider: typeof entry?.provider === 'string' ? entry.provider : providerLabelOfColumn(rows, index),
      prompt: typeof entry?.label === 'string' ? entry.label : '',
      promptId: typeof entry?.id === 'string' ? entry.id : null,
    }));
  }
  const indexes = [...new Set(rows.map((row) => row.promptIdx ?? 0))].sort((a, b) => a - b);
  return indexes.map((index) => ({ index, provider: providerLabelOfColumn(rows, index), prompt: rows.find((row) => (row.promptIdx ?? 0) === index)?.prompt?.label ?? '', promptId: null }));
}

/** Longest prompt label used in a column label, in characters. */
const MAX_PROMPT_LABEL_CHARS = 40;

/**
 * How the ladder summary labels a column, and a name `compare` / `audit --runs` accept after `#`:
 * the provider, plus ` [prompt label]` (cut to 40 characters) when that provider has several columns.
 * @example columnLabel({ index: 1, provider: 'fake-model', prompt: 'prompt-v2', promptId: null }, columns) // 'fake-model [prompt-v2]'
 */
export function columnLabel(column: PromptfooColumn, columns: readonly PromptfooColumn[]): string {
  const shared = columns.filter((other) => other.provider === column.provider).length > 1;
  return shared ? `${column.provider} [${promptLabel(column.prompt, column.index)}]` : column.provider;
}

function promptLabel(label: string, index: number): string {
  const text = oneLine(label);
  if (text === '') return `prompt ${index + 1}`;
  return text.length <= MAX_PROMPT_LABEL_CHARS ? text : `${text.slice(0, MAX_PROMPT_LABEL_CHARS - 1)}…`;
}

function providerLabelOfColumn(rows: readonly PromptfooRow[], index: number): string {
  const row = rows.find((entry) => (entry.promptIdx ?? 0) === index);
  return row?.provider?.label || row?.provider?.id || `column ${index}`;
}
