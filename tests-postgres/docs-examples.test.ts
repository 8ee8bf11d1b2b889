/**
 * The docs' examples that need a PostgreSQL server (`console doctest postgres`, `ts doctest
 * postgres`; tests/docs/examples.test.ts runs the others): their commands start a private server
 * in a cache folder of the run's temporary folder, as a user's first run would.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesOf, markdownPages } from '../tests/docs/markdown.js';
import { createExampleRunner, needsPostgres } from '../tests/docs/run-example.js';
import { testDir } from './helpers.js';

const runner = createExampleRunner({ TEXT2SQL_LADDER_CACHE_DIR: path.join(testDir, 'docs-cache'), TEXT2SQL_LADDER_POSTGRES_URL: '' });
afterAll(() => runner.dispose());

const examples = markdownPages().flatMap(examplesOf).filter(needsPostgres);

describe('code examples on PostgreSQL in the README and docs/', () => {
  it('there are some', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples.map((example) => [`${example.page}:${example.line} (${example.lang})`, example] as const))('%s', (_name, example) => {
    runner.run(example);
  }, 240_000);
});
