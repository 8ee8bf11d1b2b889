/** Where a `judge calibrate…` command writes its calibration record (`--out`). */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

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
