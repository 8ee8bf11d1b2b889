import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
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
});
