import { describe, expect, it } from 'vitest';
import type { Engine, ExecuteRequest } from '../../src/engine/engine.js';
import { closeSharedEngine, getSharedEngine, sharedGoldCache, withRequestDefaults } from '../../src/promptfoo/runtime.js';

describe('shared engine', () => {
  it('is one per process until closed; closing ends its children and the next call starts a new one', async () => {
    const first = getSharedEngine();
    expect(getSharedEngine()).toBe(first);
    // A missing file starts a child and answers db_not_found (the engine never creates a database).
    const missing = await first.execute({ db: '/nonexistent/ladder.sqlite', sql: 'SELECT 1' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'db_not_found' } });
    await closeSharedEngine();
    await expect(first.execute({ db: '/nonexistent/ladder.sqlite', sql: 'SELECT 1' })).rejects.toMatchObject({ code: 'engine_closed' });
    const second = getSharedEngine();
    expect(second).not.toBe(first);
    await closeSharedEngine();
    await closeSharedEngine();
  });

  it('keeps one gold cache per process', () => {
    expect(sharedGoldCache()).toBe(sharedGoldCache());
  });
});

describe('withRequestDefaults', () => {
  function recording(seen: ExecuteRequest[]): Engine {
    const record = async (request: ExecuteRequest) => {
      seen.push(request);
      return { ok: false as const, error: { code: 'engine_failure' as const, message: 'not run' } };
    };
    return { dialect: 'sqlite', execute: record, prepare: record, explain: record, catalog: async () => ({ tables: [] }), close: async () => undefined };
  }

  it('fills only the fields a request leaves out, and its close() leaves the shared engine alone', async () => {
    const seen: ExecuteRequest[] = [];
    const base = recording(seen);
    const view = withRequestDefaults(base, { timeoutMs: 500, doubleQuotes: 'strict' });
    await view.execute({ db: 'a.db', sql: 'SELECT 1' });
    await view.prepare({ db: 'a.db', sql: 'SELECT 2', timeoutMs: 9 });
    await view.explain({ db: 'a.db', sql: 'SELECT 3', doubleQuotes: 'legacy' });
    expect(seen).toEqual([
      { db: 'a.db', sql: 'SELECT 1', timeoutMs: 500, doubleQuotes: 'strict' },
      { db: 'a.db', sql: 'SELECT 2', timeoutMs: 9, doubleQuotes: 'strict' },
      { db: 'a.db', sql: 'SELECT 3', timeoutMs: 500, doubleQuotes: 'legacy' },
    ]);
    await view.close();
    expect(withRequestDefaults(base, {})).toBe(base);
  });
});
