/**
 * Runs the red-team slice twice — static checks on, then off — over both recordings, and prints
 * the three outcomes (model declined / static check blocked / database refused), the successes
 * and the unsafe successes per recording, plus every unsafe success and every resource bomb that
 * did not end at the deadline or a cap. Exit status 1 when any unsafe statement succeeded.
 *
 * Usage: npx tsx scripts/redteam.ts [datasets/redteam.yaml] [--timeout-ms 2000] [--json out.json]
 *
 * The engine runs with one child process (so the connection probe sees the connection that ran
 * the statement), a 2 s deadline, a 10 000-row cap and a 512 MiB memory cap unless overridden.
 * Every file path in the slice points into /tmp/t2sl-redteam, which must be empty at the start.
 */
import { writeFileSync } from 'node:fs';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { loadDataset } from '../src/dataset/load.js';
import { readRecording, runRedTeam, type RedTeamReport } from '../src/harness/redteam.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const file = args.find((arg, index) => !arg.startsWith('--') && !args[index - 1]?.startsWith('--')) ?? 'datasets/redteam.yaml';
const timeoutMs = Number(flag('--timeout-ms') ?? 2000);
const jsonOut = flag('--json');

const { items, errors } = await loadDataset(file);
for (const error of errors) console.error(`dataset error: ${error.message}`);
if (errors.length > 0) process.exit(2);
const recordings = {
  compliant: readRecording('providers/recordings/redteam-compliant.jsonl'),
  guarded: readRecording('providers/recordings/redteam-guarded.jsonl'),
};

const reports: RedTeamReport[] = [];
for (const staticChecks of [true, false]) {
  const engine = createSqliteEngine({ poolSize: 1, timeoutMs, maxRows: 10_000, maxMemoryBytes: 512 * 2 ** 20 });
  try {
    const report = await runRedTeam({
      items,
      recordings,
      staticChecks,
      engine,
      sentinelDir: '/tmp/t2sl-redteam',
      timeoutMs,
      onResult: (result) => process.stderr.write(`${staticChecks ? 'on ' : 'off'} ${result.recording.padEnd(9)} ${result.id} ${result.outcome.padEnd(14)} ${result.detail.slice(0, 90)}\n`),
    });
    reports.push(report);
  } finally {
    await engine.close();
  }
}

let unsafe = 0;
console.log(`red-team slice: ${items.length} items, recordings: ${Object.keys(recordings).join(', ')}`);
console.log('static   recording  declined  static_blocked  db_refused  succeeded  unsafe');
for (const report of reports) {
  for (const [recording, counts] of Object.entries(report.counts)) {
    console.log(
      `${(report.staticChecks ? 'on' : 'off').padEnd(8)} ${recording.padEnd(10)} ${String(counts.declined).padStart(8)}  ${String(counts.static_blocked).padStart(14)}  ${String(counts.db_refused).padStart(10)}  ${String(counts.succeeded).padStart(9)}  ${String(counts.unsafe).padStart(6)}`,
    );
    unsafe += counts.unsafe;
  }
  for (const result of report.results.filter((candidate) => candidate.unsafe)) {
    console.log(`  UNSAFE ${result.recording} ${result.id}: ${result.unsafeReasons.join('; ')}`);
  }
  const executedBombs = report.results.filter((result) => result.harm === 'exhaust' && result.attack && (result.outcome === 'db_refused' || result.outcome === 'succeeded'));
  const uncapped = executedBombs.filter((result) => !result.endedAtCap);
  console.log(`  static ${report.staticChecks ? 'on' : 'off'}: ${executedBombs.length} resource bombs executed, ${executedBombs.length - uncapped.length} ended at the deadline or a cap`);
  for (const result of uncapped) console.log(`  BOMB NOT CAPPED ${result.id}: ${result.outcome} ${result.detail}`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(reports, null, 2));
console.log(unsafe === 0 ? 'no unsafe statement succeeded' : `${unsafe} unsafe successes`);
process.exitCode = unsafe === 0 ? 0 : 1;
