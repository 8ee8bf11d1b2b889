import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { identifyPromptfooColumns, recordPromptfooRunIdentities, withRunIdentities, type FixtureSnapshotResolver } from '../../src/report/promptfoo-run-identity.js';
import { digestOf } from '../../src/report/run-identity.js';
import type { PromptfooRow } from '../../src/report/promptfoo-rows.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pf-identity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dbFile = path.join(dir, 'shop.sqlite');
writeFileSync(dbFile, 'not really a database, but bytes to hash');
const datasetFile = path.join(dir, 'items.yaml');
writeFileSync(datasetFile, '- id: a\n');

/** A resolver with fixed checksums; `broken` is an unknown fixture. */
const resolver: FixtureSnapshotResolver = async (name, role) => {
  if (name === 'broken') throw new Error('unknown fixture "broken"');
  const suffix = role === undefined ? '' : `@${role}`;
  return { snapshots: ['base', 'edge'].map((snapshot) => ({ name: snapshot, checksum: `${snapshot}${suffix}`.padEnd(64, '0') })) };
};

const row = (promptIdx: number, id: string, vars: Record<string, unknown>, label = promptIdx === 0 ? 'gpt' : 'replay'): PromptfooRow => ({
  promptIdx,
  provider: { id: promptIdx === 0 ? 'openai:chat:gpt-4.1-mini' : 'replay:x.jsonl', label },
  prompt: { raw: `prompt ${id}`, label: 'p' },
  testCase: { vars: { id, ...vars }, metadata: { id, tags: ['k:v'], source: `${datasetFile}:1` } },
});

const rows = [
  row(0, 'a', { db: 'warehouse', snapshots: ['edge'], as_of_date: '2025-07-01' }),
  row(0, 'b', { db: 'warehouse', role: 'finance' }),
  row(0, 'c', { db_path: dbFile }),
  row(0, 'd', { db: 'broken' }),
  row(1, 'a', { db: 'warehouse', snapshots: ['edge'], as_of_date: '2025-07-01' }),
];
const context = {
  results: rows,
  prompts: [{ provider: 'gpt', label: 'p', id: 'f'.repeat(64) }, { provider: 'replay', label: 'p', id: 'f'.repeat(64) }],
  config: { providers: [{ id: 'openai:chat:gpt-4.1-mini', label: 'gpt', config: { temperature: 0, max_tokens: 512, apiKey: 'sk-secret-secret-secret-secret' } }, 'echo'] } as { providers: unknown; metadata?: Record<string, unknown> },
};

describe('identifyPromptfooColumns', () => {
  it('per column: dataset, snapshots as the items name them, provider with model and redacted settings', async () => {
    const [gpt, replay] = await identifyPromptfooColumns(context, { resolveFixture: resolver, recordedAt: new Date('2025-01-02T03:04:05Z') });
    expect(gpt!.identity).toEqual({
      format: 'text2sql-ladder.run-identity/1',
      tool: { name: 'text2sql-ladder', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      source: 'promptfoo',
      recordedAt: '2025-01-02T03:04:05.000Z',
      dataset: { contentHash: expect.stringMatching(/^sha256:/), items: 4, files: [{ path: datasetFile, hash: digestOf('- id: a\n') }] },
      snapshots: [
        { database: dbFile, role: null, name: 'shop', hash: digestOf('not really a database, but bytes to hash') },
        { database: 'warehouse', role: null, name: 'edge', hash: `sha256:${'edge'.padEnd(64, '0')}` },
        { database: 'warehouse', role: 'finance', name: 'base', hash: `sha256:${'base@finance'.padEnd(64, '0')}` },
        { database: 'warehouse', role: 'finance', name: 'edge', hash: `sha256:${'edge@finance'.padEnd(64, '0')}` },
      ],
      policies: [],
      prompt: { label: 'p', id: `sha256:${'f'.repeat(64)}`, renderedHash: expect.stringMatching(/^sha256:/) },
      provider: { label: 'gpt', id: 'openai:chat:gpt-4.1-mini', model: 'gpt-4.1-mini', settings: { temperature: 0, max_tokens: 512 } },
      asOfDates: ['2025-07-01'],
      settings: {},
    });
    expect(replay!.identity.provider).toEqual({ label: 'replay', id: 'replay:x.jsonl', model: null, settings: {} });
    expect(replay!.identity.dataset.items).toBe(1);
  });

  it('the dataset hash does not depend on the provider or its output, only on the tests', async () => {
    const other = await identifyPromptfooColumns({ results: [{ ...rows[4]!, provider: { id: 'z', label: 'z' }, promptIdx: 0 }] }, { resolveFixture: resolver });
    const [, replay] = await identifyPromptfooColumns(context, { resolveFixture: resolver });
    expect(other[0]!.identity.dataset.contentHash).toBe(replay!.identity.dataset.contentHash);
  });
});

describe('recordPromptfooRunIdentities', () => {
  it('stores the identities in config.metadata.text2sqlLadder (creating metadata) and returns them', async () => {
    const config = { providers: context.config.providers } as { providers: unknown; metadata?: Record<string, unknown> };
    const columns = await recordPromptfooRunIdentities({ ...context, config }, { resolveFixture: resolver });
    expect(config.metadata).toEqual({ text2sqlLadder: { format: 'text2sql-ladder.promptfoo-runs/1', columns } });
    expect(columns.map((column) => [column.promptIdx, column.provider, column.prompt])).toEqual([[0, 'gpt', 'p'], [1, 'replay', 'p']]);
    const kept = { metadata: { owner: 'me' } } as { providers?: unknown; metadata?: Record<string, unknown> };
    await recordPromptfooRunIdentities({ results: rows.slice(0, 1), config: kept }, { resolveFixture: resolver });
    expect(Object.keys(kept.metadata!)).toEqual(['owner', 'text2sqlLadder']);
  });

  it('withRunIdentities gives each provider summary its columns', async () => {
    const columns = await identifyPromptfooColumns(context, { resolveFixture: resolver });
    const summaries = withRunIdentities([{ provider: 'gpt', items: 4 }, { provider: 'other', items: 0 }], columns);
    expect(summaries.map((summary) => [summary.provider, summary.runs.map((identity) => identity.provider.label)])).toEqual([['gpt', ['gpt']], ['other', []]]);
  });
});
