/**
 * The Spider example in promptfoo (examples/spider/promptfooconfig.yaml) gives the same per-item
 * verdicts as the `text2sql-ladder spider` CLI with the same preset, on the shared slice, for both
 * prediction files. Also records the wall time of each promptfoo run (507 items).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SLICE = path.resolve('../shared/data/spider-dev-slice');
const PRESET = 'spider';
const out = mkdtempSync(path.join(tmpdir(), 'pf-spider-'));

interface Row {
  vars: { index: number };
  failureReason: number;
  gradingResult: { componentResults: Array<{ metadata?: { text2sqlLadder?: { status: string } } }> } | null;
}

/** promptfoo row → 1 / 0 / null (unscored) / 'error'. */
function promptfooVerdict(row: Row): 1 | 0 | null | 'error' {
  if (row.failureReason === 2) return 'error';
  const status = row.gradingResult?.componentResults.find((component) => component.metadata?.text2sqlLadder)?.metadata?.text2sqlLadder?.status;
  return status === 'pass' ? 1 : status === 'fail' ? 0 : status === 'unscored' ? null : 'error';
}

describe.each(['DINSQL', 'C3_SQL'])('Spider example on the shared slice: %s', (model) => {
  it(`agrees item by item with the Spider CLI (preset ${PRESET})`, async () => {
    const pred = path.join(SLICE, 'predictions', `${model}.sql`);
    const cliOut = path.join(out, `${model}.cli.jsonl`);
    await run(process.execPath, ['--import', 'tsx', 'bin/text2sql-ladder.ts', 'spider', '--gold', path.join(SLICE, 'dev_gold.sql'), '--pred', pred, '--db', path.join(SLICE, 'database'), '--tables', path.join(SLICE, 'tables.json'), '--preset', PRESET, '--out', cliOut], { maxBuffer: 1 << 26 });
    const cli = readFileSync(cliOut, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { i: number; exec: 1 | 0 | null });

    const pfOut = path.join(out, `${model}.promptfoo.json`);
    const started = Date.now();
    await run('bash', ['scripts/eval.sh'], {
      env: { ...process.env, CONFIG: 'examples/spider/promptfooconfig.yaml', OUTPUT: pfOut, SPIDER_DIR: SLICE, SPIDER_PRED: pred, SPIDER_PRESET: PRESET, PROMPTFOO_CONFIG_DIR: path.join(out, '.promptfoo') },
      maxBuffer: 1 << 26,
    });
    const seconds = (Date.now() - started) / 1000;
    const rows = (JSON.parse(readFileSync(pfOut, 'utf8')) as { results: { results: Row[] } }).results.results;
    const promptfoo = new Map(rows.map((row) => [row.vars.index, promptfooVerdict(row)]));

    const disagreements = cli.filter((item) => promptfoo.get(item.i) !== item.exec).map((item) => `${item.i}: cli ${item.exec}, promptfoo ${String(promptfoo.get(item.i))}`);
    process.stdout.write(`${model}: ${cli.length} items, ${cli.filter((item) => item.exec === 1).length} correct (CLI), promptfoo wall time ${seconds.toFixed(1)} s, ${disagreements.length} disagreements\n`);
    expect(rows).toHaveLength(507);
    expect(cli).toHaveLength(507);
    expect(disagreements).toEqual([]);
  });
});
