/**
 * The program loads only the subcommand a command line names; the others are listed in the
 * top-level help from their summaries, which must read as the loaded commands' descriptions.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram, startAhead, SUBCOMMANDS, subcommandsNeeded } from '../../src/cli/program.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const RECORDER = pathToFileURL(path.join(ROOT, 'tests/helpers/record-modules.mjs')).href;

/**
 * Runs `bin/text2sql-ladder.ts ...args` from the sources and returns its exit status with the
 * project modules it loaded (paths under the repository, sorted), recorded by a loader hook.
 */
function projectModulesLoaded(args: readonly string[]): { status: number | null; modules: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-modules-'));
  try {
    const list = path.join(dir, 'modules.txt');
    const run = spawnSync(process.execPath, ['--import', TSX, '--import', RECORDER, 'bin/text2sql-ladder.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, RECORD_MODULES_TO: list },
    });
    const urls = readFileSync(list, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
    const inRepo = urls.map((url) => path.relative(ROOT, fileURLToPath(url))).filter((file) => !file.startsWith('..') && !file.startsWith('node_modules'));
    return { status: run.status, modules: [...new Set(inRepo)].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What every run that builds the program loads: the program, its I/O rules and their helpers. */
const PROGRAM_MODULES = ['bin/text2sql-ladder.ts', 'src/cli/cli-io.ts', 'src/cli/program.ts', 'src/errors.ts', 'src/fixtures/package-root.ts', 'src/format.ts'];

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
      expect(new Help().subcommandTerm(command)).toBe(entry.term);
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

describe('what a start-up loads', () => {
  it('--version loads no project module but the bin; --help and help loads no subcommand module', () => {
    expect(projectModulesLoaded(['--version'])).toEqual({ status: 0, modules: ['bin/text2sql-ladder.ts'] });
    expect(projectModulesLoaded(['--help'])).toEqual({ status: 0, modules: PROGRAM_MODULES });
    expect(projectModulesLoaded([])).toMatchObject({ modules: PROGRAM_MODULES });
  });

  it('help <command> loads that subcommand module and no other', () => {
    const { status, modules } = projectModulesLoaded(['help', 'compare']);
    expect(status).toBe(0);
    expect(modules.filter((file) => file.startsWith('src/cli/'))).toEqual(['src/cli/cli-io.ts', 'src/cli/compare.ts', 'src/cli/program.ts']);
  });
});

describe('startAhead', () => {
  /** Process ids of this process's children. */
  const children = (): number[] =>
    readdirSync(`/proc/${process.pid}/task`).flatMap((tid) => readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));

  it('starts one engine child for a command line that runs SQLite, none for the others, and the engine adopts it', async () => {
    const before = children();
    await startAhead(argv('check', '--dialect', 'snowflake', '--db', 'schema.sql'));
    await startAhead(argv('check', '--dialect=postgres', '--db', 'schema.sql'));
    await startAhead(argv('spider', '--help'));
    await startAhead(argv('compare', 'a.jsonl', 'b.jsonl'));
    await startAhead(argv('--version'));
    expect(children()).toEqual(before);
    await startAhead(argv('check', '--db', 'warehouse'));
    await startAhead(argv('spider', '--gold', 'g.sql'));
    const ahead = children().filter((pid) => !before.includes(pid));
    expect(ahead).toHaveLength(1);
    const engine = createSqliteEngine({ poolSize: 1 });
    engine.warm(1);
    expect(engine.childPids).toEqual(ahead);
    await engine.close();
    expect(children()).toEqual(before);
  });
});

describe('--help', () => {
  it('names every subcommand with its options and arguments, whichever one is loaded', async () => {
    const help = async (args: string[]): Promise<string> => (await createProgram(undefined, argv(...args))).helpInformation();
    const eager = (await createProgram()).helpInformation();
    expect(await help(['--help'])).toBe(eager);
    expect(await help(['check', '--help'])).toBe(eager);
    expect(eager).toContain('  compare [options] <base> <cand>  Compare a candidate run');
  });
});
