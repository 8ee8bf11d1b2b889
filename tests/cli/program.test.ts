/**
 * The program loads only the subcommand a command line names; the others are listed in the
 * top-level help from their summaries, which must read as the loaded commands' descriptions.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProgram, SUBCOMMANDS, subcommandsNeeded } from '../../src/cli/program.js';

const argv = (...args: string[]): string[] => ['node', 'text2sql-ladder', ...args];

describe('subcommandsNeeded', () => {
  it('is the first argument that is not an option, or the target of help', () => {
    expect([...subcommandsNeeded(argv('spider', '--gold', 'g'))]).toEqual(['spider']);
    expect([...subcommandsNeeded(argv('--help'))]).toEqual([]);
    expect([...subcommandsNeeded(argv())]).toEqual([]);
    expect([...subcommandsNeeded(argv('help', 'check'))]).toEqual(['check']);
    expect([...subcommandsNeeded(argv('help'))]).toEqual([]);
    expect([...subcommandsNeeded(argv('fixtures', 'strength', '--dataset', 'd.yaml'))]).toEqual(['fixtures']);
  });
});

describe('createProgram', () => {
  it('loads the named subcommand with its options and lists the others by summary', async () => {
    const program = await createProgram(undefined, argv('check', '--db', 'x'));
    const names = program.commands.map((command) => command.name());
    expect(names).toEqual(['spider', 'check', 'compare', 'fixtures', 'init', 'audit']);
    const check = program.commands.find((command) => command.name() === 'check')!;
    expect(check.options.map((option) => option.long)).toContain('--db');
    const spider = program.commands.find((command) => command.name() === 'spider')!;
    expect(spider.options).toEqual([]);
  });

  it('has a summary for each subcommand equal to its loaded description', async () => {
    const program = await createProgram();
    for (const entry of SUBCOMMANDS) {
      const command = program.commands.find((candidate) => candidate.name() === entry.name)!;
      expect(command.description()).toBe(entry.summary);
      expect(command.commands.length + command.options.length).toBeGreaterThan(0);
    }
  });
});

describe('bin/text2sql-ladder --version', () => {
  it('prints the package version (answered before the program loads)', () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = spawnSync(process.execPath, ['--import', tsx, 'bin/text2sql-ladder.ts', flag], { encoding: 'utf8', timeout: 60_000 });
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});
