/**
 * Runs one doctest block of the README or docs/ (see examples.test.ts for the tags): the shared
 * runner of `npm test` (every block) and of `npm run test:postgres` (the blocks tagged
 * `postgres`, which need a PostgreSQL server).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT, sessionOf } from './markdown.js';
import type { DocExample } from './markdown.js';

const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/** Package specifiers a snippet may import, mapped to the source entry they stand for. */
const ENTRIES: Record<string, string> = {
  'text2sql-ladder': 'src/index.ts',
  'text2sql-ladder/matchers': 'matchers/index.ts',
  'text2sql-ladder/assertions': 'assertions/index.ts',
};

/** Trailing spaces and trailing blank lines are not part of what a reader compares. */
const tidy = (text: string): string => text.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();

/** Runs doctest blocks; `dispose` removes its temporary folder. */
export interface ExampleRunner {
  run(example: DocExample): void;
  dispose(): void;
}

/**
 * A runner whose commands see `extraEnv` on top of the process's environment, with the CLI
 * (`text2sql-ladder`, run from the sources so that no build is needed) first on the PATH.
 */
export function createExampleRunner(extraEnv: Record<string, string> = {}): ExampleRunner {
  const work = mkdtempSync(path.join(os.tmpdir(), 'docs-examples-'));
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'text2sql-ladder'), `#!/usr/bin/env bash\nexec "${TSX}" "${path.join(ROOT, 'bin', 'text2sql-ladder.ts')}" "$@"\n`);
  chmodSync(path.join(bin, 'text2sql-ladder'), 0o755);
  const env = { ...process.env, ...extraEnv, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' };

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

  return {
    run(example) {
      if (example.lang === 'console') runConsole(example);
      else if (example.lang === 'ts') runTypeScript(example);
      else throw new Error(`${example.page}:${example.line}: doctest blocks are console or ts, not ${example.lang}`);
    },
    dispose() {
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** True for a block tagged `postgres` (`console doctest postgres`): it needs a PostgreSQL server. */
export function needsPostgres(example: DocExample): boolean {
  return example.flags.includes('postgres');
}
