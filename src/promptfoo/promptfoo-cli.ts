/**
 * Whether this process is promptfoo's command line (`promptfoo eval`), where the package's test
 * generators and hooks may decide the exit code (src/exit-codes.ts); under promptfoo's Node API,
 * in tests and in any other program they throw or set `process.exitCode` only.
 */
import { realpathSync } from 'node:fs';

/** promptfoo's command-line entry file (`node_modules/.bin/promptfoo` links to it; 0.121 and 0.123). */
const PROMPTFOO_ENTRY = /[\\/]promptfoo[\\/]dist[\\/]src[\\/][\w.-]+\.[cm]?js$/;

/**
 * True when this process is promptfoo's command line (its entry file lies in a `promptfoo`
 * package), where a generator may end the run; false under promptfoo's Node API, in tests and in
 * any other program, where it throws instead.
 */
export function runsInPromptfooCli(argv: readonly string[] = process.argv): boolean {
  const entry = argv[1];
  if (entry === undefined) return false;
  try {
    return PROMPTFOO_ENTRY.test(realpathSync(entry));
  } catch {
    return false;
  }
}
