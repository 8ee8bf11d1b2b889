/**
 * The `judge` option of the ladder (promptfoo `config.judge`, the matcher's `judge`): off by
 * default; on with a provider.
 *
 * | key            | kind                                                   | default |
 * |----------------|--------------------------------------------------------|---------|
 * | `provider`     | a promptfoo provider id, `{ id, config }`, a provider instance, or (API / vitest) an async function `(prompt) => string` | required |
 * | `model`        | the model's name in calibration records                | the provider's |
 * | `calibration`  | a calibration record file or folder, or a list of them | `judge-calibration.json` |
 * | `thresholds`   | `{ minTpr, minTnr, minPairs, minNegatives }`           | 0.9, 0.9, 100, 30 |
 * | `share`        | `sql`, `schema` or `rows` (what the judge is sent)     | `rows` for `ollama:` / `file://` / a function, `sql` otherwise |
 * | `maxRows`      | rows per result preview                                | 5 |
 * | `redactColumns`| result columns whose values are never sent             | none |
 * | `trivialRows`  | a match on at most this many gold rows is asked about  | 0 (only empty or all-NULL/0 results) |
 * | `cache`        | answer cache folder, or `false`                        | `<cache folder>/judge` |
 *
 * Relative paths (`calibration`, `cache`) resolve against `baseDir` (the promptfoo config's folder).
 */
import path from 'node:path';
import { LadderError } from '../../errors.js';
import { optionReader } from '../../options.js';
import { DEFAULT_CALIBRATION_THRESHOLDS, readCalibrationThresholds, type CalibrationThresholds } from '../calibration-record.js';
import type { JudgeShare } from './judge-step.js';

/** The default calibration record the ladder looks for (what `judge calibrate` writes). */
export const DEFAULT_CALIBRATION_SOURCE = 'judge-calibration.json';

/** The validated `judge` option. */
export interface JudgeConfig {
  /** As given: loaded by the front end (a promptfoo provider, or a function judge). */
  readonly provider: unknown;
  readonly model?: string;
  readonly calibration: readonly string[];
  readonly thresholds: CalibrationThresholds;
  readonly share?: JudgeShare;
  readonly maxRows?: number;
  readonly redactColumns?: readonly string[];
  readonly trivialRows?: number;
  readonly cache?: string | false;
}

/**
 * Reads the `judge` option.
 * @param value - the option as given (`undefined` / `false`: off).
 * @param prefix - how messages name it (`config.judge.`).
 * @param baseDir - folder relative paths resolve against (default the working folder).
 * @returns `undefined` when off.
 * @throws LadderError `invalid_option` naming `<prefix><key>`.
 */
export function readJudgeConfig(value: unknown, prefix = 'config.judge.', baseDir = process.cwd()): JudgeConfig | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const name = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
  if (value === true) throw new LadderError('invalid_option', `${name} needs a provider: { provider: "openai:chat:gpt-4.1" } (an id, { id, config }, or a function)`);
  const read = optionReader(value, { prefix });
  read.unknownKeys(['provider', 'model', 'calibration', 'thresholds', 'share', 'maxRows', 'redactColumns', 'trivialRows', 'cache']);
  const provider = read.raw('provider');
  if (provider === undefined || provider === '') throw read.invalid('provider', 'a provider id, { id, config } or a function', provider);
  const model = read.string('model');
  const calibration = (read.stringList('calibration', { single: true, nonEmpty: true }) ?? [DEFAULT_CALIBRATION_SOURCE]).map((entry) => path.resolve(baseDir, entry));
  const thresholds = read.has('thresholds') ? readCalibrationThresholds(read.raw('thresholds'), `${prefix}thresholds`) : DEFAULT_CALIBRATION_THRESHOLDS;
  const share = read.oneOf<JudgeShare>('share', ['sql', 'schema', 'rows']);
  const maxRows = read.number('maxRows', { min: 0, integer: true, expected: 'an integer >= 0' });
  const redactColumns = read.stringList('redactColumns', { single: true });
  const trivialRows = read.number('trivialRows', { min: 0, integer: true, expected: 'an integer >= 0' });
  const cacheRaw = read.raw('cache');
  if (cacheRaw !== undefined && cacheRaw !== false && (typeof cacheRaw !== 'string' || cacheRaw.trim() === '')) throw read.invalid('cache', 'a folder path or false', cacheRaw);
  return {
    provider,
    calibration,
    thresholds,
    ...(model !== undefined ? { model } : {}),
    ...(share !== undefined ? { share } : {}),
    ...(maxRows !== undefined ? { maxRows } : {}),
    ...(redactColumns !== undefined ? { redactColumns } : {}),
    ...(trivialRows !== undefined ? { trivialRows } : {}),
    ...(cacheRaw === false ? { cache: false as const } : typeof cacheRaw === 'string' ? { cache: path.resolve(baseDir, cacheRaw) } : {}),
  };
}

