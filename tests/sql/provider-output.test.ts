import { describe, expect, it } from 'vitest';
import { MAX_DECLINE_MESSAGE_CHARS, parseProviderOutput } from '../../src/sql/provider-output.js';

describe('parseProviderOutput: SQL answers', () => {
  it.each([
    ['plain SQL', 'SELECT 1;', { kind: 'sql', sql: 'SELECT 1', source: 'text' }],
    ['fenced SQL with prose', 'Sure:\n```sql\nSELECT name FROM t;\n```\nDone.', { kind: 'sql', sql: 'SELECT name FROM t', source: 'fence' }],
    ['JSON string', '{"sql": "SELECT 1", "answer": "One.", "tables": ["t", 3], "probes": ["SELECT 2"]}', { kind: 'sql', sql: 'SELECT 1', answer: 'One.', tables: ['t'], probes: ['SELECT 2'], source: 'json' }],
    ['fenced JSON', '```json\n{"sql": "SELECT 1"}\n```', { kind: 'sql', sql: 'SELECT 1', source: 'json' }],
    ['JSON object', { sql: '```sql\nSELECT 2\n```', answer: 'Two.' }, { kind: 'sql', sql: 'SELECT 2', answer: 'Two.', source: 'json' }],
    ['two statements kept for L3', 'SELECT 1; DROP TABLE t;', { kind: 'sql', sql: 'SELECT 1; DROP TABLE t', source: 'text' }],
  ])('%s', (_what, output, expected) => {
    expect(parseProviderOutput(output)).toEqual(expected);
  });
});

describe('parseProviderOutput: declining', () => {
  it.each([
    ['clarify object', { action: 'clarify', message: 'Which year?' }, { kind: 'declined', action: 'clarify', message: 'Which year?' }],
    ['refuse JSON string', '{"action": "refuse", "message": "Not allowed."}', { kind: 'declined', action: 'refuse', message: 'Not allowed.' }],
    ['action wins over sql', { action: 'refuse', message: 'No.', sql: 'DROP TABLE t' }, { kind: 'declined', action: 'refuse', message: 'No.' }],
    ['clarify without message', { action: 'clarify' }, { kind: 'declined', action: 'clarify', message: '' }],
    ['prose without SQL', '  I cannot answer that.  ', { kind: 'declined', action: 'none', message: 'I cannot answer that.' }],
    ['empty text', '', { kind: 'declined', action: 'none', message: '' }],
    ['JSON with an empty sql', '{"sql": ""}', { kind: 'declined', action: 'none', message: '' }],
    ['null output', null, { kind: 'declined', action: 'none', message: '' }],
    ['undefined output', undefined, { kind: 'declined', action: 'none', message: '' }],
    ['broken JSON is read as text', '{"sql": "SELECT 1"', { kind: 'declined', action: 'none', message: '{"sql": "SELECT 1"' }],
    ['unknown action is not a protocol object', { action: 'shrug', message: 'meh' }, { kind: 'declined', action: 'none', message: '{"action":"shrug","message":"meh"}' }],
  ])('%s', (_what, output, expected) => {
    expect(parseProviderOutput(output)).toEqual(expected);
  });
});

describe('parseProviderOutput: bounded and never throwing', () => {
  it('cuts a long decline message to MAX_DECLINE_MESSAGE_CHARS characters', () => {
    const prose = 'I cannot. '.repeat(1_000);
    expect(parseProviderOutput(prose)).toEqual({
      kind: 'declined',
      action: 'none',
      message: `${prose.trim().slice(0, MAX_DECLINE_MESSAGE_CHARS)}… (+${prose.trim().length - MAX_DECLINE_MESSAGE_CHARS} characters)`,
    });
  });

  it('reads an object JSON cannot render (a cycle, a bigint) as its String()', () => {
    const cyclic: Record<string, unknown> = { note: 'x' };
    cyclic['self'] = cyclic;
    expect(parseProviderOutput(cyclic)).toEqual({ kind: 'declined', action: 'none', message: '[object Object]' });
    expect(parseProviderOutput({ sql: 1n })).toEqual({ kind: 'declined', action: 'none', message: '[object Object]' });
  });
});
