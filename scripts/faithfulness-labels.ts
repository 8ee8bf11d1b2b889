/**
 * Writes the faithfulness judge's labelled answers (datasets/faithfulness-labels.jsonl): questions
 * on the bundled warehouse fixture, their SQL run on its base snapshot, and prose answers written
 * from the rows by rules, each labelled by construction — `grounded` when the rule states only
 * what the rows show (a restatement, the top or bottom group, a comparison, a trend, a rounding
 * that keeps the stated precision), `not_grounded` when one edit breaks it (a wrong number, a wrong
 * entity, a reversed direction, a swapped value, an invented trend).
 *
 *   npx tsx scripts/faithfulness-labels.ts [--check]
 *
 * `--check` rebuilds the set in memory and exits 1 when the file differs (the rows are what the
 * fixture returns now); tests/judge/faithfulness-labels.test.ts runs the same check.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFaithfulnessLabels } from './faithfulness-label-rules.js';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'datasets', 'faithfulness-labels.jsonl');
const text = await buildFaithfulnessLabels();
if (process.argv.includes('--check')) {
  const current = readFileSync(FILE, 'utf8');
  if (current !== text) {
    process.stderr.write(`${FILE} is not what the rules and the fixture give now; run npx tsx scripts/faithfulness-labels.ts\n`);
    process.exit(1);
  }
} else {
  writeFileSync(FILE, text);
  process.stdout.write(`wrote ${FILE}: ${text.split('\n').filter((line) => line !== '').length} labelled answers\n`);
}
