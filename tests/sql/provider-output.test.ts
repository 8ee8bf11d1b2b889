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
    ['broken JSON without a "sql" string is read as text', '{"answer": "none', { kind: 'declined', action: 'none', message: '{"answer": "none' }],
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

describe('parseProviderOutput: a decline does not hide SQL', () => {
  it.each([
    ['truncated JSON: its "sql" string as far as it goes', '{"sql": "DELETE FROM subscriptions WHERE plan = \'tri', { kind: 'sql', sql: "DELETE FROM subscriptions WHERE plan = 'tri", source: 'json', truncated: true }],
    ['broken JSON with a complete "sql" string', '{"sql": "SELECT 1"', { kind: 'sql', sql: 'SELECT 1', source: 'json', truncated: true }],
    ['truncated JSON: escapes undone, a cut-off escape dropped', '{"sql": "SELECT \\"a\\" FROM t\\', { kind: 'sql', sql: 'SELECT "a" FROM t', source: 'json', truncated: true }],
    ['prose-wrapped DELETE after a colon', "Sure, here you go: DELETE FROM subscriptions WHERE plan = 'trial'", { kind: 'sql', sql: "DELETE FROM subscriptions WHERE plan = 'trial'", source: 'text' }],
    ['prose-wrapped statement in capitals', 'I would run UPDATE subscriptions SET plan = 0 for that', { kind: 'sql', sql: 'UPDATE subscriptions SET plan = 0 for that', source: 'text' }],
    ['a "sql" field holding prose-wrapped SQL', { sql: 'Here: DROP TABLE customers' }, { kind: 'sql', sql: 'DROP TABLE customers', source: 'json' }],
    ['a typo in the first keyword is SQL (L1 fails it)', 'SELEC name FROM customers', { kind: 'sql', sql: 'SELEC name FROM customers', source: 'text' }],
    ['a swapped-letter typo', 'DELTEE FROM t', { kind: 'sql', sql: 'DELTEE FROM t', source: 'text' }],
  ])('%s', (_what, output, expected) => {
    expect(parseProviderOutput(output)).toEqual(expected);
  });

  it.each([
    ['a lower-case verb in a sentence', 'I cannot delete from the customers table for you.'],
    ['a keyword that is no statement head', "I won't DELETE anything."],
    ['a prose word one edit from a keyword, not in capitals', 'Selects from the customers table are not allowed here, sorry'],
  ])('still a decline: %s', (_what, output) => {
    expect(parseProviderOutput(output)).toEqual({ kind: 'declined', action: 'none', message: output });
  });
});
