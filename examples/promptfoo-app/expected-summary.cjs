// The ladder summary this example must produce (checked by the package's app test):
//   node expected-summary.cjs out/eval-summary.json
// v1 (the question alone) falls into most traps; v2 (schema, sample values, output protocol) only
// into the tie at the LIMIT that exists on the `later` snapshot alone. v1's SQL answers to the refuse
// and clarify items go through L1–L3 (hence 13/14, 11/13, 13/14), and its right SQL with a made-up
// number in the prose (acme-paid-invoices) is not end-to-end correct.
const { readFileSync } = require('node:fs');

const expected = [
  { provider: 'model · prompt-v1', items: 14, scored: 14, errors: 0, executionSuccess: [10, 11], correctAmongExecuted: [4, 10], endToEnd: [3, 14], rungs: { L1_syntax: [13, 14], L2_schema: [11, 13], L3_safety: [13, 14], L4_execution: [4, 10], L7_answer: [0, 1] } },
  { provider: 'model · prompt-v2', items: 14, scored: 14, errors: 0, executionSuccess: [11, 11], correctAmongExecuted: [10, 11], endToEnd: [13, 14], rungs: { L1_syntax: [11, 11], L2_schema: [11, 11], L3_safety: [11, 11], L4_execution: [10, 11], L7_answer: [2, 2] } },
];

const summary = JSON.parse(readFileSync(process.argv[2] ?? 'out/eval-summary.json', 'utf8'));
const pair = (rate) => [rate.passed, rate.n];
const actual = summary.map((p) => ({
  provider: p.provider,
  items: p.items,
  scored: p.scored,
  errors: p.errors,
  executionSuccess: pair(p.executionSuccess),
  correctAmongExecuted: pair(p.correctAmongExecuted),
  endToEnd: pair(p.endToEnd),
  rungs: Object.fromEntries(p.rungs.map((rung) => [rung.name, pair(rung)])),
}));
const got = JSON.stringify(actual);
const want = JSON.stringify(expected);
if (got !== want) {
  console.error(`summary differs:\n  got  ${got}\n  want ${want}`);
  process.exit(1);
}
console.log(`summary as expected: ${actual.map((p) => `${p.provider} end-to-end ${p.endToEnd[0]}/${p.endToEnd[1]}`).join(', ')}`);
