import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import ReplayProvider, { loadRecording } from '../../src/promptfoo/replay-provider.js';

const dir = mkdtempSync(path.join(tmpdir(), 'replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function write(name: string, text: string): string {
  writeFileSync(path.join(dir, name), text);
  return name;
}

/** The provider's outcome for a test: its output, or the ERROR row's message. */
async function call(provider: ReplayProvider, vars: Record<string, unknown>): Promise<unknown> {
  const response = await provider.callApi('prompt', { vars });
  return 'error' in response ? { error: response.error } : response.output;
}

describe('ReplayProvider options', () => {
  it.each([
    [{}, 'providers/replay: config.predictions must be the path of a recording file; received undefined'],
    [{ predictions: 'x.jsonl', format: 'csv' }, 'providers/replay: config.format must be one of "jsonl", "lines", "bird"; received a string ("csv")'],
    [{ predictions: 'x.jsonl', key: '' }, 'providers/replay: config.key must be a var name; received a string ("")'],
    [{ predictons: 'x.jsonl' }, 'providers/replay: config.predictons is not an option (did you mean config.predictions?); known options: predictions, format, key, basePath'],
    [{ predictions: 'nope.jsonl' }, `config.predictions: cannot read recording ${path.join(dir, 'nope.jsonl')}: no such file`],
  ])('config %j → an ERROR row for every test: %s', async (config, message) => {
    const provider = new ReplayProvider({ config: { basePath: dir, ...config } });
    expect(provider.problem?.message).toBe(message);
    expect(await call(provider, { id: 'q1' })).toEqual({ error: message });
  });

  it('a malformed recording: every test is an ERROR row naming file:line, nothing is thrown', async () => {
    write('broken.jsonl', '{"id":"a","output":"SELECT 1"}\n{oops\n');
    const provider = new ReplayProvider({ config: { basePath: dir, predictions: 'broken.jsonl' } });
    expect(await call(provider, { id: 'a' })).toEqual({ error: expect.stringMatching(/\/broken\.jsonl:2: not valid JSON/) });
  });

  it.each([
    ['bad.jsonl', '{"id":"a","output":"SELECT 1"}\n{oops\n', /\/bad\.jsonl:2: not valid JSON/],
    ['dup.jsonl', '{"id":"a","output":"SELECT 1"}\n\n{"id":"a","output":"SELECT 2"}\n', /\/dup\.jsonl:3: duplicate id "a"$/],
    ['noout.jsonl', '{"id":"a"}\n', /\/noout\.jsonl:1: item a has no "output"$/],
    ['arr.jsonl', '[1]\n', /\/arr\.jsonl:1: expected an object/],
    ['steps.jsonl', '{"id":"a","output":{"sql":"SELECT 1","steps":[{"kind":"schema"},{"kind":"sql","sql":"SELECT 1","rowcount":1}]}}\n', /\/steps\.jsonl:1 \(item a\): trajectory: step 2 \(sql\): "rowcount" is not a field of a sql step \(did you mean "rowCount"\?\); fields: sql, error, rowCount$/],
  ])('malformed recording %s names file:line', (name, text, message) => {
    write(name, text);
    expect(() => loadRecording(path.join(dir, name))).toThrow(message);
  });
});

describe('ReplayProvider.callApi', () => {
  const file = write('run.jsonl', ['{"id":"q1","output":"SELECT 1"}', '{"id":"q2","output":{"action":"clarify","message":"Which year?"}}', ''].join('\n'));

  it('replays by the id var, relative to basePath, objects kept as objects', async () => {
    const provider = new ReplayProvider({ id: 'file://providers/replay.ts', config: { predictions: file, basePath: dir } });
    expect(provider.id()).toBe('replay:run.jsonl');
    expect(await provider.callApi('prompt', { vars: { id: 'q1' } })).toEqual({ output: 'SELECT 1', metadata: { replay: { file: 'run.jsonl', key: 'q1', missing: false } } });
    expect(await call(provider, { id: 'q2' })).toEqual({ action: 'clarify', message: 'Which year?' });
  });

  it('replays a recorded trajectory as it was recorded', async () => {
    const recorded = { sql: 'SELECT 1', steps: [{ kind: 'schema', call: 'list_tables' }, { kind: 'sql', sql: 'SELECT 1', rowCount: 1 }] };
    const trajectory = write('agent.jsonl', `${JSON.stringify({ id: 'q1', output: JSON.stringify(recorded) })}\n`);
    const provider = new ReplayProvider({ config: { predictions: trajectory, basePath: dir } });
    expect(JSON.parse((await call(provider, { id: 'q1' })) as string)).toEqual(recorded);
  });

  it('a missing prediction is a flagged output, not an error', async () => {
    const provider = new ReplayProvider({ id: 'strong', config: { predictions: file, basePath: dir } });
    expect(provider.id()).toBe('strong');
    expect(await provider.callApi('prompt', { vars: { id: 'q9' } })).toEqual({
      output: '[no recorded prediction for item q9 in run.jsonl]',
      metadata: { replay: { file: 'run.jsonl', key: 'q9', missing: true } },
    });
  });

  it('a test without the key var is an ERROR row', async () => {
    const provider = new ReplayProvider({ config: { predictions: file, basePath: dir } });
    expect(await call(provider, {})).toEqual({ error: 'providers/replay: the test has no var "id" to look up a prediction (config.key)' });
  });

  it('reads Spider line files by 0-based index, dropping a trailing tab field', async () => {
    const lines = write('pred.sql', 'SELECT count(*) FROM singer\tconcert_singer\n\nSELECT name FROM singer\n');
    const provider = new ReplayProvider({ config: { predictions: lines, basePath: dir } });
    expect(provider.keyVar).toBe('index');
    const outputs = await Promise.all([0, 1, 2, 3].map((index) => call(provider, { index })));
    expect(outputs).toEqual(['SELECT count(*) FROM singer', '', 'SELECT name FROM singer', '[no recorded prediction for item 3 in pred.sql]']);
  });

  it('reads BIRD prediction objects', async () => {
    const bird = write('predict_dev.json', JSON.stringify({ '0': 'SELECT 1\t----- bird -----\tcalifornia_schools', '1': 'SELECT 2' }));
    const provider = new ReplayProvider({ config: { predictions: bird, basePath: dir } });
    expect(await call(provider, { index: 0 })).toBe('SELECT 1');
    expect(await call(provider, { index: '1' })).toBe('SELECT 2');
  });
});
