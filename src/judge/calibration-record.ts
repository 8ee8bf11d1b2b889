/**
 * The calibration record: what `text2sql-ladder judge calibrate` measured for one exact judge
 * (provider, model, prompt version and hash) on one labelled set, written as a JSON file, and the
 * one check that decides whether a judge's verdicts may count ({@link findPassingCalibration}).
 *
 * A judge is trusted only after it agrees with human labels on enough pairs (*Text-to-SQL Evals*
 * §6: TPR and TNR ≥ 0.90 on at least 100 labelled pairs with 30–50 non-equivalent ones). A record
 * counts for a judge only when all of these hold:
 * - it names the same task (`equivalence`, `faithfulness`), provider id, model and prompt hash as
 *   the judge in use (a new prompt or model needs a new calibration);
 * - its measured figures meet the thresholds the caller asks for *now* (not only the ones it was
 *   written under): `n` ≥ `minPairs`, negatives ≥ `minNegatives`, TPR ≥ `minTpr`, TNR ≥ `minTnr`,
 *   each a point estimate (the intervals are reported, not gated on, as in the source's rule).
 *
 * File format (JSON object, `kind: "judge-calibration"`, `version: 1`): see {@link CalibrationRecord}.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LadderError } from '../errors.js';
import { readUserText } from '../files/user-file.js';
import { isObject } from '../objects.js';
import type { JudgeStatistics } from './judge-statistics.js';

/** The version {@link CalibrationRecord} files are written in. */
export const CALIBRATION_RECORD_VERSION = 1;

/** Which judge a record is for: the task, the provider, the model and the prompt. */
export interface JudgeIdentity {
  /** What the judge decides: `equivalence` (SQL pairs), `faithfulness` (prose answers), or another task. */
  readonly task: 'equivalence' | 'faithfulness' | (string & {});
  /** The provider id (`openai:chat:gpt-4.1`, `file://judge.mjs`, a function judge's own id). */
  readonly provider: string;
  /** The model as the provider names it (the id's last part when the provider does not say). */
  readonly model: string;
  /** The prompt's version name (`equivalence-v1`) and the sha256 (hex) of its template. */
  readonly promptVersion: string;
  readonly promptHash: string;
}

/** What a calibration must show before a judge counts (defaults: {@link DEFAULT_CALIBRATION_THRESHOLDS}). */
export interface CalibrationThresholds {
  readonly minTpr: number;
  readonly minTnr: number;
  /** Fewest labelled pairs. */
  readonly minPairs: number;
  /** Fewest pairs labelled negative (non-equivalent / unfaithful). */
  readonly minNegatives: number;
}

/** *Text-to-SQL Evals* §6's starting rules: TPR and TNR ≥ 0.90 on ≥ 100 pairs, ≥ 30 of them non-equivalent. */
export const DEFAULT_CALIBRATION_THRESHOLDS: CalibrationThresholds = Object.freeze({ minTpr: 0.9, minTnr: 0.9, minPairs: 100, minNegatives: 30 });

/** One category's figures (e.g. `not_in_not_exists`): its pairs by label, and how many the judge got right. */
export interface CategoryFigures {
  readonly pairs: number;
  readonly positives: number;
  readonly negatives: number;
  readonly correct: number;
  /** Pairs where the judge gave no readable answer (counted as wrong). */
  readonly errors: number;
}

/** The stored calibration of one judge on one labelled set. */
export interface CalibrationRecord {
  readonly kind: 'judge-calibration';
  readonly version: number;
  readonly judge: JudgeIdentity;
  /** The labelled set: its path as given, sha256 of its bytes, and its size. */
  readonly labels: { readonly file: string; readonly sha256: string; readonly pairs: number; readonly positives: number; readonly negatives: number };
  /** ISO 8601 time the calibration finished. */
  readonly createdAt: string;
  /** The thresholds the record was checked against when written. */
  readonly thresholds: CalibrationThresholds;
  readonly statistics: JudgeStatistics;
  /** Figures per category of the labelled set. */
  readonly categories: Readonly<Record<string, CategoryFigures>>;
  /** Pairs with no readable answer after the retry (`judge_error`); each counted as a wrong answer. */
  readonly errors: number;
  /** Whether the figures met `thresholds`, and why not. */
  readonly passed: boolean;
  readonly failures: readonly string[];
  /** Calls made, answers read from the cache, tokens spent (prompt + completion, when the provider reports them). */
  readonly cost: { readonly calls: number; readonly cacheHits: number; readonly tokens: number };
  /** Ids of the pairs the judge got wrong (for reading the failures). */
  readonly wrong: readonly string[];
}

/**
 * Which thresholds a calibration's figures miss.
 * @returns one sentence per missed threshold (empty: it passes).
 */
export function calibrationFailures(statistics: JudgeStatistics, thresholds: CalibrationThresholds = DEFAULT_CALIBRATION_THRESHOLDS): string[] {
  const failures: string[] = [];
  const show = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(3));
  if (statistics.n < thresholds.minPairs) failures.push(`${statistics.n} labelled pairs, fewer than ${thresholds.minPairs}`);
  if (statistics.negatives < thresholds.minNegatives) failures.push(`${statistics.negatives} negative pairs, fewer than ${thresholds.minNegatives}`);
  if (statistics.tpr.value === null || statistics.tpr.value < thresholds.minTpr) failures.push(`TPR ${show(statistics.tpr.value)} < ${thresholds.minTpr}`);
  if (statistics.tnr.value === null || statistics.tnr.value < thresholds.minTnr) failures.push(`TNR ${show(statistics.tnr.value)} < ${thresholds.minTnr}`);
  return failures;
}

/**
 * Reads thresholds given by a user (config or CLI), each optional, over the defaults.
 * @throws LadderError `invalid_option` naming the field: rates must lie in [0, 1], counts be non-negative integers.
 */
export function readCalibrationThresholds(value: unknown, where = 'calibration thresholds'): CalibrationThresholds {
  if (value === undefined || value === null) return DEFAULT_CALIBRATION_THRESHOLDS;
  if (!isObject(value)) throw new LadderError('invalid_option', `${where} must be an object { minTpr, minTnr, minPairs, minNegatives }; received ${JSON.stringify(value)}`);
  const known = ['minTpr', 'minTnr', 'minPairs', 'minNegatives'];
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new LadderError('invalid_option', `${where}: unknown field ${unknown.map((key) => `"${key}"`).join(', ')} (known: ${known.join(', ')})`);
  const rate = (key: 'minTpr' | 'minTnr'): number => {
    const v = value[key] ?? DEFAULT_CALIBRATION_THRESHOLDS[key];
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new LadderError('invalid_option', `${where}.${key} must be a number in [0, 1]; received ${JSON.stringify(v)}`);
    return v;
  };
  const count = (key: 'minPairs' | 'minNegatives'): number => {
    const v = value[key] ?? DEFAULT_CALIBRATION_THRESHOLDS[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new LadderError('invalid_option', `${where}.${key} must be a non-negative integer; received ${JSON.stringify(v)}`);
    return v;
  };
  return { minTpr: rate('minTpr'), minTnr: rate('minTnr'), minPairs: count('minPairs'), minNegatives: count('minNegatives') };
}

/**
 * Reads a calibration record file.
 * @throws LadderError `input_invalid` naming the file when it cannot be read, is not JSON, or is
 *   not a calibration record (the missing or wrong field named).
 */
export function readCalibrationRecord(file: string): CalibrationRecord {
  const text = readUserText(file, { what: 'calibration record' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LadderError('input_invalid', `${file}: calibration record is not JSON (${(error as Error).message})`);
  }
  const problem = calibrationRecordProblem(value);
  if (problem !== undefined) throw new LadderError('input_invalid', `${file}: not a calibration record: ${problem}`);
  return value as CalibrationRecord;
}

/** Why `value` is not a {@link CalibrationRecord}, or `undefined` when it is one. Never throws. */
export function calibrationRecordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'must be a JSON object';
  if (value['kind'] !== 'judge-calibration') return `"kind" must be "judge-calibration"; received ${JSON.stringify(value['kind'])}`;
  if (typeof value['version'] !== 'number') return '"version" must be a number';
  const judge = value['judge'];
  if (!isObject(judge)) return '"judge" must be an object';
  for (const key of ['task', 'provider', 'model', 'promptVersion', 'promptHash']) {
    if (typeof judge[key] !== 'string') return `"judge.${key}" must be a string`;
  }
  const statistics = value['statistics'];
  if (!isObject(statistics) || typeof statistics['n'] !== 'number' || typeof statistics['negatives'] !== 'number' || !isObject(statistics['tpr']) || !isObject(statistics['tnr'])) {
    return '"statistics" must hold n, negatives, tpr and tnr';
  }
  if (typeof value['passed'] !== 'boolean') return '"passed" must be true or false';
  return undefined;
}

/** Whether two identities name the same judge (every field equal). */
export function sameJudge(a: JudgeIdentity, b: JudgeIdentity): boolean {
  return a.task === b.task && a.provider === b.provider && a.model === b.model && a.promptVersion === b.promptVersion && a.promptHash === b.promptHash;
}

/** What {@link findPassingCalibration} found. */
export interface CalibrationLookup {
  /** The passing record, when one was found. */
  readonly record: CalibrationRecord | undefined;
  /** Its file. */
  readonly file: string | undefined;
  /** Why no record counts (one line), when none was found. */
  readonly reason: string;
}

/**
 * Finds a calibration record that lets the judge's verdicts count: one for this exact judge whose
 * figures meet `thresholds` (see the module doc).
 *
 * @param sources - record files, or folders whose `*.json` files are read (not recursively);
 *   missing paths are passed over (a project without calibrations yet).
 * @returns the first passing record in `sources` order (files of a folder by name), else why none
 *   counts (`no calibration record for …`, `calibration … has TPR 0.850 < 0.9`).
 * @throws LadderError `input_invalid` for a file that is not a calibration record (a folder's
 *   other JSON files, `kind` not `judge-calibration`, are passed over).
 */
export function findPassingCalibration(judge: JudgeIdentity, sources: readonly string[], thresholds: CalibrationThresholds = DEFAULT_CALIBRATION_THRESHOLDS): CalibrationLookup {
  const misses: string[] = [];
  for (const file of calibrationFiles(sources)) {
    const record = readCalibrationRecord(file.path);
    if (!sameJudge(record.judge, judge)) continue;
    const failures = calibrationFailures(record.statistics, thresholds);
    if (failures.length === 0) return { record, file: file.path, reason: `calibrated (${file.path})` };
    misses.push(`${file.path}: ${failures.join('; ')}`);
  }
  const who = `${judge.task} judge ${judge.provider} (model ${judge.model}, prompt ${judge.promptVersion} ${judge.promptHash.slice(0, 12)})`;
  return {
    record: undefined,
    file: undefined,
    reason: misses.length > 0 ? `no passing calibration for the ${who}: ${misses.join(' | ')}` : `no calibration record for the ${who}; run \`text2sql-ladder judge calibrate\``,
  };
}

function calibrationFiles(sources: readonly string[]): { path: string }[] {
  const files: { path: string }[] = [];
  for (const source of sources) {
    if (!existsSync(source)) continue;
    if (statSync(source).isDirectory()) {
      for (const name of readdirSync(source).filter((entry) => entry.endsWith('.json')).sort()) {
        const path = join(source, name);
        if (!isCalibrationFile(path)) continue;
        files.push({ path });
      }
    } else files.push({ path: source });
  }
  return files;
}

/** A folder may hold other JSON files: only those whose `kind` is `judge-calibration` are read as records. */
function isCalibrationFile(path: string): boolean {
  try {
    const value: unknown = JSON.parse(readUserText(path, { what: 'calibration record' }));
    return isObject(value) && value['kind'] === 'judge-calibration';
  } catch {
    return false;
  }
}
