/**
 * `text2sql-ladder compare` on 10 000 items (target: < 1 s). Two synthetic run pairs, written to a
 * temporary folder:
 * - Spider JSONL: 10 000 verdict lines per run (about 85 % vs 86 % correct, 12 % discordant),
 *   4 hardness levels and 20 db_ids as tags, each with its `.run.json`;
 * - a promptfoo result: 10 000 items × 2 columns with ladder verdicts (L1–L4, L6 and end_to_end,
 *   five tags per item) and the identities in config.metadata, compact rows (no prompt text).
 * Measured: the whole command in-process (read, pair, exact McNemar and a 10 000-replicate paired
 * bootstrap per metric and tag, table + Markdown + JSON rendered), median of 5 after a warm-up; and
 * the whole CLI process from `dist/` (node start-up included), median of 3.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { runCompareCommand, type CompareCommandOptions } from '../src/cli/compare.js';
import { readRun } from '../src/report/read-run.js';
import { RUN_IDENTITY_FORMAT, type RunIdentity } from '../src/report/run-identity.js';
import { createSeededRandom } from '../src/report/seeded-random.js';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';

const ITEMS = 10_000;
const HARDNESS = ['easy', 'medium', 'hard', 'extra'];

function identity(label: string): RunIdentity {
  return {
    format: RUN_IDENTITY_FORMAT,
    tool: { name: 'text2sql-ladder', version: 'bench' },
    source: 'spider',
    recordedAt: '2025-01-01T00:00:00.000Z',
    dataset: { contentHash: 'sha256:bench', items: ITEMS, files: [] },
    snapshots: Array.from({ length: 20 }, (_, i) => ({ database: `db${i}`, role: null, name: `db${i}`, hash: `sha256:${i}` })),
    policies: [{ preset: 'default' }],
    prompt: null,
    provider: { label, id: null, model: null, settings: {} },
    asOfDates: [],
    settings: {},
  };
}

/** Paired pass/fail outcomes: a shared per-item difficulty, independent draws per run. */
function outcomes(seed: string): { base: boolean[]; cand: boolean[] } {
  const random = createSeededRandom(seed, 'bench');
  const base: boolean[] = [];
  const cand: boolean[] = [];
  for (let i = 0; i < ITEMS; i += 1) {
    const easy = random.next() < 0.78;
    base.push(easy || random.next() < 0.32);
    cand.push(easy || random.next() < 0.37);
  }
  return { base, cand };
}

function writeSpider(dir: string): [string, string] {
  const { base, cand } = outcomes('spider');
  const files: [string, string] = [path.join(dir, 'base.jsonl'), path.join(dir, 'cand.jsonl')];
  for (const [index, passes] of [base, cand].entries()) {
    const lines = passes.map((pass, i) => JSON.stringify({ i, db_id: `db${i % 20}`, exec: pass ? 1 : 0, error: pass ? null : `snapshot db${i % 20}: 2 missing rows, 1 extra row`, flags: [], goldIndex: 0, hardness: HARDNESS[i % 4] }));
    writeFileSync(files[index]!, `${lines.join('\n')}\n`);
    writeFileSync(`${files[index]}.run.json`, JSON.stringify(identity(index === 0 ? 'base' : 'cand')));
  }
  return files;
}

function ladderRow(promptIdx: number, label: string, i: number, pass: boolean): unknown {
  const rung = (name: string, status: string, reason: string) => ({ kind: 'rung', rung: name, status, score: status === 'pass' ? 1 : 0, reason, issues: [], details: name === 'execution' ? { policy: { preset: 'default' } } : null });
  const ladder = {
    kind: 'ladder',
    id: `q${i}`,
    verdict: pass ? 'pass' : 'fail',
    endToEnd: pass ? 1 : 0,
    expectedBehavior: 'answer',
    output: 'sql',
    reason: pass ? 'L6_efficiency pass: estimated cost 12 vs gold 12 row visits' : 'L4_execution fail: snapshot base: 1 missing row, 1 extra row; skipped: L6_efficiency',
    snapshots: ['base', 'edge'],
    rungs: [
      rung('syntax', 'pass', 'one query; SQLite prepares it'),
      rung('schema', 'pass', 'every name resolves (2 tables, 4 column references)'),
      rung('safety', 'pass', 'one read-only query; no unsafe construct'),
      rung('execution', pass ? 'pass' : 'fail', pass ? 'matches on 2 snapshots' : 'snapshot base: 1 missing row, 1 extra row'),
      pass ? rung('efficiency', 'pass', 'estimated cost 12 vs gold 12 row visits') : rung('efficiency', 'skipped', 'L4_execution fail'),
    ],
    statuses: {},
    executed: true,
    goldError: false,
    emptyGoldMatch: false,
  };
  return {
    promptIdx,
    testIdx: i,
    provider: { id: `replay:${label}.jsonl`, label },
    testCase: { vars: { id: `q${i}`, question: `Question ${i}?`, db: 'warehouse', gold_sql: [`SELECT ${i}`] }, metadata: { id: `q${i}`, tags: [`difficulty:${HARDNESS[i % 4]}`, `category:c${i % 9}`, `trap:t${i % 17}`, `db:${i % 3}`, 'scored'] } },
    gradingResult: { pass, score: pass ? 1 : 0, reason: ladder.reason, componentResults: [{ metadata: { text2sqlLadder: ladder } }] },
    success: pass,
    failureReason: pass ? 0 : 1,
  };
}

function writePromptfoo(dir: string): string {
  const { base, cand } = outcomes('promptfoo');
  const rows = [...base.map((pass, i) => ladderRow(0, 'base', i, pass)), ...cand.map((pass, i) => ladderRow(1, 'cand', i, pass))];
  const file = path.join(dir, 'eval.json');
  // Identities as the summary hook records them (config.metadata.text2sqlLadder).
  const columns = ['base', 'cand'].map((label, promptIdx) => ({ promptIdx, provider: label, prompt: 'p', identity: { ...identity(label), source: 'promptfoo' } }));
  const config = { metadata: { text2sqlLadder: { format: 'text2sql-ladder.promptfoo-runs/1', columns } } };
  writeFileSync(file, JSON.stringify({ evalId: 'bench', results: { version: 3, prompts: [{ provider: 'base', label: 'p' }, { provider: 'cand', label: 'p' }], results: rows }, config }));
  return file;
}

const sink = { write: () => true };

function medianMs(runs: number, fn: () => void): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-compare-runs-'));
  const lines: string[] = [];
  const figures: Record<string, number> = {};
  try {
    const [spiderBase, spiderCand] = writeSpider(dir);
    const promptfoo = writePromptfoo(dir);
    const markdown = path.join(dir, 'comment.md');
    const json = path.join(dir, 'report.json');
    const options: CompareCommandOptions = { failOn: 'significant-regression', min: { end_to_end: 0.5 }, markdown, json };
    const cases: Array<[string, string, string]> = [
      ['spider JSONL', spiderBase, spiderCand],
      ['promptfoo JSON', `${promptfoo}#base`, `${promptfoo}#cand`],
    ];
    const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/text2sql-ladder.js');
    for (const [name, base, cand] of cases) {
      let code = -1;
      const inProcessMs = medianMs(5, () => {
        code = runCompareCommand(base, cand, options, { stdout: sink, stderr: sink });
      });
      const processTimes: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const start = performance.now();
        const result = spawnSync(process.execPath, [bin, 'compare', base, cand, '--fail-on', 'significant-regression', '--markdown', markdown], { encoding: 'utf8' });
        processTimes.push(performance.now() - start);
        if (result.status !== 0 && result.status !== 1) throw new Error(`compare exited ${result.status}: ${result.stderr}`);
      }
      processTimes.sort((a, b) => a - b);
      const processMs = processTimes[1]!;
      const key = name.startsWith('spider') ? 'spider' : 'promptfoo';
      // Floors: reading both runs (readRun), and JSON.parse of the files alone.
      const readMs = medianMs(5, () => {
        const cache = new Map();
        readRun(base, cache);
        readRun(cand, cache);
      });
      const files = [...new Set([base, cand].map((spec) => spec.replace(/#[^#]*$/, '')))];
      const parseMs = medianMs(5, () => {
        for (const file of files) {
          const text = readFileSync(file, 'utf8');
          if (text.startsWith('{"evalId"')) JSON.parse(text);
          else for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
        }
      });
      figures[`readMs_${key}`] = readMs;
      figures[`parseMs_${key}`] = parseMs;
      figures[`inProcessMs_${key}`] = inProcessMs;
      figures[`processMs_${key}`] = processMs;
      figures[`inProcessVsTarget_${key}`] = inProcessMs / 1000;
      lines.push(`${name}, ${ITEMS} items per run (exit ${code}): in-process ${inProcessMs.toFixed(0)} ms (median of 5; ${targetNote(Math.round(inProcessMs), { max: 1000, exclusive: true }, 'ms')}, ×${(inProcessMs / 1000).toFixed(2)} of it), of which reading both runs ${readMs.toFixed(0)} ms (JSON.parse alone ${parseMs.toFixed(0)} ms); whole CLI process ${processMs.toFixed(0)} ms (median of 3, node start-up included)`);
    }
    lines.push('each: read both runs, pair 10 000 items, exact McNemar + 10 000-replicate paired bootstrap per metric and per tag, table + Markdown + JSON');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'compare-runs', lines, figures };
}
