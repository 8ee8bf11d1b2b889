import { describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { closeMatcherEngine, getMatcherEngine, hasMatcherEngine, MATCHER_ENGINE_OPTIONS } from '../../matchers/matcher-engine.js';
import { isLadderError } from '../../src/errors.js';

describe('the matchers\' shared engine', () => {
  it('is not created by the static matchers', () => {
    expect('SELECT 1').toBeSafeSql();
    expect('One row.').toHaveGroundedNumbers([[1]]);
    expect(hasMatcherEngine()).toBe(false);
  });

  it('is created once, lazily, with two children at most and no child before the first statement', () => {
    const engine = getMatcherEngine();
    expect(getMatcherEngine()).toBe(engine);
    expect(hasMatcherEngine()).toBe(true);
    expect(engine.options.poolSize).toBe(MATCHER_ENGINE_OPTIONS.poolSize);
    expect(MATCHER_ENGINE_OPTIONS.poolSize).toBe(2);
    expect(engine.childPids).toEqual([]);
  });

  it('closes, refuses further work, and is replaced on next use', async () => {
    const engine = getMatcherEngine();
    await closeMatcherEngine();
    expect(hasMatcherEngine()).toBe(false);
    const refused: unknown = await engine.execute({ db: 'x.sqlite', sql: 'SELECT 1' }).catch((e: unknown) => e);
    expect(isLadderError(refused, 'engine_closed')).toBe(true);
    const next = getMatcherEngine();
    expect(next).not.toBe(engine);
    await closeMatcherEngine();
    await closeMatcherEngine();
    expect(hasMatcherEngine()).toBe(false);
  });
});
