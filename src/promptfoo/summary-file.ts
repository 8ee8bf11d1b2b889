/**
 * Where `afterAll` writes the ladder summary as JSON: `LADDER_SUMMARY_JSON` when set (`off`, or an
 * empty value, writes none), else beside promptfoo's JSON output: `-o out/v2.json` →
 * `out/v2-summary.json` (the last `-o` / `--output` file ending in `.json`), so two runs with
 * different outputs never overwrite each other's summary. No JSON output, no summary file.
 */
import path from 'node:path';

/** Environment variable naming the summary file. */
export const SUMMARY_ENV = 'LADDER_SUMMARY_JSON';

/**
 * The JSON outputs promptfoo's command line names (`-o a.json b.html`, `-o a.json -o b.json`,
 * `--output=a.json`), in order.
 */
export function promptfooJsonOutputs(argv: readonly string[]): string[] {
  const outputs: string[] = [];
  let collecting = false;
  for (const arg of argv) {
    if (arg === '-o' || arg === '--output') {
      collecting = true;
      continue;
    }
    if (arg.startsWith('--output=')) {
      outputs.push(arg.slice('--output='.length));
      collecting = false;
      continue;
    }
    if (arg.startsWith('-')) {
      collecting = false;
      if (arg.startsWith('-o') && !arg.startsWith('--') && arg.length > 2) outputs.push(arg.slice(2));
      continue;
    }
    // `-o` takes several paths (`-o out.json out.html`) until the next flag.
    if (collecting) outputs.push(arg);
  }
  return outputs.filter((file) => file.toLowerCase().endsWith('.json'));
}

/**
 * The summary file of this run (see the module doc), or `undefined` for none.
 * @example ladderSummaryFile({}, ['node', 'promptfoo', 'eval', '-o', 'out/v2.json']) // 'out/v2-summary.json'
 * @example ladderSummaryFile({ LADDER_SUMMARY_JSON: 'x.json' }, [])                  // 'x.json'
 */
export function ladderSummaryFile(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): string | undefined {
  const set = env[SUMMARY_ENV];
  if (set !== undefined) return set.trim() === '' || set.trim() === 'off' ? undefined : set;
  const output = promptfooJsonOutputs(argv).at(-1);
  if (output === undefined) return undefined;
  return path.join(path.dirname(output), `${path.basename(output, path.extname(output))}-summary.json`);
}
