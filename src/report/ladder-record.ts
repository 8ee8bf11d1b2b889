/**
 * The stored ladder record: what a graded item keeps of its ladder run, in a result file (a
 * promptfoo row's `metadata.text2sqlLadder`, or `metadata.ladder` once the `afterEach` hook has
 * moved it), and the one place that writes it ({@link toLadderRecord}, {@link toRungRecord}),
 * checks it ({@link readLadderRecord}, {@link readRungRecord}) and finds it in a row
 * ({@link findLadderRecords}). The promptfoo adapter writes it; the summary, `compare`, `audit`
 * and the hooks read it.
 *
 * Versions: {@link LADDER_RECORD_VERSION} is written in `version`. Records written by
 * text2sql-ladder 0.2.0 have no `version`; they hold the same fields and are read as they are, so
 * `compare` baselines recorded then keep working. A record of a later version is read for the
 * fields this one knows; the optional fields below are where the next ones go, and a reader that
 * does not know a field leaves it alone.
 */
import type { LadderResult } from '../rungs/ladder.js';
import type { ExecutionFacts } from '../rungs/ladder-rungs.js';
import type { RungId, RungIssue, RungResult, RungStatus } from '../rungs/rung-result.js';
import { scoreNameOf } from '../rungs/scores.js';
import { isObject } from '../objects.js';
import { isTypedCell } from '../engine/cells.js';

/** The version {@link toLadderRecord} writes (0.2.0's records have none and read as version 1). */
export const LADDER_RECORD_VERSION = 1;

/** One rung's stored result (`kind: 'rung'`; also a single-rung assertion's whole record). */
export interface RungRecord {
  readonly kind: 'rung';
  /** The rung id (a ladder rung or a diagnostic; a later version may store others). */
  readonly rung: RungId | (string & {});
  readonly status: RungStatus;
  readonly score: number;
  readonly reason: string;
  readonly issues: readonly RungIssue[];
  /** The rung's details, JSON-safe (L4's predicted rows counted, not kept). */
  readonly details: unknown;
  /** L5: which step rejected the prediction (`suite`, `search`, …), when it failed. */
  readonly rejectedBy?: string;
}

/**
 * The practical verdict of one item in the flowchart of *Text-to-SQL Evals* §6 (execution first,
 * an LLM equivalence judge only where execution cannot settle it):
 * - `invalid` — FAIL: the prediction does not parse, names what the schema lacks, or is unsafe;
 * - `pass` — PASS: results match a gold on every snapshot (and the gold result is not trivially
 *   small), or the judge calls a match on a trivially small gold result equivalent;
 * - `lucky_match` — FAIL: results match only on trivially small data and the judge (or a verified
 *   L5 witness) says the queries differ;
 * - `wrong_result` — FAIL: results differ and the judge (or a witness) says the queries differ;
 * - `review` — human review: results differ but the judge calls the queries equivalent (possibly
 *   a new valid gold); not a pass until a person accepts it.
 */
export type JudgeOutcome = 'invalid' | 'pass' | 'lucky_match' | 'wrong_result' | 'review';

/**
 * What an item's judge step shows: a flowchart outcome when it counts, `uncalibrated` when the
 * judge answered but no passing calibration record exists for it (the verdict moves no score), or
 * `judge_error` when the judge gave no readable answer after one retry.
 */
export type JudgeState = JudgeOutcome | 'uncalibrated' | 'judge_error';

/**
 * Why the judge was asked (`possible_lucky_match`: a match on an empty or trivially small gold
 * result; `ex_failure`: results differ, possibly a valid alternative; `no_database`: nothing
 * executed), or `settled` when execution decided and the judge was not asked.
 */
export type JudgeRoute = 'possible_lucky_match' | 'ex_failure' | 'no_database' | 'settled';

/**
 * A judge's verdict on the item, kept beside the rungs (an LLM judge that a front end ran). The
 * first four fields are every judge's; the equivalence judge (`task: 'equivalence'`) adds the rest.
 * Records without a judge, and judge records without the optional fields, read as before.
 */
export interface JudgeRecord {
  /** Who judged (a provider id). */
  readonly judge: string;
  /** `pass` for the outcome `pass`, `unreadable` for `judge_error`, `fail` otherwise (`review` is not a pass). */
  readonly verdict: 'pass' | 'fail' | 'unreadable';
  /** In [0, 1]: the item's `end_to_end` under the judge; `null` when the verdict counts for nothing (uncalibrated, an error). */
  readonly score: number | null;
  readonly reason: string;
  /** The judge's task: `equivalence` for the SQL equivalence judge. */
  readonly task?: 'equivalence' | (string & {});
  /** What is shown for the item (see {@link JudgeState}). */
  readonly state?: JudgeState;
  /** The flowchart outcome the item would have under the judge (also for an uncalibrated judge); `null` on `judge_error`. */
  readonly outcome?: JudgeOutcome | null;
  readonly route?: JudgeRoute;
  /** Whether the judge was called for this item (false when execution settled it). */
  readonly asked?: boolean;
  readonly model?: string;
  readonly promptVersion?: string;
  /** sha256 (hex) of the prompt template. */
  readonly promptHash?: string;
  /** The differences the judge listed, in its order. */
  readonly differences?: readonly string[];
  /** The judge's answer; `null` when not asked or unreadable. */
  readonly equivalent?: boolean | null;
  /** A verified L5 witness contradicted the judge's "equivalent": the outcome is a FAIL and the disagreement counts against the judge. */
  readonly witnessOverruled?: boolean;
  /** Whether a passing calibration record exists for this exact judge (provider, model, prompt hash). */
  readonly calibrated?: boolean;
  /** The calibration record file that made it count, or why none did. */
  readonly calibration?: string;
  /** Calls made for this item (0, 1, or 2 with the retry), whether the answer came from the cache, tokens spent. */
  readonly calls?: number;
  readonly cached?: boolean;
  readonly tokens?: number;
  /** Why the judge gave no readable answer (on `judge_error`). */
  readonly error?: string;
}

/** The stored ladder record of one item (`kind: 'ladder'`). */
export interface LadderRecord extends ExecutionFacts {
  readonly kind: 'ladder';
  /** {@link LADDER_RECORD_VERSION} when written; absent in records written by 0.2.0. */
  readonly version?: number;
  readonly id: string;
  readonly verdict: LadderResult['verdict'];
  /** `null` when unscored. */
  readonly endToEnd: number | null;
  readonly expectedBehavior: LadderResult['expectedBehavior'];
  /** How the output was read: `sql`, `declined:<action>` or `missing`. */
  readonly output: string;
  readonly reason: string;
  /** Snapshot names the item ran on. */
  readonly snapshots: readonly string[];
  /** Every ladder rung in order, skipped ones included. */
  readonly rungs: readonly RungRecord[];
  /** Score name (`L1_syntax` …) → status, for quick reading (switched-on rungs the item never listed: `skipped`). */
  readonly statuses: Readonly<Record<string, RungStatus>>;
  /** Probe queries the output reported: how many L3 checked, how many it refused (failed). */
  readonly probes: { readonly checked: number; readonly refused: number };
  /** The item's role (its snapshots are that role's view), when it has one. */
  readonly role?: string;
  /** A judge's verdict on the item, when one ran. */
  readonly judge?: JudgeRecord;
  /** Trajectory metrics of an agent's run (steps, probes, retries …), by name, when measured. */
  readonly trajectory?: Readonly<Record<string, number>>;
}

/** What {@link toLadderRecord} needs beside the run. */
export interface LadderRecordOptions {
  readonly id: string;
  readonly snapshots: readonly string[];
  readonly facts: ExecutionFacts;
  /** Score name → status of the switched-on rungs, the unreached ones `skipped` (see ladder-result.ts). */
  readonly statuses: Readonly<Record<string, RungStatus>>;
  readonly role?: string;
}

const STATUSES: readonly string[] = ['pass', 'fail', 'skipped', 'unscored'];
const VERDICTS: readonly string[] = ['pass', 'fail', 'unscored'];
const BEHAVIORS: readonly string[] = ['answer', 'clarify', 'refuse'];

/**
 * The one writer of a ladder record.
 * @returns plain JSON-safe data (see {@link toJsonSafe}); never throws.
 */
export function toLadderRecord(result: LadderResult, options: LadderRecordOptions): LadderRecord {
  const answer = result.answer;
  const probes = result.results.safety?.details?.probes ?? [];
  return {
    kind: 'ladder',
    version: LADDER_RECORD_VERSION,
    id: options.id,
    verdict: result.verdict,
    endToEnd: result.endToEnd ?? null,
    expectedBehavior: result.expectedBehavior,
    output: answer.kind === 'declined' ? `declined:${answer.action}` : answer.kind,
    reason: result.reason,
    snapshots: options.snapshots,
    rungs: result.rungs.map((rung) => toRungRecord(rung)),
    statuses: options.statuses,
    probes: { checked: probes.length, refused: probes.filter((probe) => probe.safety === 'fail').length },
    ...options.facts,
    ...(options.role !== undefined ? { role: options.role } : {}),
  };
}

/**
 * The one writer of a rung record (plain data, JSON-safe). L4's `predictedRuns` keep their column
 * names and row counts but not their rows: a prediction may return 100 000 rows, and the verdict's
 * missing / extra row samples already show the difference. The comparison policy appears once
 * (`details.policy`), not in each snapshot's verdict.
 */
export function toRungRecord(result: RungResult): RungRecord {
  return {
    kind: 'rung',
    rung: result.rung,
    status: result.status,
    score: result.score,
    reason: result.reason,
    issues: result.issues,
    details: toJsonSafe(withoutPredictedRows(result.details)),
  };
}

/**
 * The one guard of a rung record: `value` read as a {@link RungRecord}, or `undefined` when it is
 * not one (a record of 0.2.0 or later: `kind`, `rung`, `status` and `reason` checked, `score`
 * and `issues` defaulted when a hand-made record lacks them). Never throws.
 */
export function readRungRecord(value: unknown): RungRecord | undefined {
  if (!isObject(value) || value['kind'] !== 'rung') return undefined;
  return rungRecordOf(value);
}

function rungRecordOf(value: Record<string, unknown>): RungRecord | undefined {
  const { rung, status, reason } = value;
  if (typeof rung !== 'string' || typeof status !== 'string' || !STATUSES.includes(status) || typeof reason !== 'string') return undefined;
  const score = typeof value['score'] === 'number' ? value['score'] : status === 'pass' ? 1 : 0;
  const issues = Array.isArray(value['issues']) ? (value['issues'] as RungIssue[]) : [];
  if (value['kind'] === 'rung' && typeof value['score'] === 'number' && Array.isArray(value['issues'])) return value as unknown as RungRecord;
  return { ...value, kind: 'rung', rung, status: status as RungStatus, score, reason, issues, details: value['details'] ?? null } as RungRecord;
}

/**
 * The one guard of a ladder record: `value` read as a {@link LadderRecord} (any version; 0.2.0's
 * have none), or `undefined` when it is not one. Checks what every reader relies on — the kind,
 * the verdict, `end_to_end`, the reason and each rung — and fills what a 0.2.0 record written
 * before a field existed lacks (`statuses` from the rungs, `probes` 0 / 0, the facts false).
 * Never throws.
 */
export function readLadderRecord(value: unknown): LadderRecord | undefined {
  if (!isObject(value) || value['kind'] !== 'ladder') return undefined;
  const { verdict, endToEnd, reason, rungs } = value;
  if (typeof verdict !== 'string' || !VERDICTS.includes(verdict) || typeof reason !== 'string' || !Array.isArray(rungs)) return undefined;
  if (endToEnd !== null && endToEnd !== undefined && typeof endToEnd !== 'number') return undefined;
  const read: RungRecord[] = [];
  for (const entry of rungs as unknown[]) {
    const rung = isObject(entry) ? rungRecordOf({ kind: 'rung', ...entry }) : undefined;
    if (rung === undefined) return undefined;
    read.push(rung);
  }
  const expected = value['expectedBehavior'];
  const statuses = isObject(value['statuses']) ? (value['statuses'] as Record<string, RungStatus>) : Object.fromEntries(read.map((rung) => [scoreNameOf(rung.rung), rung.status]));
  const probes = isObject(value['probes']) && typeof value['probes']['checked'] === 'number' && typeof value['probes']['refused'] === 'number' ? (value['probes'] as LadderRecord['probes']) : { checked: 0, refused: 0 };
  const { judge: storedJudge, ...rest } = value;
  const judge = readJudgeRecord(storedJudge);
  return {
    ...rest,
    kind: 'ladder',
    id: typeof value['id'] === 'string' ? value['id'] : '',
    verdict: verdict as LadderRecord['verdict'],
    endToEnd: typeof endToEnd === 'number' ? endToEnd : null,
    expectedBehavior: typeof expected === 'string' && BEHAVIORS.includes(expected) ? (expected as LadderRecord['expectedBehavior']) : 'answer',
    output: typeof value['output'] === 'string' ? value['output'] : 'sql',
    reason,
    snapshots: Array.isArray(value['snapshots']) ? (value['snapshots'] as unknown[]).filter((name): name is string => typeof name === 'string') : [],
    rungs: read,
    statuses,
    probes,
    executed: value['executed'] === true,
    goldError: value['goldError'] === true,
    emptyGoldMatch: value['emptyGoldMatch'] === true,
    ...(judge !== undefined ? { judge } : {}),
  };
}

const JUDGE_VERDICTS: readonly string[] = ['pass', 'fail', 'unreadable'];
const JUDGE_STATES: readonly string[] = ['invalid', 'pass', 'lucky_match', 'wrong_result', 'review', 'uncalibrated', 'judge_error'];

/**
 * The one guard of a judge record: `value` read as a {@link JudgeRecord}, or `undefined` when it is
 * not one (`judge`, `verdict` and `reason` checked; a `state` outside {@link JudgeState} drops the
 * record, so a reader never acts on an outcome it does not know). Never throws.
 */
export function readJudgeRecord(value: unknown): JudgeRecord | undefined {
  if (!isObject(value)) return undefined;
  const { judge, verdict, reason, score, state } = value;
  if (typeof judge !== 'string' || typeof verdict !== 'string' || !JUDGE_VERDICTS.includes(verdict) || typeof reason !== 'string') return undefined;
  if (state !== undefined && (typeof state !== 'string' || !JUDGE_STATES.includes(state))) return undefined;
  return { ...value, judge, verdict: verdict as JudgeRecord['verdict'], reason, score: typeof score === 'number' ? score : null } as JudgeRecord;
}

/** What {@link findLadderRecords} found in a row. */
export interface FoundRecords {
  /** The ladder assertion's record, when the ladder graded the row. */
  readonly ladder: LadderRecord | undefined;
  /** Records of single-rung assertions (not the ladder's own rungs), in the row's order. */
  readonly rungs: readonly RungRecord[];
  /** The stored object the ladder record was read from inside the grading result (`undefined` when moved). */
  readonly ladderEntry: Record<string, unknown> | undefined;
}

/** Where a result row keeps the records (the slice of src/report/promptfoo-rows.ts's row read here). */
export interface RecordHolder {
  readonly gradingResult?: {
    readonly metadata?: Readonly<Record<string, unknown>>;
    readonly componentResults?: ReadonlyArray<{ readonly metadata?: Readonly<Record<string, unknown>> } | null | undefined> | null;
  } | null;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Parses of `metadata.ladder`, per row metadata object: `afterAll` reads each row more than once. */
const movedRecords = new WeakMap<object, LadderRecord | null>();

/**
 * The one finder: the records stored in a row — `text2sqlLadder` entries of the grading result and
 * its components, else the ladder record the `afterEach` hook moved to `metadata.ladder` (a JSON
 * string). Never throws; entries that are not records are passed over.
 */
export function findLadderRecords(row: RecordHolder): FoundRecords {
  const candidates = [row.gradingResult?.metadata, ...(row.gradingResult?.componentResults ?? []).map((entry) => entry?.metadata)];
  let ladder: LadderRecord | undefined;
  let ladderEntry: Record<string, unknown> | undefined;
  const rungs: RungRecord[] = [];
  const seen = new Set<unknown>();
  for (const candidate of candidates) {
    const entry = isObject(candidate) ? candidate['text2sqlLadder'] : undefined;
    if (!isObject(entry) || seen.has(entry)) continue;
    seen.add(entry);
    if (entry['kind'] === 'ladder') {
      if (ladder !== undefined) continue;
      ladder = readLadderRecord(entry);
      if (ladder !== undefined) ladderEntry = entry;
    } else {
      const rung = readRungRecord(entry);
      if (rung !== undefined) rungs.push(rung);
    }
  }
  return { ladder: ladder ?? movedLadderRecordOf(row), rungs, ladderEntry };
}

/**
 * The ladder record the `afterEach` hook moved into the row metadata (`metadata.ladder`, a JSON
 * string), parsed once per metadata object; callers must not modify it.
 * @returns `undefined` when the row has no such string, or it is not JSON of a ladder record.
 */
export function movedLadderRecordOf(row: Pick<RecordHolder, 'metadata'>): LadderRecord | undefined {
  const metadata = row.metadata;
  const text = metadata?.['ladder'];
  if (metadata === undefined || typeof text !== 'string') return undefined;
  let parsed = movedRecords.get(metadata);
  if (parsed === undefined) {
    try {
      parsed = readLadderRecord(JSON.parse(text) as unknown) ?? null;
    } catch {
      parsed = null;
    }
    movedRecords.set(metadata, parsed);
  }
  return parsed ?? undefined;
}

/**
 * L4's facts of a stored execution rung: from its details as L4 wrote them (the snapshots'
 * verdicts, the gold errors, the flags), or from the facts a 0.2.0 single-rung record carried.
 * All false for an absent or skipped rung. Never throws.
 */
export function storedExecutionFacts(execution: RungRecord | undefined): ExecutionFacts {
  const details = execution?.details;
  if (execution === undefined || !isObject(details)) return { executed: false, goldError: false, emptyGoldMatch: false };
  const snapshots = Array.isArray(details['snapshots']) ? (details['snapshots'] as unknown[]).filter(isObject) : undefined;
  const goldErrors = Array.isArray(details['goldErrors']) ? details['goldErrors'] : undefined;
  const flags = Array.isArray(details['flags']) ? (details['flags'] as unknown[]) : undefined;
  return {
    executed: snapshots !== undefined ? snapshots.length > 0 && snapshots.every((snapshot) => snapshot['predictedError'] === undefined) : details['executed'] === true,
    goldError: goldErrors !== undefined ? goldErrors.length > 0 : details['goldError'] === true,
    emptyGoldMatch: flags !== undefined ? execution.status === 'pass' && flags.includes('empty_gold') : details['emptyGoldMatch'] === true,
  };
}

function withoutPredictedRows(details: unknown): unknown {
  if (details === null || typeof details !== 'object' || !('predictedRuns' in details) || !Array.isArray(details.predictedRuns)) return details;
  const predictedRuns = (details.predictedRuns as unknown[]).map((run) => {
    if (run === null || typeof run !== 'object' || !('rows' in run) || !Array.isArray(run.rows)) return run;
    const { rows, ...rest } = run;
    return { ...rest, rowCount: rows.length };
  });
  // The policy is stated once per row (details.policy), not again inside every snapshot's verdict.
  const snapshots = 'snapshots' in details && Array.isArray(details.snapshots) ? (details.snapshots as unknown[]).map(withoutVerdictPolicy) : undefined;
  return { ...details, predictedRuns, ...(snapshots !== undefined ? { snapshots } : {}) };
}

function withoutVerdictPolicy(snapshot: unknown): unknown {
  if (snapshot === null || typeof snapshot !== 'object' || !('verdict' in snapshot) || snapshot.verdict === null || typeof snapshot.verdict !== 'object') return snapshot;
  const { policy: _policy, ...verdict } = snapshot.verdict as Record<string, unknown>;
  return { ...snapshot, verdict };
}

/**
 * Turns details into JSON-safe data: bigint → its exact digits as a string, Uint8Array →
 * `x'hex'`, a typed cell (decimal, date, JSON, array) → its tagged `toJSON()`, Map / Set → object / array, an Error → `{ name, message }`, a non-finite number → its
 * string, undefined and functions dropped. Result files store metadata as JSON.
 */
export function toJsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return `x'${Buffer.from(value).toString('hex')}'`;
  if (isTypedCell(value)) return toJsonSafe(value.toJSON());
  if (Array.isArray(value)) return value.map((entry) => toJsonSafe(entry));
  if (value !== null && typeof value === 'object') {
    if (value instanceof Map) return toJsonSafe(Object.fromEntries(value));
    if (value instanceof Set) return toJsonSafe([...value]);
    if (value instanceof Error) return { name: value.name, message: value.message };
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      if (entry !== undefined && typeof entry !== 'function') out[key] = toJsonSafe(entry);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}
