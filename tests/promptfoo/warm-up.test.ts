import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { warmLadderRuntime } from '../../src/promptfoo/warm-up.js';
import { resolveFixture } from '../../src/fixtures/registry.js';

function childrenOfThisProcess(): number[] {
  const tasks = readdirSync(`/proc/${process.pid}/task`);
  return tasks.flatMap((tid) => readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
}

const engine = createSqliteEngine();
afterAll(() => engine.close());

describe('warmLadderRuntime', () => {
  it('starts one engine child that the first engine with the default memory cap adopts; a second call starts none', async () => {
    const before = new Set(childrenOfThisProcess());
    warmLadderRuntime();
    warmLadderRuntime();
    const ahead = childrenOfThisProcess().filter((pid) => !before.has(pid));
    expect(ahead).toHaveLength(1);
    const db = (await resolveFixture('warehouse')).snapshots[0]!.path;
    expect((await engine.execute({ db, sql: 'SELECT 1' })).ok).toBe(true);
    expect(engine.childPids).toEqual(ahead);
  });

  it('starts importing the assertion module it is given: a later import of the same file finds it loaded, evaluated once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-warm-up-'));
    try {
      const file = path.join(dir, 'assertion.mjs');
      writeFileSync(file, 'globalThis.__ladderWarmUpLoads = (globalThis.__ladderWarmUpLoads ?? 0) + 1;\nexport const loads = globalThis.__ladderWarmUpLoads;\n');
      const loads = (): unknown => (globalThis as { __ladderWarmUpLoads?: number }).__ladderWarmUpLoads;
      warmLadderRuntime(file);
      await vi.waitFor(() => expect(loads()).toBe(1));
      const imported = (await import(pathToFileURL(file).href)) as { loads: number };
      expect(imported.loads).toBe(1);
      expect(loads()).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a module that cannot load to the later import, which reports it', async () => {
    const missing = path.join(os.tmpdir(), 'ladder-warm-up-missing', 'assertion.mjs');
    warmLadderRuntime(missing);
    await expect(import(pathToFileURL(missing).href)).rejects.toThrow('Cannot find module');
  });
});
