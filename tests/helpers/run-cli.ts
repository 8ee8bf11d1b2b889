/**
 * Runs the command line in process and captures what it writes, for the CLI tests.
 */
import { runCli } from '../../src/cli/program.js';

/** What one in-process run of `text2sql-ladder` returned and wrote. */
export interface CapturedRun {
  /** The exit code runCli returned (0 done, 1 a reported failure, 2 misuse). */
  readonly code: number;
  /** Everything written to stdout. */
  readonly out: string;
  /** Everything written to stderr. */
  readonly err: string;
}

/**
 * `text2sql-ladder ...args` through runCli with captured output.
 * @param maskDir - a temporary folder whose path is replaced by `<dir>` in both streams, so
 *   expected output can be written exactly.
 */
export async function runCliCaptured(args: readonly string[], maskDir?: string): Promise<CapturedRun> {
  let out = '';
  let err = '';
  const code = await runCli(['node', 'text2sql-ladder', ...args], {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
  });
  const mask = (text: string): string => (maskDir === undefined ? text : text.split(maskDir).join('<dir>'));
  return { code, out: mask(out), err: mask(err) };
}
