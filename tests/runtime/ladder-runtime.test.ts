import { describe, expect, it } from 'vitest';
import { isLadderError } from '../../src/errors.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';

describe('createLadderRuntime: one engine, gold cache and fixture cache per front end', () => {
  it('creates the engine on first use, keeps it, and creates a new one after close', async () => {
    const runtime = createLadderRuntime({ engine: { poolSize: 1 } });
    expect(runtime.hasEngine()).toBe(false);
    const engine = runtime.engine();
    expect(runtime.engine()).toBe(engine);
    const outcome = await engine.execute({ db: ':memory:', sql: 'SELECT 1' }).catch((error: unknown) => error);
    expect(isLadderError(outcome, 'invalid_option')).toBe(true); // the engine validates its requests
    await runtime.close();
    expect(runtime.hasEngine()).toBe(false);
    const next = runtime.engine();
    expect(next).not.toBe(engine);
    await runtime.close();
    await runtime.close(); // idempotent
  });

  it('resolves a fixture once per (name, role); the gold cache outlives a close', async () => {
    const runtime = createLadderRuntime();
    const first = runtime.resolveFixture('warehouse', 'analyst');
    expect(runtime.resolveFixture('warehouse', 'analyst')).toBe(first);
    expect(runtime.resolveFixture('warehouse')).not.toBe(first);
    expect((await first).snapshots.map((snapshot) => snapshot.name)).toEqual(['base', 'later', 'edge']);
    const cache = runtime.goldCache;
    await runtime.close();
    expect(runtime.goldCache).toBe(cache);
  });

  it('a failed resolution is misuse and is not cached', async () => {
    const runtime = createLadderRuntime();
    const failed = runtime.resolveFixture('warehous');
    await expect(failed).rejects.toSatisfy((error: unknown) => isLadderError(error, 'unknown_fixture'));
    expect(runtime.resolveFixture('warehous')).not.toBe(failed);
    await runtime.resolveFixture('warehous').catch(() => undefined);
  });
});
