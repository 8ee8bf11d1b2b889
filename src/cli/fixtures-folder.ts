/**
 * The folder of fixture folders a CLI command resolves fixture names in: `--fixtures <dir>`, else
 * `$TEXT2SQL_LADDER_FIXTURES` (as the promptfoo front end reads it), else the bundled fixtures.
 * Shared by `check` and `audit`, so an app's own fixtures are found by name the same way everywhere.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { LadderError, isLadderError } from '../errors.js';

/** The environment variable naming an app's fixture folder (the promptfoo front end reads it too). */
export const FIXTURES_ENV_VAR = 'TEXT2SQL_LADDER_FIXTURES';

/** The `--fixtures` option's help text. */
export const FIXTURES_OPTION_HELP = `folder of fixture folders that fixture names resolve in (default: $${FIXTURES_ENV_VAR}, else the bundled fixtures)`;

/** Where fixture names resolve, and what chose it. */
export interface FixturesFolder {
  /** Absolute folder path; `undefined` for the bundled fixtures (the registry's default, read only when a name is resolved, so `check` on a file loads no manifest reader). */
  readonly dir: string | undefined;
  /** `--fixtures`, `$TEXT2SQL_LADDER_FIXTURES`, or `bundled`. */
  readonly from: '--fixtures' | `$${typeof FIXTURES_ENV_VAR}` | 'bundled';
}

/**
 * Resolves the folder (see the module doc).
 * @param flag - the `--fixtures` value, when given.
 * @throws LadderError `invalid_option` naming the flag or the variable when it is not a folder.
 */
export function fixturesFolder(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): FixturesFolder {
  if (flag !== undefined) return { dir: checkFolder(flag, '--fixtures'), from: '--fixtures' };
  const fromEnv = env[FIXTURES_ENV_VAR]?.trim();
  if (fromEnv) return { dir: checkFolder(fromEnv, `$${FIXTURES_ENV_VAR}`), from: `$${FIXTURES_ENV_VAR}` };
  return { dir: undefined, from: 'bundled' };
}

/**
 * An `unknown_fixture` error with where the name was looked up and, for the bundled folder, how to
 * name an app's own: `… (looked in the bundled fixtures; an app's own: --fixtures <dir> or $TEXT2SQL_LADDER_FIXTURES)`.
 * Any other error is returned as it is.
 */
export function withFixturesHint(error: unknown, folder: FixturesFolder): unknown {
  if (!isLadderError(error, 'unknown_fixture')) return error;
  const where = folder.from === 'bundled' ? `looked in the bundled fixtures; an app's own: --fixtures <dir> or $${FIXTURES_ENV_VAR}` : `from ${folder.from}`;
  return new LadderError('unknown_fixture', `${error.message} (${where})`, { cause: error });
}

/**
 * `dir` resolved, when it is a folder.
 * @throws LadderError `invalid_option`: `<flag>: expected a folder; received <dir>, which does not exist` (or `is a file`).
 */
export function checkFolder(dir: string, flag: string): string {
  const resolved = path.resolve(dir);
  let isFolder = false;
  try {
    isFolder = statSync(resolved).isDirectory();
  } catch {
    throw new LadderError('invalid_option', `${flag}: expected a folder; received ${dir}, which does not exist`);
  }
  if (!isFolder) throw new LadderError('invalid_option', `${flag}: expected a folder; received ${dir}, which is a file`);
  return resolved;
}
