/**
 * promptfoo extension hooks for the ladder (re-exported by extensions/ladder-summary.ts; kept here
 * so that the package build ships them in dist/assertions/).
 *
 * ```yaml
 * extensions:
 *   - file://extensions/ladder-summary.ts:afterEach   # copies ladder details into the row metadata
 *   - file://extensions/ladder-summary.ts:afterAll    # prints the ladder summary, closes the engine
 * # installed: file://node_modules/text2sql-ladder/dist/assertions/summary-hooks.js:afterAll (and :afterEach)
 * ```
 *
 * - `afterEach` copies each rung's one-line verdict (`L1_syntax: "pass: …"`, `end_to_end`) from
 *   the assertion's metadata into the row's metadata, which the web viewer shows in the cell's
 *   Metadata tab (promptfoo keeps assertion metadata only inside `gradingResult.componentResults`),
 *   and moves the full ladder details there as JSON (`ladder`), so a stored row holds them once:
 *   every reader of stored rows (`findLadderMetadata`; `findStoredVerdicts` and `movedLadderOf` in
 *   src/report/promptfoo-rows.ts) also looks there. promptfoo passes the hook a copy of the row
 *   whose `gradingResult` is the row's own; were that ever a copy too, the details would stay in
 *   both places, as before.
 * - `afterAll` prints the ladder summary (src/report) per provider — execution success,
 *   correctness among executed, end-to-end correctness, scored / unscored, gold errors, empty-gold
 *   matches, rung and tag pass rates, the items without gold SQL by name — and writes the summaries
 *   as JSON beside promptfoo's `-o` output, or to the file `LADDER_SUMMARY_JSON` names
 *   (src/promptfoo/summary-file.ts), and the review queue beside it when the equivalence judge
 *   queued pairs for a person (src/promptfoo/review-queue-hook.ts). It then closes the shared engine.
 *
 * Rows graded only by single-rung assertions (e.g. the Spider example's execution rung) are
 * summarized from those rungs. Hooks never throw: a broken row is skipped with a warning, so the
 * summary cannot turn a finished run into a failure — except an incomplete run: ERROR rows (a
 * database that cannot be used, an engine that cannot run, misuse only that row reveals) or lost
 * rows (the rows do not cover every test in every column, src/report/ladder-summary.ts
 * `checkRowCount`). `afterAll` names them on stderr and the run exits 3 (src/exit-codes.ts), also
 * when promptfoo's own pass-rate gate would have set its code (100) after the hook.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { closeSharedEngine, resolveFixtureOnce } from './runtime.js';
import { ladderSummaryFile } from './summary-file.js';
import { writeRunReviewQueue } from './review-queue-hook.js';
import { runsInPromptfooCli } from './promptfoo-cli.js';
import { EXIT_INCOMPLETE } from '../exit-codes.js';
import { checkRowCount, summarizeLadder } from '../report/ladder-summary.js';
import type { ProviderSummary, SummaryRecord } from '../report/ladder-summary.js';
import { renderLadderSummary } from '../report/render-summary.js';
import { recordPromptfooRunIdentities, withRunIdentities, type PromptfooEvalContext } from '../report/promptfoo-run-identity.js';
import { columnLabel, columnsOf, itemIdOf, rowErrorText, tagsOf, varsOf, type PromptfooRow } from '../report/promptfoo-rows.js';
import { findLadderRecords, storedExecutionFacts, type RungRecord } from '../report/ladder-record.js';
import type { RungStatus } from '../rungs/rung-result.js';
import { END_TO_END, scoreNameOf } from '../rungs/scores.js';
import { formatCell } from '../format.js';
import { isObject } from '../objects.js';

/** Removes the ladder's `text2sqlLadder` entry from the grading result that holds it (`afterEach` moved it). */
function dropLadderEntry(row: PromptfooRow, entry: Record<string, unknown>): void {
  const results = [row.gradingResult, ...(row.gradingResult?.componentResults ?? [])];
  for (const result of results) {
    if (result?.metadata?.['text2sqlLadder'] !== entry) continue;
    const { text2sqlLadder: _moved, ...rest } = result.metadata;
    result.metadata = rest;
  }
}

/** Copies the rung verdicts into the row metadata and moves the ladder details there (see the module doc). */
export async function afterEach(context: { test?: unknown; result?: PromptfooRow }): Promise<{ test?: unknown; result?: PromptfooRow }> {
  try {
    const row = context.result;
    if (!row) return context;
    const { ladder, rungs, ladderEntry } = findLadderRecords(row);
    const added: Record<string, unknown> = {};
    if (ladder) {
      for (const rung of ladder.rungs) added[scoreNameOf(rung.rung)] = `${rung.status}: ${rung.reason}`;
      added[END_TO_END] = ladder.endToEnd === null ? 'unscored' : String(ladder.endToEnd);
      added['ladder_verdict'] = ladder.verdict;
      Object.assign(added, flatExecutionFacts(ladder.rungs.find((rung) => rung.rung === 'execution')));
      added['ladder'] = JSON.stringify(ladderEntry ?? ladder);
    }
    for (const rung of rungs) {
      const name = scoreNameOf(rung.rung);
      added[name] = `${rung.status}: ${rung.reason}`;
      if (rung.rung === 'execution') Object.assign(added, flatExecutionFacts(rung));
      added[`${name}_details`] = JSON.stringify(rung);
    }
    if (Object.keys(added).length > 0) row.metadata = { ...row.metadata, ...added };
    if (ladderEntry) dropLadderEntry(row, ladderEntry);
  } catch (error) {
    process.stderr.write(`text2sql-ladder afterEach: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  return context;
}

/**
 * L4's key facts as flat, readable row-metadata fields (the viewer's Metadata tab shows one line
 * each): `L4_snapshot` (first failing snapshot, or `all passed`), `L4_gold_index`,
 * `L4_first_difference` (`row 2, column 1: gold 415447.25 vs predicted 1040070.25`),
 * `L4_flags`, and `L4_policy` (the comparison policy once per row: preset and the options that
 * decide a match).
 */
export function flatExecutionFacts(execution: RungRecord | undefined): Record<string, string> {
  const details = execution?.details;
  if (!isObject(details)) return {};
  const facts: Record<string, string> = {};
  const snapshots = Array.isArray(details['snapshots']) ? (details['snapshots'] as unknown[]).filter(isObject) : [];
  const failing = typeof details['firstFailingSnapshot'] === 'string' ? details['firstFailingSnapshot'] : null;
  facts['L4_snapshot'] = failing ?? (snapshots.length > 0 ? `all ${snapshots.length} passed` : 'none ran');
  if (typeof details['goldIndex'] === 'number') facts['L4_gold_index'] = String(details['goldIndex']);
  const verdict = snapshots.find((snapshot) => snapshot['snapshot'] === failing)?.['verdict'];
  const difference = isObject(verdict) ? verdict['firstDifference'] : undefined;
  if (isObject(difference)) {
    const where = `row ${String(difference['goldRow'])}, column ${String(difference['goldColumn'])}`;
    facts['L4_first_difference'] = `${where}: gold ${formatCell(difference['gold'])} vs predicted ${difference['predicted'] === undefined ? '(no counterpart)' : formatCell(difference['predicted'])}`;
  }
  const flags = Array.isArray(details['flags']) ? (details['flags'] as unknown[]).map(String) : [];
  facts['L4_flags'] = flags.length > 0 ? flags.join(', ') : 'none';
  const policy = details['policy'];
  if (isObject(policy)) {
    const tolerance = isObject(policy['floatTolerance']) ? `${String(policy['floatTolerance']['kind'])} ${String(policy['floatTolerance']['value'])}` : 'off';
    facts['L4_policy'] = `${String(policy['preset'])}: row order ${String(policy['rowOrder'])}, column order ${String(policy['columnOrder'])}, duplicates ${String(policy['duplicates'])}, float tolerance ${tolerance}, extra columns ${policy['allowExtraColumns'] === true ? 'allowed' : 'not allowed'}`;
  }
  return facts;
}

/**
 * True when an execution rung's record says the item has no gold SQL at all (unscored with no gold
 * run), as opposed to golds that did not run on every snapshot. Read from the record, so a gold
 * given in the assertion's `config.gold_sql` counts as well as one in the test's vars.
 */
function hasNoGold(execution: RungRecord | undefined): boolean {
  if (execution?.status !== 'unscored') return false;
  const golds = (execution.details as { executedSql?: { golds?: unknown } } | null | undefined)?.executedSql?.golds;
  // Rows stored without L4's details (0.2.0's single-rung rows) still carry the rung's reason.
  return Array.isArray(golds) ? golds.length === 0 : execution.reason.startsWith('no gold SQL');
}

function behaviorOf(row: PromptfooRow): SummaryRecord['expectedBehavior'] {
  const value = row.testCase?.metadata?.['expected_behavior'] ?? varsOf(row)['expected_behavior'];
  return value === 'clarify' || value === 'refuse' ? value : 'answer';
}

/** Turns one promptfoo row into a summary record, or `undefined` when no ladder assertion graded it. */
export function toSummaryRecord(row: PromptfooRow): SummaryRecord | undefined {
  const provider = row.provider?.label || row.provider?.id || 'provider';
  const role = varsOf(row)['role'];
  const base = { provider, id: itemIdOf(row), tags: tagsOf(row), expectedBehavior: behaviorOf(row), ...(typeof role === 'string' && role !== '' ? { role } : {}) };
  const { ladder, rungs } = findLadderRecords(row);
  if (row.failureReason === 2) {
    return { ...base, verdict: 'error', executed: false, rungs: {}, goldError: false, emptyGoldMatch: false, error: rowErrorText(row) };
  }
  if (ladder) {
    return {
      ...base,
      ...(hasNoGold(ladder.rungs.find((rung) => rung.rung === 'execution')) ? { noGold: true } : {}),
      expectedBehavior: ladder.expectedBehavior,
      verdict: ladder.verdict,
      ...(ladder.endToEnd !== null ? { endToEnd: ladder.endToEnd } : {}),
      executed: ladder.executed,
      rungs: { ...ladder.statuses },
      goldError: ladder.goldError,
      emptyGoldMatch: ladder.emptyGoldMatch,
      ...(ladder.probes.checked > 0 ? { probes: ladder.probes } : {}),
      ...(ladder.judge !== undefined ? { judge: ladder.judge } : {}),
    };
  }
  if (rungs.length === 0) return undefined;
  const statuses: Record<string, RungStatus> = {};
  for (const rung of rungs) statuses[scoreNameOf(rung.rung)] = rung.status;
  const execution = rungs.find((rung) => rung.rung === 'execution');
  const facts = storedExecutionFacts(execution);
  const anyFail = rungs.some((rung) => rung.status === 'fail');
  const unscored = execution?.status === 'unscored' && !anyFail;
  return {
    ...base,
    ...(hasNoGold(execution) ? { noGold: true } : {}),
    verdict: anyFail ? 'fail' : unscored ? 'unscored' : 'pass',
    ...(unscored ? {} : { endToEnd: execution?.status === 'pass' && !anyFail ? 1 : 0 }),
    ...facts,
    rungs: statuses,
  };
}

/**
 * Builds one summary per column (provider × prompt) from promptfoo result rows, in column order.
 * A column is labelled by its provider, plus `[prompt label]` when that provider has several
 * prompts (a prompt A/B on one provider is two columns, never merged).
 * @param prompts - promptfoo's `prompts` (one per column); without it the rows' `promptIdx` decide.
 */
export function summarizeRows(rows: readonly PromptfooRow[], prompts?: AfterAllContext['prompts']): ProviderSummary[] {
  const columns = columnsOf(prompts, rows);
  const labelOf = new Map(columns.map((column) => [column.index, columnLabel(column, columns)]));
  const records: SummaryRecord[] = [];
  for (const row of [...rows].sort((a, b) => (a.promptIdx ?? 0) - (b.promptIdx ?? 0))) {
    const record = toSummaryRecord(row);
    if (!record) continue;
    const index = row.promptIdx ?? 0;
    const column = columns.find((entry) => entry.index === index);
    records.push({ ...record, provider: labelOf.get(index) ?? record.provider, prompt: column?.prompt ?? '', column: index });
  }
  return summarizeLadder(records);
}

/** What afterAll reads: promptfoo's rows, columns and config, and the suite's tests. */
export interface AfterAllContext extends Omit<PromptfooEvalContext, 'results'> {
  results?: PromptfooRow[];
  suite?: { tests?: unknown[]; scenarios?: unknown[] };
}

/** Errored rows listed by name in the incomplete-run message (the rest are counted). */
export const MAX_LISTED_ERRORED_ROWS = 10;

/**
 * The incomplete-run message for ERROR rows, or `undefined` when there is none:
 * `incomplete run: 2 errored rows (not graded, in no rate): baseline: orders-total: cannot open …; …`.
 */
export function erroredRowsMessage(summaries: readonly ProviderSummary[]): string | undefined {
  const rows = summaries.flatMap((summary) => summary.errored.map((row) => `${summary.provider}: ${row.id}: ${row.error}`));
  if (rows.length === 0) return undefined;
  const listed = rows.slice(0, MAX_LISTED_ERRORED_ROWS).join('; ');
  const more = rows.length > MAX_LISTED_ERRORED_ROWS ? `; … (+${rows.length - MAX_LISTED_ERRORED_ROWS} more)` : '';
  return `incomplete run: ${rows.length} errored row${rows.length === 1 ? '' : 's'} (not graded, in no rate): ${listed}${more}`;
}

/** True once this process has an `exit` listener that keeps {@link EXIT_INCOMPLETE}. */
let incompleteOnExit = false;

/**
 * Makes this process exit {@link EXIT_INCOMPLETE}: now, and, in promptfoo's command line, again at
 * exit, where it wins over promptfoo's pass-rate code (`PROMPTFOO_FAILED_TEST_EXIT_CODE`, default
 * 100), which promptfoo sets after the hooks ran. Another non-zero code (promptfoo's own error) is
 * kept. Under promptfoo's Node API the caller owns the process: only `process.exitCode` is set.
 */
function exitIncomplete(): void {
  process.exitCode = EXIT_INCOMPLETE;
  if (incompleteOnExit || !runsInPromptfooCli()) return;
  incompleteOnExit = true;
  const failedTestCode = Number(process.env['PROMPTFOO_FAILED_TEST_EXIT_CODE'] ?? 100);
  process.once('exit', () => {
    const code = process.exitCode;
    if (code === undefined || code === null || Number(code) === 0 || Number(code) === failedTestCode) process.exitCode = EXIT_INCOMPLETE;
  });
}

/**
 * Prints the summary, records each column's run identity in the eval's `config.metadata`
 * (src/report/promptfoo-run-identity.ts), writes the summary as JSON (each provider with its `runs`
 * identities) to `LADDER_SUMMARY_JSON` or beside promptfoo's `-o` output (src/promptfoo/summary-file.ts),
 * closes the shared engine. An incomplete run (ERROR rows, or rows that do not cover every test in
 * every column) is named on stderr and exits 3.
 */
export async function afterAll(context: AfterAllContext): Promise<void> {
  try {
    const tests = context.suite?.tests;
    const columns = context.prompts ?? [];
    const problems: string[] = [];
    // Scenarios multiply tests in ways the suite does not list: no check then.
    if (Array.isArray(tests) && columns.length > 0 && (context.suite?.scenarios ?? []).length === 0) {
      const check = checkRowCount({
        items: tests.length,
        columns: columnsOf(columns, context.results ?? []).map((column) => column.provider),
        rows: (context.results ?? []).map((row) => ({ item: row.testIdx ?? -1, column: row.promptIdx ?? -1 })),
      });
      if (!check.ok) problems.push(check.message);
    }
    const summaries = summarizeRows(context.results ?? [], context.prompts);
    if (summaries.length > 0) process.stdout.write(`\n${renderLadderSummary(summaries)}\n\n`);
    const errored = erroredRowsMessage(summaries);
    if (errored !== undefined) problems.push(errored);
    for (const problem of problems) process.stderr.write(`text2sql-ladder: ERROR: ${problem}\n`);
    if (problems.length > 0) exitIncomplete();
    const identities = await recordPromptfooRunIdentities(context, { resolveFixture: resolveFixtureOnce }).catch((error: unknown) => {
      process.stderr.write(`text2sql-ladder afterAll: run identity not recorded: ${error instanceof Error ? error.message : String(error)}\n`);
      return [];
    });
    const target = ladderSummaryFile();
    if (target !== undefined) {
      mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
      writeFileSync(target, `${JSON.stringify(withRunIdentities(summaries, identities), null, 2)}\n`);
    }
    await writeRunReviewQueue(context.results ?? [], context.prompts, identities).catch((error: unknown) => {
      process.stderr.write(`text2sql-ladder afterAll: review queue not written: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  } catch (error) {
    process.stderr.write(`text2sql-ladder afterAll: ${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    await closeSharedEngine();
  }
}
