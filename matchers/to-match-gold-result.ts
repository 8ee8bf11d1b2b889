/**
 * `toMatchGoldResult(goldOrGolds, { db | snapshots, policy?, timeoutMs?, semantic? })` — L4
 * execution accuracy: the received SQL returns the gold's result on every snapshot, for at least
 * one gold, under an explicit comparison policy. Runs the ladder's L4 (`runLadder` with
 * `only: ['execution']`, src/rungs/ladder.ts) on the matchers' shared engine, as the promptfoo
 * `execution` assertion does. With `semantic`, the ladder runs L4 and L5 (the distilled test suite,
 * then the counterexample search, after a passed L4), and a refutation prints the witness database
 * and both results as tables. The L5 code (and the yaml reader of an invariants manifest) is
 * imported only by a call that uses `semantic`.
 */
import type { MatcherState } from 'vitest';
import type { Verdict } from '../src/compare/compare-results.js';
import { PRESETS, resolvePolicy } from '../src/compare/policy.js';
import type { ComparisonPolicy, PolicyInput, PresetName } from '../src/compare/policy.js';
import { snapshotNameOf, type Snapshot } from '../src/fixtures/snapshot.js';
import type { Engine, EngineName } from '../src/engine/engine.js';
import type { LadderRuntime } from '../src/runtime/ladder-runtime.js';
import { DATABASE_NAMES } from '../src/sql/parse.js';
import { DATABASE_EXPECTED, resolveMatcherDatabase, type MatcherDatabase } from './database-ref.js';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import type { ExecutionDetails, SnapshotVerdict } from '../src/rungs/execution.js';
import { runLadder, type LadderResult } from '../src/rungs/ladder.js';
import { runJudgeStep, type JudgeStepResult } from '../src/judge/equivalence/judge-step.js';
import { judgeFromFunction, type EquivalenceJudge, type JudgeFunctionReply } from '../src/judge/equivalence/ask-judge.js';
import { readJudgeConfig } from '../src/judge/equivalence/judge-options.js';
import { createLadderRungs } from '../src/rungs/ladder-rungs.js';
import type { RungResult } from '../src/rungs/rung-result.js';
import { argumentTypeError, isPlainObject, matcherTypeError, rejectUnknownOptions } from './arguments.js';
import { matcherRuntime } from './matcher-engine.js';
import { formatCell, formatTable, toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';
import { oneLine } from '../src/format.js';
import type { FixtureInvariant } from '../src/fixtures/fixture-invariant.js';
import { readSemanticOptions, type SemanticOptions } from '../src/semantic/semantic-options.js';
import type { SemanticDetails } from '../src/rungs/semantic-details.js';
import type { renderWitness } from '../src/semantic/search/witness-format.js';

/** Options shared by both ways of naming the databases. */
interface GoldResultCommonOptions {
  /**
   * The comparison policy: a preset name (`default`, `spider`, `bird`), a partial policy on top of
   * a preset (`{ preset: 'spider', keepDistinct: true }`, `{ floatTolerance: { kind: 'absolute',
   * value: 0.01 } }`) or a resolved policy. Default: the `default` preset (rows as a multiset,
   * order from the gold's outermost ORDER BY with ties, column order ignored through one column
   * map, floats within relative 1e-6).
   */
  readonly policy?: PresetName | PolicyInput | ComparisonPolicy;
  /** Deadline per statement in milliseconds. Default: the engine's 10 000. */
  readonly timeoutMs?: number;
  /**
   * L5 after a passed L4: `true` (test suite and counterexample search with their default budgets)
   * or `{ suite?, search?, seed?, nulls?, emptyVsNullRow?, cacheDir?, invariants? }` — `suite` /
   * `search` are `false` or budgets (`{ maxDatabases, maxSeconds, patience }` /
   * `{ maxDatabases, maxSeconds, maxShrinkTrials }`), `invariants` the fixture's rules as a manifest
   * path (`fixtures/shop/fixture.yaml`) or a list. Default: off.
   */
  readonly semantic?: true | (Readonly<Record<string, unknown>> & { readonly invariants?: string | readonly FixtureInvariant[] });
  /**
   * The LLM equivalence judge where execution cannot settle the item (docs/judge.md):
   * `{ provider, question?, calibration?, thresholds?, share?, maxRows?, redactColumns?, trivialRows?, cache? }`,
   * `provider` an async function `(prompt) => string` or an `EquivalenceJudge`. Its verdict decides
   * the assertion only under a passing calibration record (default `judge-calibration.json`);
   * otherwise the message shows it as `uncalibrated`. Default: off.
   */
  readonly judge?: Readonly<Record<string, unknown>> & { readonly provider: unknown; readonly question?: string };
}

/**
 * Options of {@link toMatchGoldResult}: exactly one of `db` (one database file) or `snapshots`
 * (several database states; the gold must match on every one).
 */
export type GoldResultOptions = GoldResultCommonOptions &
  (
    | {
        /**
         * The database both queries run on (read only): a SQLite file path, a `postgres://` URL of a
         * database you loaded, or a fixture `{ fixture, fixturesDir?, snapshots? }` (every snapshot
         * it selects; a `dialect: postgres` fixture on PostgreSQL).
         */
        readonly db: MatcherDatabase;
        readonly snapshots?: never;
      }
    | {
        readonly db?: never;
        /** Database paths, or `{ name, path, checksum? }` snapshots; the name labels messages. */
        readonly snapshots: readonly (string | Snapshot)[];
      }
  );

const NAME = 'toMatchGoldResult';
const OPTION_NAMES = ['db', 'snapshots', 'policy', 'timeoutMs', 'semantic', 'judge'] as const;

/**
 * Asserts that the received SQL returns the same result as the gold SQL (or one of several golds)
 * on every snapshot. Asynchronous: `await` it (typescript-eslint's `no-floating-promises` catches
 * a missing `await`).
 *
 * An item whose golds cannot run everywhere (`gold_error`) or whose comparison could not be decided
 * (`undecided`) fails both the assertion and its negation, with the reason.
 *
 * @param received - the predicted SQL.
 * @param goldOrGolds - one gold SQL, or several (any one may match).
 * @param options - {@link GoldResultOptions}.
 * @returns vitest's matcher result; the failure message gives L4's reason and a table diff: the
 *   failing snapshot, the column map, missing and extra rows, the first differing cell, the policy
 *   and the verdict's flags.
 * @throws TypeError naming the argument for a non-string `received`, an empty or non-string gold,
 *   options without exactly one of `db` / `snapshots`, or a bad snapshot; LadderError
 *   `invalid_option` for an unknown option or a bad policy; LadderError `db_not_found` when a
 *   database file does not exist (never a gold error).
 * @example
 * await expect('SELECT name FROM customers ORDER BY name').toMatchGoldResult('SELECT name FROM customers', { db: 'db/shop.sqlite' });
 * await expect(sql).toMatchGoldResult([goldA, goldB], { snapshots: ['db/base.sqlite', 'db/edge.sqlite'], policy: 'spider' });
 */
export async function toMatchGoldResult(
  this: MatcherState,
  received: unknown,
  goldOrGolds: string | readonly string[],
  options: GoldResultOptions,
): Promise<MatcherOutcome> {
  // Validate arguments.
  if (typeof received !== 'string') throw argumentTypeError(toMatchGoldResult, NAME, 'received', 'a SQL string', received);
  const golds = readGolds(goldOrGolds);
  if (!isPlainObject(options)) {
    throw argumentTypeError(toMatchGoldResult, NAME, 'options', 'an options object { db | snapshots, policy?, timeoutMs? }', options);
  }
  const given: Record<string, unknown> = options;
  rejectUnknownOptions(toMatchGoldResult, NAME, 'options', given, OPTION_NAMES);
  const runtime = matcherRuntime();
  const target = await readTarget(given['db'], given['snapshots'], runtime);
  const snapshots = target.snapshots;
  const timeoutMs = given['timeoutMs'];
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw argumentTypeError(toMatchGoldResult, NAME, 'options.timeoutMs', 'a positive integer (ms)', timeoutMs);
  }
  // Interpret: resolve the policy (LadderError naming the option when it is bad).
  const policy = resolvePolicy(given['policy'] as PresetName | PolicyInput | ComparisonPolicy | undefined);
  const semantic = await readSemantic(given['semantic']);
  if (semantic !== undefined && target.dialect !== 'sqlite') {
    throw argumentTypeError(toMatchGoldResult, NAME, 'options.semantic', `absent for a ${DATABASE_NAMES[target.dialect]} database (L5 builds its test-suite databases as SQLite files)`, given['semantic']);
  }

  // L5's rung and its message's witness tables: imported only when L5 is on.
  const l5 = semantic === undefined ? undefined : await Promise.all([import('../src/semantic/semantic-rung.js'), import('../src/semantic/search/witness-format.js')]);
  const ladder = await runLadder(
    {
      sql: received,
      expectedBehavior: 'answer',
      golds,
      snapshots,
      dialect: target.dialect,
      engine: target.engine,
      comparisonPolicy: policy,
      // Gold results are shared across matcher calls only for snapshots with a checksum: a test may
      // rewrite a database file in place under the same path.
      executionCache: snapshots.every((snapshot) => snapshot.checksum !== undefined) ? runtime.goldCache : new GoldResultCache(),
      ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
      ...(semantic === undefined ? {} : { invariants: semantic.invariants }),
      only: semantic === undefined ? ['execution'] : ['execution', 'semantic'],
    },
    createLadderRungs(l5 === undefined || semantic === undefined ? {} : { semantic: l5[0].createSemanticRung(semantic.options, runtime.semantic()) }),
  );
  const executionResult = ladder.results.execution as RungResult<ExecutionDetails>;
  const judged = given['judge'] === undefined ? undefined : await judgeItem(given['judge'], ladder, golds, snapshots, target.engine);
  const result = judged === undefined ? executionResult : withJudge(executionResult, judged);

  // The message shows column names, which L4's details carry beside the positions.
  const names = columnNames(result);
  const l5Result = ladder.results.semantic;
  if (l5 !== undefined && l5Result !== undefined && executionResult.status === 'pass') {
    return toMatcherResult(this, {
      matcherName: NAME,
      receivedLabel: 'sql',
      expectedLabel: 'gold',
      expectation: `return the result of ${golds.length === 1 ? 'the gold SQL' : `one of ${golds.length} gold queries`} on every snapshot, on its test suite and on every database the counterexample search draws`,
      received,
      result: judged === undefined ? l5Result : withJudge(l5Result, judged),
      sections: [...formatSemantic(l5Result.details, golds, l5[1].renderWitness), ...judgeSections(judged)],
    });
  }
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'sql',
    expectedLabel: 'gold',
    expectation: `return the result of ${golds.length === 1 ? 'the gold SQL' : `one of ${golds.length} gold queries`} on ${
      snapshots.length === 1 ? `snapshot ${snapshots[0]!.name}` : `every snapshot (${snapshots.map((s) => s.name).join(', ')})`
    }`,
    received,
    result,
    sections: [...formatExecution(executionResult, golds, snapshots.length, names), ...judgeSections(judged)],
  });
}

/** The judge step on the matcher's item (`options.judge`), or `undefined` when it has nothing to judge. */
async function judgeItem(value: unknown, ladder: LadderResult, golds: readonly string[], snapshots: readonly Snapshot[], engine: Engine): Promise<JudgeStepResult | undefined> {
  if (!isPlainObject(value)) throw argumentTypeError(toMatchGoldResult, NAME, 'options.judge', '{ provider, question?, calibration?, share?, … }', value);
  const { question, ...rest } = value;
  if (question !== undefined && typeof question !== 'string') throw argumentTypeError(toMatchGoldResult, NAME, 'options.judge.question', 'a string', question);
  const config = readJudgeConfig(rest, 'options.judge.');
  if (config === undefined) return undefined;
  const provider = config.provider;
  const judge: EquivalenceJudge | undefined =
    typeof provider === 'function'
      ? judgeFromFunction(provider as (prompt: string) => Promise<JudgeFunctionReply>, { id: provider.name !== '' ? `function:${provider.name}` : 'function', ...(config.model !== undefined ? { model: config.model } : {}) })
      : typeof provider === 'object' && provider !== null
        ? (provider as EquivalenceJudge)
        : undefined;
  if (judge === undefined || typeof judge.call !== 'function') throw argumentTypeError(toMatchGoldResult, NAME, 'options.judge.provider', 'an async function (prompt) => string, or an EquivalenceJudge (judgeFromFunction)', provider);
  return runJudgeStep(
    { ladder, question: question ?? '', golds, snapshots, engine },
    {
      judge,
      calibration: config.calibration,
      thresholds: config.thresholds,
      ...(config.share !== undefined ? { share: config.share } : {}),
      ...(config.maxRows !== undefined ? { maxRows: config.maxRows } : {}),
      ...(config.redactColumns !== undefined ? { redactColumns: config.redactColumns } : {}),
      ...(config.trivialRows !== undefined ? { trivialRows: config.trivialRows } : {}),
      ...(config.cache !== undefined ? { cache: config.cache } : {}),
    },
  );
}

/** A rung's result under the judge: a counted verdict decides pass or fail; the judge's line joins the reason. */
function withJudge<T>(result: RungResult<T>, judged: JudgeStepResult | undefined): RungResult<T> {
  if (judged === undefined) return result;
  const counted = judged.record.calibrated === true && judged.record.asked === true && judged.record.score !== null;
  const status = counted ? (judged.endToEnd === 1 ? 'pass' : 'fail') : result.status;
  return { ...result, status, score: status === 'pass' ? 1 : status === 'fail' ? 0 : result.score, reason: judged.record.asked === true ? `${result.reason}; judge: ${judged.record.reason}` : result.reason };
}

function judgeSections(judged: JudgeStepResult | undefined): string[] {
  if (judged === undefined) return [];
  const record = judged.record;
  const lines = [`Judge (${record.judge}, ${record.promptVersion}): ${record.reason}`];
  if (record.differences !== undefined && record.differences.length > 0) lines.push(...record.differences.map((difference) => `  - ${oneLine(difference)}`));
  if (record.calibrated !== true && record.asked === true) lines.push(`  ${record.calibration ?? 'no calibration record'}`);
  return [lines.join('\n')];
}

/** The `semantic` option: L5's options and the invariants (a manifest path is read here). */
async function readSemantic(value: unknown): Promise<{ options: SemanticOptions; invariants: readonly FixtureInvariant[] } | undefined> {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { options: readSemanticOptions(true), invariants: [] };
  if (!isPlainObject(value)) throw argumentTypeError(toMatchGoldResult, NAME, 'options.semantic', 'true or { suite?, search?, seed?, nulls?, emptyVsNullRow?, cacheDir?, invariants? }', value);
  const { invariants: declared, ...rest } = value;
  const options = readSemanticOptions(rest, { name: 'options.semantic' });
  if (declared === undefined) return { options, invariants: [] };
  if ((typeof declared === 'string' && declared !== '') || Array.isArray(declared)) {
    const { readFixtureInvariants, validateInvariantShape } = await import('../src/semantic/model/invariants.js');
    return { options, invariants: typeof declared === 'string' ? readFixtureInvariants(declared) : declared.map((entry: unknown, index) => validateInvariantShape(entry, { prefix: `options.semantic.invariants[${index}].` })) };
  }
  throw argumentTypeError(toMatchGoldResult, NAME, 'options.semantic.invariants', 'a manifest path or a list of invariants', declared);
}

/** L5's message sections: the suite database that differs, gold ambiguity, the witness as tables. */
function formatSemantic(details: SemanticDetails | null, golds: readonly string[], render: typeof renderWitness): string[] {
  if (details === null) return [];
  const sections: string[] = [];
  const goldLines = golds.map((gold, index) => `${golds.length > 1 ? `  gold ${index}: ` : '  '}${oneLine(gold)}`);
  sections.push(`Gold${golds.length > 1 ? 's' : ''}:\n${goldLines.join('\n')}`);
  if (details.suite !== null) sections.push(`Test suite (${details.suite.databases} databases, ${details.suite.generated} generated): ${details.suite.status === 'pass' ? 'matches on every database' : details.suite.reason}${details.suite.failing !== null ? `\n  database file: ${details.suite.failing.path}` : ''}`);
  for (const d of details.goldAmbiguity) sections.push(`Gold ambiguity: golds ${d.goldA} and ${d.goldB} disagree on ${d.database}: ${d.reason}`);
  if (details.search !== null) {
    if (details.search.witnesses.length === 0) sections.push(`Counterexample search: ${details.search.reason}`);
    for (const witness of details.search.witnesses) sections.push(render(witness, golds.length), `Replay (SQL):\n${witness.inserts.map((line) => `  ${line}`).join('\n')}`);
  }
  return sections;
}

function readGolds(value: unknown): string[] {
  const expected = 'a gold SQL string or a non-empty array of them';
  if (typeof value === 'string') {
    if (value.trim() === '') throw argumentTypeError(toMatchGoldResult, NAME, 'goldOrGolds', expected, value);
    return [value];
  }
  if (!Array.isArray(value) || value.length === 0) throw argumentTypeError(toMatchGoldResult, NAME, 'goldOrGolds', expected, value);
  value.forEach((gold: unknown, index) => {
    if (typeof gold !== 'string' || gold.trim() === '') {
      throw argumentTypeError(toMatchGoldResult, NAME, `goldOrGolds[${index}]`, 'a non-empty SQL string', gold);
    }
  });
  return [...(value as string[])];
}

/**
 * The databases both queries run on: `db` (a SQLite path, a postgres:// URL or a fixture:
 * database-ref.ts) or `snapshots` (SQLite paths), with their engine and dialect.
 */
async function readTarget(db: unknown, list: unknown, runtime: LadderRuntime): Promise<{ engine: Engine; dialect: EngineName; snapshots: readonly Snapshot[] }> {
  if (db !== undefined && list !== undefined) {
    throw matcherTypeError(toMatchGoldResult, `${NAME}: options must give exactly one of db and snapshots; received both`);
  }
  if (db !== undefined) {
    if (typeof db === 'string' && db === '') throw argumentTypeError(toMatchGoldResult, NAME, 'options.db', DATABASE_EXPECTED, db);
    return resolveMatcherDatabase(toMatchGoldResult, NAME, 'options.db', db, runtime);
  }
  return { engine: runtime.engine(), dialect: 'sqlite', snapshots: readSnapshots(list) };
}

function readSnapshots(list: unknown): Snapshot[] {
  if (list === undefined) {
    throw matcherTypeError(toMatchGoldResult, `${NAME}: options must give one of db (a path, a postgres:// URL or a fixture) and snapshots (paths); received neither`);
  }
  if (!Array.isArray(list) || list.length === 0) {
    throw argumentTypeError(toMatchGoldResult, NAME, 'options.snapshots', 'a non-empty array of paths or { name, path } snapshots', list);
  }
  const snapshots = list.map((entry: unknown, index): Snapshot => {
    if (typeof entry === 'string' && entry !== '') return { name: snapshotNameOf(entry), path: entry };
    if (isPlainObject(entry) && typeof entry['name'] === 'string' && typeof entry['path'] === 'string' && entry['path'] !== '') {
      const checksum = entry['checksum'];
      if (checksum !== undefined && typeof checksum !== 'string') {
        throw argumentTypeError(toMatchGoldResult, NAME, `options.snapshots[${index}].checksum`, 'a string', checksum);
      }
      return { name: entry['name'], path: entry['path'], ...(checksum === undefined ? {} : { checksum }) };
    }
    throw argumentTypeError(toMatchGoldResult, NAME, `options.snapshots[${index}]`, 'a path or a { name, path, checksum? } snapshot', entry);
  });
  // Names label messages: when two files share a name, label them by path.
  const names = snapshots.map((s) => s.name);
  return snapshots.map((s) => (names.indexOf(s.name) === names.lastIndexOf(s.name) ? s : { ...s, name: s.path }));
}

/** Column names of the gold and the prediction on the snapshot the message shows. */
interface ColumnNames {
  readonly gold: readonly string[];
  readonly predicted: readonly string[];
}

/** The column names L4 recorded for the snapshot the message shows (none when it was not compared). */
function columnNames(result: RungResult<ExecutionDetails>): ColumnNames | undefined {
  return shownSnapshot(result.details)?.columns;
}

/** The snapshot a message explains: the first failing one, else the first. */
function shownSnapshot(details: ExecutionDetails): SnapshotVerdict | undefined {
  return details.snapshots.find((s) => s.snapshot === details.firstFailingSnapshot) ?? details.snapshots[0];
}

function formatExecution(
  result: RungResult<ExecutionDetails>,
  golds: readonly string[],
  snapshotCount: number,
  names: ColumnNames | undefined,
): string[] {
  const details = result.details;
  const sections: string[] = [];
  // Which gold, and the per-snapshot outcomes.
  const goldLines = golds.map((gold, index) => {
    const marker = golds.length > 1 && index === details.goldIndex ? ' (reported)' : '';
    return `${golds.length > 1 ? `  gold ${index}${marker}: ` : '  '}${oneLine(gold)}`;
  });
  sections.push(`Gold${golds.length > 1 ? 's' : ''}:\n${goldLines.join('\n')}`);
  if (snapshotCount > 1 && details.snapshots.length > 0) {
    const lines = details.snapshots.map((s) => `  ${s.snapshot}: ${snapshotOutcome(s)}${s.snapshot === details.firstFailingSnapshot ? '  ← first failing' : ''}`);
    sections.push(`Snapshots${details.goldIndex !== null && golds.length > 1 ? ` (gold ${details.goldIndex})` : ''}:\n${lines.join('\n')}`);
  }
  for (const goldError of details.goldErrors) {
    const which = golds.length === 1 ? 'The gold' : `Gold ${goldError.goldIndex}`;
    sections.push(`${which} failed on ${goldError.snapshot} (${goldError.error.code}): ${goldError.error.message}`);
  }
  const shown = shownSnapshot(details);
  if (shown?.verdict !== undefined) sections.push(formatVerdictDiff(shown.snapshot, shown.verdict, names));
  else if (shown?.predictedError !== undefined) {
    sections.push(`Prediction failed on ${shown.snapshot} (${shown.predictedError.code}): ${shown.predictedError.message}`);
  }
  sections.push(`Policy: ${describePolicy(details.policy)}`);
  if (details.flags.length > 0) sections.push(`Flags: ${details.flags.join(', ')}`);
  return sections;
}

function snapshotOutcome(s: SnapshotVerdict): string {
  if (s.predictedError !== undefined) return `prediction failed (${s.predictedError.code}): ${s.predictedError.message}`;
  if (s.verdict === undefined) return 'not compared';
  return s.verdict.match === true ? 'matches' : s.verdict.reason;
}

/** The table diff of one verdict: column map, missing rows, extra rows, first differing cell. */
function formatVerdictDiff(snapshot: string, verdict: Verdict, names: ColumnNames | undefined): string {
  const goldName = (index: number): string => names?.gold[index] ?? `#${index + 1}`;
  const predName = (index: number): string => names?.predicted[index] ?? `#${index + 1}`;
  const lines = [`Snapshot ${snapshot}: ${verdict.match === true ? 'matches' : verdict.reason}`];
  if (verdict.columnMap !== null) {
    const pairs = verdict.columnMap.map((p, g) => `${goldName(g)} → ${predName(p)}`);
    lines.push(`Column map (gold → prediction): ${pairs.join(', ')}`);
  } else {
    lines.push('Column map (gold → prediction): none makes the results equal');
  }
  const goldColumns = names?.gold ?? columnsFor(verdict.missingRows.rows);
  const predColumns = names?.predicted ?? columnsFor(verdict.extraRows.rows);
  if (verdict.missingRows.count > 0) {
    lines.push(`Missing rows (in the gold result, not in the prediction): ${sampleCount(verdict.missingRows)}`);
    lines.push(formatTable(goldColumns, verdict.missingRows.rows));
  }
  if (verdict.extraRows.count > 0) {
    lines.push(`Extra rows (in the prediction, not in the gold result): ${sampleCount(verdict.extraRows)}`);
    lines.push(formatTable(predColumns, verdict.extraRows.rows));
  }
  const first = verdict.firstDifference;
  if (first !== null) {
    // predictedRow -1: every predicted row matched another gold row (or there is none), so the
    // gold row has no counterpart; predictedColumn -1: the gold column has none.
    const predicted =
      first.predictedRow < 0
        ? 'no prediction row left to compare it with (the prediction lacks this row)'
        : first.predictedColumn < 0 || first.predicted === undefined
          ? `prediction row ${first.predictedRow} has no column mapped to it`
          : `prediction row ${first.predictedRow}, column ${predName(first.predictedColumn)} = ${formatCell(first.predicted)}`;
    lines.push(
      // Rows counted from 0, as in the comparison's reasons (`row order differs at row 0`).
      `First differing cell (rows from 0): gold row ${first.goldRow}, column ${goldName(first.goldColumn)} = ${formatCell(first.gold)}; ${predicted}`,
    );
  }
  return lines.join('\n');
}

function columnsFor(rows: readonly (readonly unknown[])[]): string[] {
  const width = rows[0]?.length ?? 0;
  return Array.from({ length: width }, (_, index) => `#${index + 1}`);
}

function sampleCount(sample: { readonly count: number; readonly rows: readonly unknown[] }): string {
  return sample.rows.length < sample.count ? `${sample.count} (first ${sample.rows.length} shown)` : String(sample.count);
}

/** One line of policy: `default — rows as a multiset, order from the gold's outer ORDER BY (ties free), …`. */
function describePolicy(policy: ComparisonPolicy): string {
  const order =
    policy.rowOrder === 'ignore'
      ? 'row order ignored'
      : `order from ${policy.rowOrder === 'gold-order-by' ? "the gold's outer ORDER BY" : '"order by" anywhere in the gold text'}${policy.tieAware ? ' (ties in any order)' : ''}`;
  const { kind, value } = policy.floatTolerance;
  const tolerance = value === 0 ? 'floats exact' : `floats within ${kind} ${value < 0.001 ? value.toExponential() : String(value)}`;
  const parts = [
    `rows as a ${policy.duplicates}`,
    order,
    policy.columnOrder === 'ignore' ? 'column order ignored (one column map)' : 'column order significant',
    policy.matchColumnNames ? 'column names must match' : 'column names ignored',
    ...(policy.allowExtraColumns ? ['extra columns allowed'] : []),
    tolerance,
    ...(policy.coerceNumericStrings ? ["numeric text equals numbers"] : []),
  ];
  const overridden = PRESETS[policy.preset] === policy ? '' : ' with overrides';
  return `${policy.preset} preset${overridden} — ${parts.join(', ')}`;
}

