/**
 * Runs the code examples of the README and docs/ so that they cannot drift from the code.
 *
 * A fenced block is run when its info string is `<lang> doctest`:
 * - `console doctest`: `$ ` lines are shell commands run from the repository root (bash), each
 *   followed by the exact stdout it prints. `text2sql-ladder` is the CLI from the sources.
 *   `exit=N` after `doctest` expects that exit status from the last command (default 0).
 * - `ts doctest`: a TypeScript module run with tsx; imports of `text2sql-ladder` and its
 *   subpaths resolve to the sources. When a ```` ```text output ```` block follows, stdout must equal it.
 * - `postgres` after `doctest`: the block needs a PostgreSQL server; `npm run test:postgres` runs
 *   it (tests-postgres/docs-examples.test.ts), not this file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { examplesOf, markdownPages } from './markdown.js';
import { createExampleRunner, needsPostgres } from './run-example.js';

const runner = createExampleRunner();
afterAll(() => runner.dispose());

const examples = markdownPages().flatMap(examplesOf).filter((example) => !needsPostgres(example));

describe('code examples in the README and docs/', () => {
  it('there are examples of both kinds', () => {
    expect(examples.some((example) => example.lang === 'console')).toBe(true);
    expect(examples.some((example) => example.lang === 'ts')).toBe(true);
  });

  it.each(examples.map((example) => [`${example.page}:${example.line} (${example.lang})`, example] as const))('%s', (_name, example) => {
    runner.run(example);
  }, 240_000);
});
