/**
 * Prints, for every item of a dataset, each gold's row count (and first rows with --rows) on
 * each snapshot, and every problem found by verifyDatasetGolds (golds run through the engine and
 * compared under the default comparison policy). Exit status 1 on any problem.
 *
 * Usage: npx tsx scripts/verify-dataset.ts [datasets/warehouse.yaml] [--rows]
 */
import { loadDataset } from '../src/dataset/load.js';
import { verifyDatasetGolds } from '../src/audit/verify-golds.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) ?? 'datasets/warehouse.yaml';
const showRows = args.includes('--rows');
const { items, errors } = await loadDataset(file);
for (const error of errors) console.log(`ERROR ${error.message}`);
const checks = await verifyDatasetGolds(items);
let problems = errors.length;
for (const check of checks) {
  const parts = check.snapshots.map((s) => {
    const first = s.runs[0];
    return `${s.snapshot}=${first?.ok ? first.result.rows.length : 'ERR'}${s.agree ? '' : '!'}`;
  });
  console.log(`${check.id.padEnd(8)} ${parts.join(' ')}`);
  if (showRows) {
    for (const s of check.snapshots) {
      const first = s.runs[0];
      // Integers beyond 2^53 come back exact (bigint): print their digits.
      if (first?.ok) console.log(`    ${s.snapshot}: ${JSON.stringify(first.result.rows.slice(0, 6), (_key, cell: unknown) => (typeof cell === 'bigint' ? cell.toString() : cell))}`);
    }
  }
  for (const problem of check.problems) console.log(`  PROBLEM ${problem}`);
  problems += check.problems.length;
}
const unscored = items.filter((i) => !i.scored).length;
console.log(`${items.length} items, ${checks.length} with gold, ${unscored} unscored, ${problems} problems`);
process.exit(problems > 0 ? 1 : 0);
