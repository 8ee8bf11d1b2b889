/**
 * The program loads only the subcommand a command line names; the others are listed in the
 * top-level help from their summaries, which must read as the loaded commands' descriptions. A run
 * with L5 off loads none of L5's checking code (suite builder, counterexample search, yaml).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Help } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProgram, startAhead, SUBCOMMANDS, subcommandsNeeded } from '../../src/cli/program.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const RECORDER = pathToFileURL(path.join(ROOT, 'tests/helpers/record-modules.mjs')).href;

/** What a process loaded: project modules (paths under the repository, sorted) and packages. */
interface LoadedModules {
  readonly status: number | null;
  readonly stdout: string;
  readonly modules: string[];
  /** Names of the packages under node_modules it loaded (`yaml`, `@scope/name`), sorted. */
  readonly packages: string[];
}

/**
 * Runs node with `nodeArgs` in the repository and returns its exit status and output with the
 * modules it loaded, recorded by a loader hook.
 */
function modulesLoadedBy(nodeArgs: readonly string[], run: { readonly input?: string; readonly env?: Readonly<Record<string, string>> } = {}): LoadedModules {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-modules-'));
  try {
    const list = path.join(dir, 'modules.txt');
    const child = spawnSync(process.execPath, ['--import', RECORDER, ...nodeArgs], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      ...(run.input === undefined ? {} : { input: run.input }),
      env: { ...process.env, ...run.env, RECORD_MODULES_TO: list },
    });
    const urls = readFileSync(list, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
    const inRepo = urls.map((url) => path.relative(ROOT, fileURLToPath(url))).filter((file) => !file.startsWith('..') && !file.startsWith('node_modules'));
    const packages = urls.filter((url) => url.includes('/node_modules/')).map((url) => {
      const [first, second] = url.slice(url.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/');
      return first!.startsWith('@') ? `${first}/${second}` : first!;
    });
    return { status: child.status, stdout: child.stdout, modules: [...new Set(inRepo)].sort(), packages: [...new Set(packages)].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `bin/text2sql-ladder.ts ...args` from the sources and returns its exit status with the
 * project modules it loaded (paths under the repository, sorted), recorded by a loader hook.
 */
function projectModulesLoaded(args: readonly string[]): { status: number | null; modules: string[] } {
  const { status, modules } = modulesLoadedBy(['--import', TSX, 'bin/text2sql-ladder.ts', ...args]);
  return { status, modules };
}

/** What every run that builds the program loads: the program, its I/O rules and their helpers. */
const PROGRAM_MODULES = ['bin/text2sql-ladder.ts', 'src/cli/cli-io.ts', 'src/cli/program.ts', 'src/cli/subcommands.ts', 'src/errors.ts', 'src/exit-codes.ts', 'src/fixtures/package-root.ts', 'src/format.ts'];

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
    expect(names).toEqual(['spider', 'check', 'compare', 'fixtures', 'init', 'audit', 'judge', 'review']);
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
    expect(modules.filter((file) => file.startsWith('src/cli/'))).toEqual(['src/cli/cli-io.ts', 'src/cli/compare.ts', 'src/cli/program.ts', 'src/cli/subcommands.ts']);
  });
});

describe('what a run with L5 off loads', () => {
  /**
   * The L5 modules the promptfoo and vitest front ends load with L5 off: the options they read
   * from every config, with the budgets' and the empty-vs-NULL-row rules they validate. The
   * ladder assertion adds the rung's entry. The runtime's shared service is imported by its first
   * `semantic()` call, so none of them loads it; the CLI loads none of src/semantic/.
   */
  const L5_OPTIONS = ['src/semantic/model/empty-vs-null-row.ts', 'src/semantic/search/search-budget.ts', 'src/semantic/semantic-options.ts', 'src/semantic/suite/suite-budget.ts'];
  const l5Modules = (loaded: LoadedModules): string[] => loaded.modules.filter((file) => file.startsWith('src/semantic/'));

  let dir: string;
  /** A Spider-format run on one database: gold, predictions, database folder. */
  let spiderArgs: string[];
  beforeAll(() => {
    dir = tempDir('ladder-modules-spider-');
    mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
    makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT); INSERT INTO items VALUES (1, 'pen', 'office'), (2, 'cup', 'kitchen');");
    writeFileSync(path.join(dir, 'gold.sql'), "SELECT count(*) FROM items\tshop\nSELECT name FROM items WHERE kind = 'office'\tshop\n");
    writeFileSync(path.join(dir, 'pred.sql'), 'SELECT count(id) FROM items\nSELECT name FROM items WHERE id = 1\n');
    spiderArgs = ['spider', '--gold', path.join(dir, 'gold.sql'), '--pred', path.join(dir, 'pred.sql'), '--db', path.join(dir, 'database')];
  });
  const cli = (args: readonly string[], input?: string): LoadedModules =>
    modulesLoadedBy(['--import', TSX, 'bin/text2sql-ladder.ts', ...args], { ...(input === undefined ? {} : { input }), env: { TEXT2SQL_LADDER_CACHE_DIR: path.join(dir, 'cache') } });

  it('spider without --test-suite and a one-query check load nothing of src/semantic/, no yaml, and no progress bar off a terminal', () => {
    const spider = cli([...spiderArgs, '--preset', 'spider']);
    expect(spider.status).toBe(0);
    expect(spider.stdout).toContain('execution            1.000');
    expect(l5Modules(spider)).toEqual([]);
    expect(spider.packages).not.toContain('yaml');
    // stderr is a pipe here: no progress bar, so cli-progress is not loaded.
    expect(spider.packages).not.toContain('cli-progress');
    const check = cli(['check', '--db', path.join(dir, 'database', 'shop', 'shop.sqlite')], 'SELECT name FROM items');
    expect(check.status).toBe(0);
    expect(l5Modules(check)).toEqual([]);
    expect(check.packages).not.toContain('yaml');
  });

  it('spider --test-suite loads the options, the service, the suite builder and the counterexample search', () => {
    const run = cli([...spiderArgs, '--test-suite', '--suite-max-databases', '5', '--search-max-databases', '5']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('TEST-SUITE ACCURACY');
    expect(l5Modules(run)).toEqual(expect.arrayContaining([...L5_OPTIONS, 'src/semantic/semantic-service.ts', 'src/semantic/search/counterexample-search.ts', 'src/semantic/generation/generate-database.ts', 'src/semantic/suite/test-suite.ts']));
    expect(run.packages).toContain('yaml');
  });

  it.runIf(existsSync(path.join(ROOT, 'dist/assertions/index.js')))('the built assertions and matchers entries load L5 options and rung entry only', () => {
    const built = (entry: string): string[] => {
      const loaded = modulesLoadedBy(['--input-type=module', '-e', `await import('./${entry}');`]);
      expect(loaded.status).toBe(0);
      return loaded.modules.filter((file) => file.startsWith('dist/src/semantic/')).map((file) => file.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
    };
    expect(built('dist/assertions/index.js')).toEqual([...L5_OPTIONS, 'src/semantic/semantic-rung.ts'].sort());
    expect(built('dist/matchers/index.js')).toEqual(L5_OPTIONS);
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

describe('bin: what starts before the program loads', () => {
  it('spider: the engine modules load (and the child forks) before commander and the program', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-order-'));
    try {
      const list = path.join(dir, 'modules.txt');
      // No --gold: the command fails as misuse after start-up, which is all this test needs.
      spawnSync(process.execPath, ['--import', RECORDER, '--import', TSX, 'bin/text2sql-ladder.ts', 'spider', '--pred', 'p.sql'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, RECORD_MODULES_TO: list },
      });
      const order = readFileSync(list, 'utf8').split('\n').filter((url) => url.startsWith('file:'));
      const first = (pattern: RegExp): number => order.findIndex((url) => pattern.test(url));
      expect(first(/src\/engine\/sqlite\/sqlite-children\.ts$/)).toBeGreaterThan(first(/src\/cli\/subcommands\.ts$/));
      expect(first(/src\/engine\/sqlite\/sqlite-children\.ts$/)).toBeLessThan(first(/src\/cli\/program\.ts$/));
      expect(first(/src\/engine\/sqlite\/sqlite-children\.ts$/)).toBeLessThan(first(/node_modules\/commander\//));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SUBCOMMANDS needs', () => {
  const needs = (name: string, ...args: string[]): unknown => SUBCOMMANDS.find((entry) => entry.name === name)?.needs?.(args);

  it('starts the parser thread for spider only with --diagnostics (golds are read from their tokens)', () => {
    expect(needs('spider', '--gold', 'g.sql')).toEqual({ engine: true, parser: false });
    expect(needs('spider', '--preset', 'default', '--gold', 'g.sql')).toEqual({ engine: true, parser: false });
    expect(needs('spider', '--preset', 'spider')).toEqual({ engine: true, parser: false });
    expect(needs('spider', '--diagnostics')).toEqual({ engine: true, parser: true });
    expect(needs('check', '--db', 'warehouse')).toEqual({ engine: true, parser: true });
  });

  it('calls a run short (no optimizing compiler) unless it runs L5', () => {
    const short = (name: string, ...args: string[]): boolean | undefined => SUBCOMMANDS.find((entry) => entry.name === name && entry.short !== undefined)?.short?.(args);
    expect(short('spider', '--gold', 'g.sql')).toBe(true);
    expect(short('spider', '--gold', 'g.sql', '--test-suite')).toBe(false);
    expect(short('check', '--db', 'warehouse')).toBe(true);
    expect(short('audit', 'datasets/warehouse.yaml')).toBe(true);
    expect(short('audit', 'datasets/warehouse.yaml', '--strength')).toBe(false);
    expect(short('compare', 'a.json', 'b.json')).toBeUndefined();
  });
});

describe('the V8 flags of a command line and of its engine children', () => {
  /**
   * Starts `spider` on a prediction that runs until its deadline, reads the command line of the
   * engine child it started (Linux /proc), and ends the run.
   */
  async function childCommandLine(extra: readonly string[]): Promise<string[]> {
    const dir = tempDir('ladder-v8-flags-');
    mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
    makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);');
    writeFileSync(path.join(dir, 'gold.sql'), 'SELECT a FROM t\tshop\n');
    writeFileSync(path.join(dir, 'pred.sql'), 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c\n');
    const run = spawn(process.execPath, ['--import', TSX, 'bin/text2sql-ladder.ts', 'spider', '--gold', path.join(dir, 'gold.sql'), '--pred', path.join(dir, 'pred.sql'), '--db', path.join(dir, 'database'), '--timeout-ms', '20000', ...extra], { cwd: ROOT, stdio: 'ignore' });
    try {
      for (let waited = 0; waited < 30_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const children = readdirSync(`/proc/${run.pid}/task`).flatMap((task) => readFileSync(`/proc/${run.pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean));
        for (const child of children) {
          const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
          if (argv.some((arg) => arg.includes('sqlite-child'))) return argv;
        }
      }
      throw new Error('no engine child seen');
    } finally {
      run.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.runIf(process.platform === 'linux')('a short run starts its children without the optimizing compiler; an L5 run with it', async () => {
    expect(await childCommandLine([])).toContain('--no-opt');
    expect(await childCommandLine(['--test-suite'])).not.toContain('--no-opt');
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
