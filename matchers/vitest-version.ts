/**
 * The vitest release check the `text2sql-ladder/vitest` entry runs when imported: vitest on a Node
 * its own `engines` exclude (vitest 5 on Node 20, where its reporter crashes on the first failing
 * test with "Map.groupBy is not a function") stops the run with what to install instead; a pair
 * that is merely not tested prints one warning (src/supported-versions.ts lists what is).
 */
import { installedToolVerdict, type ToolVerdict } from '../src/supported-versions.js';

/**
 * Throws for an unsupported vitest on this Node; warns (console.warn) for an untested pair.
 * @param verdict - the check's result (default: the installed vitest on the running Node).
 * @throws Error naming both versions and the remedy when vitest does not run on this Node. The
 *   message is also printed (console.error) first: vitest 5's reporter on Node 20 crashes before
 *   it prints a failed suite's error, but it shows what a test file printed.
 */
export function checkVitestRelease(verdict: ToolVerdict | undefined = installedToolVerdict('vitest')): void {
  if (verdict === undefined || verdict.kind === 'tested') return;
  const message = `text2sql-ladder/vitest: ${verdict.message}`;
  if (verdict.kind === 'unsupported') {
    console.error(message);
    throw new Error(message);
  }
  console.warn(`text2sql-ladder/vitest: warning: ${verdict.message}`);
}
