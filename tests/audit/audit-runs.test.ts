/** readAuditRun: the run files `audit --runs` reads, and their misuse messages. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAuditRun } from '../../src/audit/audit-runs.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import { identifySpiderRun, runFilePathOf } from '../../src/report/spider-run-identity.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ladder-audit-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const outputs = (spec: string) => Object.fromEntries(readAuditRun(spec).outputs);

const row = (id: string, promptIdx: number, provider: string, output: unknown) => ({ promptIdx, provider: { id: `replay:${provider}`, label: provider }, testCase: { metadata: { id } }, response: { output } });

describe('readAuditRun', () => {
  it('a promptfoo result: one column by its label, each row\'s response.output by item id', () => {
    const file = write(
      'eval.json',
      JSON.stringify({
        results: {
          prompts: [{ provider: 'weak', label: 'p' }, { provider: 'strong', label: 'p' }],
          results: [row('q1', 0, 'weak', 'SELECT 1'), row('q1', 1, 'strong', '{"sql": "SELECT 2"}'), row('q2', 1, 'strong', 'no idea')],
        },
      }),
    );
    expect(readAuditRun(`${file}#strong`)).toMatchObject({ label: 'strong', format: 'promptfoo' });
    expect(outputs(`${file}#strong`)).toEqual({ q1: '{"sql": "SELECT 2"}', q2: 'no idea' });
    expect(() => readAuditRun(file)).toThrow(`${file} has 2 columns; name one: ${file}#weak, ${file}#strong`);
    expect(() => readAuditRun(`${file}#medium`)).toThrow(`${file} has no column "medium"; its columns: #weak, #strong`);
  });

  it('promptfoo JSONL rows', () => {
    const file = write('eval.jsonl', [row('q1', 0, 'm', 'SELECT 1'), row('q2', 0, 'm', 'SELECT 2')].map((r) => JSON.stringify(r)).join('\n'));
    expect(outputs(file)).toEqual({ q1: 'SELECT 1', q2: 'SELECT 2' });
  });

  it('a recording, a Spider prediction file and a BIRD prediction file', () => {
    expect(readAuditRun(write('rec.jsonl', '{"id": "a", "output": "SELECT 1"}\n{"id": 7, "output": {"action": "refuse", "message": "no"}}\n'))).toMatchObject({ label: 'rec', format: 'recording' });
    expect(outputs(path.join(dir, 'rec.jsonl'))).toEqual({ a: 'SELECT 1', 7: { action: 'refuse', message: 'no' } });
    expect(outputs(write('pred.sql', 'SELECT 1\nSELECT 2\tdb\n'))).toEqual({ 0: 'SELECT 1', 1: 'SELECT 2' });
    expect(outputs(write('predict_dev.json', JSON.stringify({ 0: 'SELECT 1\t----- bird -----\tdb' })))).toEqual({ 0: 'SELECT 1' });
  });

  it('a spider --out JSONL: the prediction file its run identity names, checked against its digest', async () => {
    const pred = write('model.sql', 'SELECT 1\nSELECT 2\n');
    const verdicts = write('verdicts.jsonl', '{"i": 0, "db_id": "d", "exec": 1}\n{"i": 1, "db_id": "d", "exec": 0}\n');
    const identity = await identifySpiderRun({ gold: [], goldFile: path.join(dir, 'gold.sql'), predFile: pred, dbDir: dir, policy: resolvePolicy('default'), settings: {} });
    writeFileSync(runFilePathOf(verdicts), JSON.stringify(identity));
    expect(readAuditRun(verdicts)).toMatchObject({ label: 'model', format: 'spider-jsonl' });
    expect(outputs(verdicts)).toEqual({ 0: 'SELECT 1', 1: 'SELECT 2' });
    writeFileSync(pred, 'SELECT 3\n');
    expect(() => readAuditRun(verdicts)).toThrow(`--runs: ${verdicts}: its prediction file ${pred} changed since the run (digest differs from verdicts.jsonl.run.json)`);
    const bare = write('bare.jsonl', '{"i": 0, "db_id": "d", "exec": 1}\n');
    expect(() => readAuditRun(bare)).toThrow(`--runs: ${bare} holds verdicts, not predictions, and has no bare.jsonl.run.json naming its prediction file; pass the prediction file itself`);
  });

  it.each([
    ['a missing file', path.join(dir, 'nope.json'), `--runs: cannot read run file ${path.join(dir, 'nope.json')}: no such file`],
    ['an empty file', 'empty.jsonl', 'is empty'],
    ['JSON lines of something else', 'other.jsonl', 'not a run: expected a promptfoo result, a text2sql-ladder spider --out JSONL, a recording ({"id", "output"} lines) or a prediction file (one SQL per line)'],
    ['a column of a file with one run', 'one.sql#weak', 'holds one run (lines); drop "#weak"'],
  ])('%s is misuse', (_name, spec, message) => {
    write('empty.jsonl', '');
    write('other.jsonl', '{"name": "x"}\n');
    write('one.sql', 'SELECT 1\n');
    expect(() => readAuditRun(spec.startsWith('/') ? spec : path.join(dir, spec))).toThrow(message);
  });
});
