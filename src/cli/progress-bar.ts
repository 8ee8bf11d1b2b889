/**
 * The progress bar a command shows on a terminal: cli-progress on stderr when stderr is a TTY,
 * else none. cli-progress (with readline and the string-width packages it loads) is imported only
 * then, since a run whose stderr is a file or a pipe never draws one.
 */
import type { SingleBar } from 'cli-progress';

/** A bar that draws, or `undefined` when `stderr` is not a terminal. */
export type ProgressBar = SingleBar | undefined;

/**
 * Creates a bar with cli-progress's `shades_classic` look.
 * @param stderr - the command's stderr (a bar only when `isTTY`; drawn on `terminal` when given).
 * @param format - cli-progress format, e.g. `spider [{bar}] {value}/{total} items | {duration_formatted}`.
 * @returns the bar (not started), or `undefined`.
 */
export async function progressBarOn(stderr: { readonly isTTY?: boolean; readonly terminal?: NodeJS.WritableStream }, format: string): Promise<ProgressBar> {
  if (stderr.isTTY !== true) return undefined;
  const { default: cliProgress } = await import('cli-progress');
  // The bar's own escape sequences go to the terminal itself, not through the escaping writer.
  return new cliProgress.SingleBar({ format, hideCursor: true, stream: stderr.terminal ?? (stderr as NodeJS.WritableStream) }, cliProgress.Presets.shades_classic);
}
