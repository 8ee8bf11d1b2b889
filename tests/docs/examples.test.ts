/**
 * Runs the code examples of the README and docs/ so that they cannot drift from the code.
 *
 * A fenced block is run when its info string is `<lang> doctest`:
 * - `console doctest`: `$ ` lines are shell commands run from the repository root (bash), each
 *   followed by the exact stdout it prints. `text2sql-ladder` is the CLI from the sources.
 *   `exit=N` after `doctest` expects that exit status from the last command (default 0).
 * - `ts doctest`: a TypeScript module run with tsx; imports of `text2sql-ladder` and its
 *   subpaths resolve to the sources. When a ```` ```text output ```` block follows, stdout must equal it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, examplesOf, markdownPages, sessionOf } from './markdown.js';
import type { DocExample } from './markdown.js';

const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const work = mkdtempSync(path.join(os.tmpdir(), 'docs-examples-'));
const bin = path.join(work, 'bin');
mkdirSync(bin);
// The CLI as users of a clone run it, but from the sources so that the test needs no build.
writeFileSync(path.join(bin, 'text2sql-ladder'), `#!/usr/bin/env bash\nexec "${TSX}" "${path.join(ROOT, 'bin', 'text2sql-ladder.ts')}" "$@"\n`);
chmodSync(path.join(bin, 'text2sql-ladder'), 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Package specifiers a snippet may import, mapped to the source entry they stand for. */
const ENTRIES: Record<string, string> = {
  'text2sql-ladder': 'src/index.ts',
  'text2sql-ladder/matchers': 'matchers/index.ts',
  'text2sql-ladder/assertions': 'assertions/index.ts',
};

const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' };

/** Trailing spaces and trailing blank lines are not part of what a reader compares. */
const tidy = (text: string): string => text.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();

function runConsole(example: DocExample): void {
  const steps = sessionOf(example);
  const expectedExit = Number(example.flags.find((flag) => flag.startsWith('exit='))?.slice(5) ?? 0);
  steps.forEach((step, index) => {
    const result = spawnSync('bash', ['-o', 'pipefail', '-c', step.command], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    const where = `${example.page}:${example.line}: $ ${step.command}`;
    expect(tidy(result.stdout), where).toBe(tidy(step.output));
    expect(result.status, `${where}\n${result.stderr}`).toBe(index === steps.length - 1 ? expectedExit : 0);
  });
}

function runTypeScript(example: DocExample): void {
  const source = example.code.replace(/from '(text2sql-ladder(?:\/[a-z]+)?)'/g, (whole, specifier: string) => {
    const entry = ENTRIES[specifier];
    if (entry === undefined) throw new Error(`${example.page}:${example.line}: unknown entry ${specifier}`);
    return `from '${path.join(ROOT, entry)}'`;
  });
  const file = path.join(work, `${path.basename(example.page, '.md')}-${example.line}.mts`);
  writeFileSync(file, source);
  const result = spawnSync(TSX, [file], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  const where = `${example.page}:${example.line}`;
  expect(result.status, `${where}\n${result.stderr}`).toBe(0);
  if (example.expectedOutput !== undefined) expect(tidy(result.stdout), where).toBe(tidy(example.expectedOutput));
}

const examples = markdownPages().flatMap(examplesOf);

describe('code examples in the README and docs/', () => {
  it('there are examples of both kinds', () => {
    expect(examples.some((example) => example.lang === 'console')).toBe(true);
    expect(examples.some((example) => example.lang === 'ts')).toBe(true);
  });

  it.each(examples.map((example) => [`${example.page}:${example.line} (${example.lang})`, example] as const))('%s', (_name, example) => {
    if (example.lang === 'console') runConsole(example);
    else if (example.lang === 'ts') runTypeScript(example);
    else throw new Error(`${example.page}:${example.line}: doctest blocks are console or ts, not ${example.lang}`);
  }, 240_000);
});
