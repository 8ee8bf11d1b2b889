/**
 * The promptfoo release check the promptfoo front end runs once per process, when its runtime
 * starts: a promptfoo release and Node pair CI does not run (src/supported-versions.ts) prints one
 * warning on stderr, with what is tested and what to install on this Node. It never stops a run:
 * promptfoo itself refuses a Node its `engines` exclude before any of this package loads.
 */
import { installedToolVerdict, type ToolVerdict } from '../supported-versions.js';

/**
 * The warning line for the installed promptfoo on the running Node, or `undefined` when the pair
 * is tested or promptfoo cannot be found.
 * @param verdict - the check's result (default: the installed promptfoo on the running Node).
 */
export function promptfooReleaseWarning(verdict: ToolVerdict | undefined = installedToolVerdict('promptfoo')): string | undefined {
  if (verdict === undefined || verdict.kind === 'tested') return undefined;
  return `text2sql-ladder: warning: ${verdict.message}`;
}
