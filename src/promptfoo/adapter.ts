/**
 * The one place where a {@link RungResult} becomes a promptfoo GradingResult.
 *
 * ## How to write an assertion file (assertions/<rung-id>.ts)
 * 1. **Named exports only.** promptfoo loads `file://assertions/x.ts:name` as
 *    `mod.default || mod`, so a default export next to named ones breaks every `:name` reference.
 *    Export one function per assertion, named after the rung id (`export async function exactMatch`),
 *    and add it to `assertions/index.ts` so that `package:text2sql-ladder:assertions.<name>` works.
 * 2. **Signature** `(output: unknown, context: AssertionContext) => Promise<GradingResult>`.
 *    Read options from `context.config` and inputs from `context.vars` (dataset fields such as
 *    `gold_sql`, `db`, `snapshots`) — never cast before checking.
 * 3. **Misuse and infrastructure faults throw, model output never does.** Validate `context.config` first with the typed
 *    readers of `src/options.ts` (`configReader` in src/promptfoo/config.ts); they throw a
 *    {@link LadderError} naming the option, what was expected and what was received, and the guard
 *    adds the assertion file (`assertions/x.ts`); promptfoo turns a throw from a
 *    `file://`/`package:` assertion into an ERROR row, which is right for a broken config.
 *    Then run the rung inside {@link guardAssertion}: anything the model's output provokes becomes a
 *    failing GradingResult (`pass: false`, one-line reason), never an errored row. A database that
 *    cannot be used or an engine that cannot run (`INFRASTRUCTURE_CODES`) is rethrown like misuse:
 *    an ERROR row, never charged to the model. The guard tells them apart by the error's code only
 *    (`MISUSE_CODES`, `INFRASTRUCTURE_CODES` in src/errors.ts).
 * 4. **Return** `toGradingResult(rungResult, { assertionValue: 'assertions/x.ts:name' })`. It sets
 *    `namedScores` under the rung's score name (table in src/rungs/scores.ts), one
 *    `componentResults` entry with its own `assertion` (promptfoo ignores nested namedScores and lets
 *    children without `assertion` inherit the parent's metric), and the full result in `metadata`.
 *
 * ## Mapping
 * | RungResult.status | pass  | score         | namedScores                          |
 * |-------------------|-------|---------------|--------------------------------------|
 * | `pass`            | true  | result.score  | `{ <score name>: score, ...extra }`  |
 * | `fail`            | false | result.score  | `{ <score name>: score, ...extra }`  |
 * | `skipped`         | true  | 0             | none (the rung is left out)          |
 * | `unscored`        | false | 0             | none (counted apart by the summary)  |
 *
 * promptfoo has no "not counted" verdict. A skipped rung must not fail the row for something it
 * did not judge, and must not add a 1 to any metric either; this mirrors promptfoo's own
 * `weight: 0` convention (always passes, contributes 0). An unscored rung (no gold SQL, no gold
 * that runs on every snapshot) judged nothing either, but a green PASS would tell a person looking
 * at the viewer that the item was checked: its row fails with the reason `unscored: …`, and it
 * still adds nothing to any metric, so every rate the ladder reports keeps it unscored, never 0
 * (docs/reading-results.md, "Items without gold"). The reason starts with `skipped:` / `unscored:`
 * and `metadata.text2sqlLadder.status` carries the status, which the ladder summary (src/report)
 * reads — it never reads promptfoo's pass counts.
 */
import { LadderError, isInfrastructureError, isLadderError, isMisuseError } from '../errors.js';
import { scoreNameOf } from '../rungs/scores.js';
import { toRungRecord } from '../report/ladder-record.js';
import type { RungId, RungResult, RungStatus } from '../rungs/rung-result.js';
import { oneLine } from '../format.js';

export { oneLine } from '../format.js';

/**
 * The slice of promptfoo's GradingResult this package produces (promptfoo 0.121 `isGradingResult`
 * requires `pass`, `score` and `reason`). Declared here so that the package's types do not depend
 * on promptfoo, which is an optional peer.
 */
export interface GradingResult {
  pass: boolean;
  score: number;
  /** One line. */
  reason: string;
  /** Added to the row's named metrics (only top-level namedScores count in promptfoo). */
  namedScores?: Record<string, number>;
  /** Sub-results, shown as a tree in the viewer's Evaluation tab. */
  componentResults?: GradingResult[];
  /** The assertion a component result stands for; every child gets its own. */
  assertion?: { type: string; value?: string; metric?: string } | null;
  /** Kept verbatim in the results; `graderOutputs` string entries show in the Evaluation tab. */
  metadata?: Record<string, unknown>;
}

/** The slice of promptfoo's assertion context (2nd argument of a `javascript` assertion) we read. */
export interface AssertionContext {
  /** The test vars (dataset fields). */
  readonly vars?: Record<string, unknown>;
  /** The whole test case; `test.metadata` holds the loader's `id`, `source` (file:line), tags. */
  readonly test?: { readonly description?: string; readonly metadata?: Record<string, unknown>; readonly vars?: Record<string, unknown> };
  /** The assertion's `config` block (present only when the assertion has one). */
  readonly config?: Record<string, unknown>;
  /** The rendered prompt. */
  readonly prompt?: string;
  /** The provider instance. */
  readonly provider?: { id?: () => string; label?: string };
  /** The provider's full response. */
  readonly providerResponse?: { output?: unknown; metadata?: Record<string, unknown> };
}

/** A promptfoo `javascript` assertion function as this package exports them. */
export type AssertionFunction = (output: unknown, context: AssertionContext) => Promise<GradingResult>;

/** Options of {@link toGradingResult}. */
export interface ToGradingResultOptions {
  /**
   * The `assertion.value` of the component result, e.g. `assertions/schema.ts:schema`. Default:
   * `text2sql-ladder:<score name>`.
   */
  readonly assertionValue?: string;
  /**
   * Named-score key for the rung's own score. Default: its score name in the score table
   * (src/rungs/scores.ts: `L1_syntax` … for ladder rungs, the rung id for diagnostics).
   */
  readonly scoreName?: string;
  /** Extra entries merged into `metadata` (not into `metadata.text2sqlLadder`). */
  readonly metadata?: Record<string, unknown>;
}

/** True when a status counts as a verdict (pass or fail), false for skipped / unscored. */
export function isScoredStatus(status: RungStatus): boolean {
  return status === 'pass' || status === 'fail';
}

/** The reason as shown: skipped / unscored results are prefixed with their status. */
export function displayReason(result: Pick<RungResult, 'status' | 'reason'>): string {
  const line = oneLine(result.reason);
  if (result.status === 'skipped' || result.status === 'unscored') {
    return line.startsWith(`${result.status}:`) ? line : `${result.status}: ${line}`;
  }
  return line;
}

/**
 * Translates one rung's result into a promptfoo GradingResult (mapping table in the module doc).
 *
 * @returns `{ pass, score, reason, namedScores?, componentResults: [one child with its own
 *   assertion], metadata: { text2sqlLadder: RungRecord, graderOutputs } }` (the record: src/report/ladder-record.ts).
 * @example
 * toGradingResult(createRungResult({ rung: 'schema', status: 'fail', reason: 'no such column: APG', details: null }))
 * // { pass: false, score: 0, reason: 'no such column: APG', namedScores: { L2_schema: 0 }, ... }
 */
export function toGradingResult(result: RungResult, options: ToGradingResultOptions = {}): GradingResult {
  const scoreName = options.scoreName ?? scoreNameOf(result.rung);
  const scored = isScoredStatus(result.status);
  const pass = result.status === 'pass' || result.status === 'skipped';
  const score = scored ? result.score : 0;
  const reason = displayReason(result);
  const namedScores = scored ? { [scoreName]: result.score, ...finiteScores(result.namedScores) } : undefined;
  const child: GradingResult = {
    pass,
    score,
    reason,
    assertion: { type: 'javascript', value: options.assertionValue ?? `text2sql-ladder:${scoreName}` },
  };
  return {
    pass,
    score,
    reason,
    ...(namedScores ? { namedScores } : {}),
    componentResults: [child],
    metadata: {
      ...options.metadata,
      text2sqlLadder: toRungRecord(result),
      graderOutputs: { [scoreName]: `${result.status}: ${oneLine(result.reason)}` },
    },
  };
}

/** A failing GradingResult for a problem in the model's output that no rung reported. */
export function failingResult(reason: string, metadata?: Record<string, unknown>): GradingResult {
  return { pass: false, score: 0, reason: oneLine(reason), ...(metadata ? { metadata } : {}) };
}

/**
 * True when `error` is misuse that must surface as an ERROR row (see the module doc): a
 * LadderError whose code is one of `MISUSE_CODES` (src/errors.ts). Decided by the code only.
 */
export function isMisuse(error: unknown): boolean {
  return isMisuseError(error);
}

/**
 * Runs an assertion body: misuse ({@link isMisuse}) and infrastructure faults (a database that
 * cannot be used, an engine that cannot run — an unreachable PostgreSQL server, one that cannot
 * start: `isInfrastructureError`) are rethrown with the assertion file named, so promptfoo reports an ERROR row, which the ladder summary counts in
 * `errored rows` and never grades; any other throw becomes a failing GradingResult whose reason
 * starts with `<file>: internal error:`. Use it around everything that touches model output.
 *
 * @param file - the assertion's file and export, e.g. `assertions/ladder.ts:ladder`.
 */
export async function guardAssertion(file: string, body: () => Promise<GradingResult>): Promise<GradingResult> {
  try {
    return await body();
  } catch (error) {
    // Misuse, and infrastructure faults (a database that cannot be used, no PostgreSQL server
    // reachable, a private server that cannot start): an ERROR row naming the cause, never a
    // verdict on the model.
    if (isMisuse(error) || isInfrastructureError(error)) throw withFile(file, error as Error);
    const message = error instanceof Error ? error.message : String(error);
    return failingResult(`${file}: internal error: ${message}`, { error: message });
  }
}

/** Adds `(in <file>)` to a misuse error's message once, keeping its class and code. */
export function withFile(file: string, error: Error): Error {
  if (error.message.includes(`(in ${file})`)) return error;
  const message = `${error.message} (in ${file})`;
  if (isLadderError(error)) return new LadderError(error.code, message, { cause: error });
  const copy = new (error.constructor as new (m: string, o?: { cause?: unknown }) => Error)(message, { cause: error });
  return copy;
}

function finiteScores(scores: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(scores)) if (Number.isFinite(value)) out[key] = value;
  return out;
}
