/**
 * Reading the ladder's results out of promptfoo result rows (an `EvaluateResult` of promptfoo
 * 0.121, as in `results.results[]` of `promptfoo eval -o out.json` and in the `afterAll` hook).
 * Only the slice of the row that the comparison and the run identity read is declared here, so the
 * core does not depend on promptfoo's types (the core never imports promptfoo).
 *
 * Where the ladder writes its verdicts (src/promptfoo/ladder-result.ts, src/promptfoo/adapter.ts):
 * `gradingResult.componentResults[k].metadata.text2sqlLadder` holds `{ kind: 'ladder', … }` for the
 * ladder assertion and `{ kind: 'rung', … }` for single-rung assertions; the `afterEach` hook moves
 * the ladder entry, as a JSON string, to the row's `metadata.ladder` (older result files hold it in
 * both places).
 */
import type { RungStatus } from '../rungs/rung-result.js';

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
    readonly metadata?: Readonly<Record<string, unknown>>;
    readonly componentResults?: ReadonlyArray<{ readonly metadata?: Readonly<Record<string, unknown>> } | null | undefined> | null;
  } | null;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly namedScores?: Readonly<Record<string, unknown>>;
  readonly success?: boolean;
  /** 0 none, 1 assertion failed, 2 error (promptfoo's ResultFailureReason). */
  readonly failureReason?: number;
  readonly error?: string | null;
}

/** One rung verdict as the ladder stores it. */
export interface StoredRung {
  readonly rung: string;
  readonly status: RungStatus;
  readonly reason: string;
  readonly details?: unknown;
}

/** The ladder assertion's stored verdict (the fields read here). */
export interface StoredLadder {
  readonly verdict: 'pass' | 'fail' | 'unscored';
  readonly endToEnd: number | null;
  readonly reason: string;
  readonly expectedBehavior?: string;
  readonly snapshots?: readonly string[];
  readonly rungs: readonly StoredRung[];
}

/** What {@link findStoredVerdicts} found in a row. */
export interface StoredVerdicts {
  readonly ladder: StoredLadder | undefined;
  /** Single-rung assertions (not the ladder's own rungs). */
  readonly rungs: readonly StoredRung[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isStoredRung(value: unknown): value is StoredRung {
  return isObject(value) && typeof value['rung'] === 'string' && typeof value['status'] === 'string' && typeof value['reason'] === 'string';
}

function isStoredLadder(value: unknown): value is StoredLadder & { kind: 'ladder' } {
  return isObject(value) && value['kind'] === 'ladder' && typeof value['verdict'] === 'string' && Array.isArray(value['rungs']) && (value['rungs'] as unknown[]).every(isStoredRung);
}

/**
 * The ladder and rung verdicts stored in a row: `text2sqlLadder` entries of the grading result and
 * its components, else the `metadata.ladder` JSON copied by the `afterEach` hook.
 */
export function findStoredVerdicts(row: PromptfooRow): StoredVerdicts {
  const candidates = [row.gradingResult?.metadata, ...(row.gradingResult?.componentResults ?? []).map((entry) => entry?.metadata)];
  let ladder: StoredLadder | undefined;
  const rungs: StoredRung[] = [];
  const seen = new Set<unknown>();
  for (const candidate of candidates) {
    const entry = isObject(candidate) ? candidate['text2sqlLadder'] : undefined;
    if (!isObject(entry) || seen.has(entry)) continue;
    seen.add(entry);
    if (isStoredLadder(entry)) ladder ??= entry;
    else if (entry['kind'] === 'rung' && isStoredRung(entry)) rungs.push(entry);
  }
  return { ladder: ladder ?? movedLadderOf(row), rungs };
}

/** Parses of `metadata.ladder`, per row metadata object: `afterAll` reads each row twice (summary, run identity). */
const movedLadders = new WeakMap<object, (StoredLadder & { kind: 'ladder' }) | null>();

/**
 * The ladder verdict the `afterEach` hook moved into the row metadata (`metadata.ladder`, a JSON
 * string), parsed once per metadata object; callers must not modify it.
 * @returns `undefined` when the row has no such string, or it is not JSON of a ladder verdict (then
 *   the row is read from its grading result only). Never throws.
 */
export function movedLadderOf(row: { readonly metadata?: Readonly<Record<string, unknown>> }): (StoredLadder & { kind: 'ladder' }) | undefined {
  const metadata = row.metadata;
  const text = metadata?.['ladder'];
  if (metadata === undefined || typeof text !== 'string') return undefined;
  let parsed = movedLadders.get(metadata);
  if (parsed === undefined) {
    try {
      const value = JSON.parse(text) as unknown;
      parsed = isStoredLadder(value) ? value : null;
    } catch {
      parsed = null;
    }
    movedLadders.set(metadata, parsed);
  }
  return parsed ?? undefined;
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
export function policyOf(row: PromptfooRow, verdicts: StoredVerdicts = findStoredVerdicts(row)): unknown {
  const { ladder, rungs } = verdicts;
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

function providerLabelOfColumn(rows: readonly PromptfooRow[], index: number): string {
  const row = rows.find((entry) => (entry.promptIdx ?? 0) === index);
  return row?.provider?.label || row?.provider?.id || `column ${index}`;
}
