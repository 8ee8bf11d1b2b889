/**
 * What the `judge calibrate…` commands share: the threshold flags a record must pass
 * (`--min-tpr`, `--min-tnr`, `--min-pairs`, `--min-negatives`) and where the record is written
 * (`--out`).
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readCalibrationThresholds, type CalibrationThresholds } from '../judge/calibration-record.js';
import { parseNonNegativeInteger, parseRate } from './flags.js';

/** The threshold flags as commander parses them (each absent when not given). */
export interface ThresholdFlags {
  readonly minTpr?: number;
  readonly minTnr?: number;
  readonly minPairs?: number;
  readonly minNegatives?: number;
}

/**
 * Adds the threshold flags to a command.
 * @param words - what the command's help calls its labelled items, its negatives, and what TPR
 *   and TNR count (`{ items: 'labelled pairs', negatives: 'non-equivalent pairs' }`).
 */
export function addThresholdFlags(command: Command, words: { readonly items: string; readonly negatives: string; readonly tpr?: string; readonly tnr?: string }): Command {
  return command
    .option('--min-tpr <rate>', `threshold on TPR${words.tpr === undefined ? '' : `: ${words.tpr}`} (default 0.9)`, parseRate)
    .option('--min-tnr <rate>', `threshold on TNR${words.tnr === undefined ? '' : `: ${words.tnr}`} (default 0.9)`, parseRate)
    .option('--min-pairs <n>', `fewest ${words.items} (default 100)`, parseNonNegativeInteger)
    .option('--min-negatives <n>', `fewest ${words.negatives} (default 30)`, parseNonNegativeInteger);
}

/**
 * The thresholds the flags ask for, the library's defaults for the rest.
 * @throws LadderError `invalid_option` (`thresholds.<field> …`) for a value out of range.
 */
export function thresholdsFromFlags(flags: ThresholdFlags): CalibrationThresholds {
  const given = Object.fromEntries((['minTpr', 'minTnr', 'minPairs', 'minNegatives'] as const).filter((key) => flags[key] !== undefined).map((key) => [key, flags[key]]));
  return readCalibrationThresholds(given, 'thresholds');
}

/**
 * The record's path for `--out`: `defaultFile` in the working folder without it; `defaultFile`
 * inside `out` when `out` is a folder (made when it ends in `/`); else `out` itself.
 * @throws the file system's error when a folder ending in `/` cannot be made.
 */
export function calibrationRecordPath(out: string | undefined, defaultFile: string): string {
  if (out === undefined) return defaultFile;
  if (existsSync(out) && statSync(out).isDirectory()) return path.join(out, defaultFile);
  if (out.endsWith('/')) {
    mkdirSync(out, { recursive: true });
    return path.join(out, defaultFile);
  }
  return out;
}
