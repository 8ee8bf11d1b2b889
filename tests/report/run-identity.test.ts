import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf, hashDatasetItems, modelIdOf, parseRunIdentity, readPackageVersion, redactSettings, short, sortSnapshots } from '../../src/report/run-identity.js';

describe('canonicalJson and hashDatasetItems', () => {
  it('sorts keys at every level and drops undefined members; arrays keep their order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"z":1}]},"b":1}');
  });

  it('the dataset hash ignores item and key order but not content', () => {
    const a = { id: 'q1', content: { vars: { question: 'How many?', db: 'warehouse' }, tags: ['x'] } };
    const b = { id: 'q2', content: { vars: { db: 'warehouse', question: 'Which?' }, tags: [] } };
    const hash = hashDatasetItems([a, b]);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hashDatasetItems([b, { id: 'q1', content: { tags: ['x'], vars: { db: 'warehouse', question: 'How many?' } } }])).toBe(hash);
    expect(hashDatasetItems([a, { ...b, content: { ...b.content, tags: ['y'] } }])).not.toBe(hash);
    // The definition: sha256 of the canonical JSON of [{ id, content }] sorted by id.
    expect(hash).toBe(`sha256:${createHash('sha256').update(canonicalJson([a, b])).digest('hex')}`);
  });

  it('digests carry the algorithm, which keeps promptfoo from redacting them; short() keeps 12 hex digits', () => {
    expect(digestOf('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(short(digestOf(''))).toBe('sha256:e3b0c44298fc');
    expect(short('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')).toBe('sha256:e3b0c44298fc');
  });

  it('the package version comes from package.json', () => {
    expect(readPackageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('modelIdOf', () => {
  it.each<[string | null, Record<string, never> | { model: string }, string | null]>([
    ['openai:chat:gpt-4.1-mini', {}, 'gpt-4.1-mini'],
    ['openai:gpt-4o', {}, 'gpt-4o'],
    ['anthropic:messages:claude-sonnet-4-20250514', {}, 'claude-sonnet-4-20250514'],
    ['ollama:chat:qwen2.5-coder:7b', {}, 'qwen2.5-coder:7b'],
    ['bedrock:converse:anthropic.claude-3-haiku', {}, 'anthropic.claude-3-haiku'],
    ['replay:warehouse-weak.jsonl', {}, null],
    ['file://providers/my-agent.ts', {}, null],
    ['https://api.example.com/v1', {}, null],
    ['echo', {}, null],
    ['file://providers/my-agent.ts', { model: 'gpt-4.1' }, 'gpt-4.1'],
    [null, {}, null],
  ])('%s → %s', (id, settings, model) => {
    expect(modelIdOf(id, settings)).toBe(model);
  });
});

describe('redactSettings', () => {
  it('keeps generation settings and drops credentials at every depth', () => {
    expect(
      redactSettings({
        temperature: 0,
        max_tokens: 1024,
        maxTokens: 10,
        apiKey: 'x',
        api_key: 'x',
        apiKeyEnvar: 'OPENAI_API_KEY',
        headers: { Authorization: 'Bearer y' },
        token: 't',
        nested: { password: 'p', top_p: 0.9, note: 'sk-abcdefghijklmnopqrstuvwxyz' },
        stop: ['\n\n'],
        fn: () => 1,
        big: Number.POSITIVE_INFINITY,
      }),
    ).toEqual({ temperature: 0, max_tokens: 1024, maxTokens: 10, nested: { top_p: 0.9 }, stop: ['\n\n'] });
    expect(redactSettings(undefined)).toEqual({});
    expect(redactSettings('openai:gpt-4o')).toEqual({});
  });
});

describe('sortSnapshots', () => {
  it('sorts by database, role, name and drops duplicates', () => {
    const s = (database: string, role: string | null, name: string) => ({ database, role, name, hash: null });
    expect(sortSnapshots([s('w', 'finance', 'base'), s('w', null, 'edge'), s('w', null, 'base'), s('w', null, 'edge')])).toEqual([s('w', null, 'base'), s('w', null, 'edge'), s('w', 'finance', 'base')]);
  });
});

describe('parseRunIdentity', () => {
  const valid = { format: 'text2sql-ladder.run-identity/1', dataset: { contentHash: 'sha256:1' }, snapshots: [{ database: 'w', name: 'base' }], policies: [], provider: { label: 'weak' } };
  it.each<[string, unknown, string]>([
    ['not an object', [], 'f: run identity field (top level) must be an object'],
    ['another format', { ...valid, format: 'v0' }, 'f: run identity field format must be "text2sql-ladder.run-identity/1" (received "v0")'],
    ['no dataset hash', { ...valid, dataset: {} }, 'f: run identity field dataset.contentHash must be a string'],
    ['a bad snapshot', { ...valid, snapshots: [{ name: 'x' }] }, 'f: run identity field snapshots[0] must be an object with database and name'],
    ['no provider label', { ...valid, provider: {} }, 'f: run identity field provider.label must be a string'],
  ])('%s', (_name, value, message) => {
    expect(() => parseRunIdentity(value, 'f')).toThrow(message);
  });
  it('accepts a valid identity', () => {
    expect(parseRunIdentity(valid, 'f')).toBe(valid);
  });
});
