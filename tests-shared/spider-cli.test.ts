/**
 * Agreement of `text2sql-ladder spider --preset spider` with the official Spider test-suite
 * evaluator's per-item verdicts on the shared slice, for both
 * prediction files, with and without --keep-distinct; and the default preset's figures.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSpiderCommand } from '../src/cli/spider.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-spider-shared-'));

interface Line {
  readonly i: number;
  readonly exec: number | null;
}

function readJsonl(file: string): Line[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Line);
}

async function run(model: string, preset: 'spider' | 'default', keepDistinct: boolean): Promise<{ items: Line[]; stdout: string }> {
  const out = path.join(outDir, `${model}.${preset}${keepDistinct ? '.kd' : ''}.jsonl`);
  let stdout = '';
  const io = { stdout: { write: (t: string) => ((stdout += t), true) }, stderr: { write: () => true } };
  const code = await runSpiderCommand(
    { gold: path.join(slice, 'dev_gold.sql'), pred: path.join(slice, 'predictions', `${model}.sql`), db: path.join(slice, 'database'), tables: path.join(slice, 'tables.json'), preset, keepDistinct, out },
    io,
  );
  expect(code).toBe(0);
  return { items: readJsonl(out), stdout };
}

describe('spider preset agrees with the official verdicts', () => {
  it.each([
    ['DINSQL', false, 'DINSQL.jsonl', 431],
    ['DINSQL', true, 'DINSQL.keep-distinct.jsonl', 431],
    ['C3_SQL', false, 'C3_SQL.jsonl', 430],
    ['C3_SQL', true, 'C3_SQL.keep-distinct.jsonl', 421],
  ] as const)('%s keepDistinct=%s', async (model, keepDistinct, file, correct) => {
    const official = readJsonl(path.join(slice, 'official-verdicts', file));
    const { items } = await run(model, 'spider', keepDistinct);
    const disagreements = items.filter((item, i) => item.exec !== official[i]!.exec).map((item) => item.i);
    expect(disagreements).toEqual([]);
    expect(items.length).toBe(507);
    expect(items.filter((item) => item.exec === 1).length).toBe(correct);
    expect((507 - disagreements.length) / 507).toBeGreaterThanOrEqual(0.995);
  });
});

describe('default preset on the slice', () => {
  it.each([
    ['DINSQL', 432, '0.933                0.889                0.824                0.645                0.852'],
    ['C3_SQL', 425, '0.933                0.858                0.859                0.605                0.838'],
  ] as const)('%s', async (model, correct, row) => {
    const { items, stdout } = await run(model, 'default', false);
    expect(items.filter((item) => item.exec === 1).length).toBe(correct);
    expect(stdout).toContain(`execution            ${row}`);
  });
});
