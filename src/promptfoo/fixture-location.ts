/**
 * Where the promptfoo front end finds fixtures and builds them: the app's own fixture folder
 * (`fixturesDir`) and the build cache (`cacheDir`), for the test generator, every assertion and the
 * prompt function of one promptfoo process.
 *
 * Order, first set wins:
 * 1. the assertion's `config.fixturesDir` / `config.cacheDir`;
 * 2. the test generator's `config.fixturesDir` / `config.cacheDir` (`loadTests` records them for
 *    the process, so the assertions and the prompt function of its tests use them too);
 * 3. the environment: `TEXT2SQL_LADDER_FIXTURES`, `TEXT2SQL_LADDER_CACHE_DIR` (builds in its
 *    `fixtures/` folder), relative to the working directory;
 * 4. the bundled fixtures (`warehouse`), cached in the app (`<config folder>/.text2sql-ladder/cache/fixtures`)
 *    when the package is installed, in the clone's `.cache/fixtures` otherwise.
 *
 * Config values are relative to the promptfoo config's folder, as promptfoo's own `file://` paths
 * are. promptfoo does not tell a test generator or an assertion where its config is, so the folder
 * is read from the command line (`-c` / `--config`, the first file), else the working directory
 * (promptfoo's default `promptfooconfig.yaml`).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { OptionReader } from '../options.js';
import { appCacheDir, CACHE_ENV, isInstalledPackage } from '../fixtures/registry.js';

/** Environment variable naming the app's fixture folder. */
export const FIXTURES_ENV = 'TEXT2SQL_LADDER_FIXTURES';

/** Where fixtures live and where their builds are cached (absolute paths; absent = default). */
export interface FixtureLocation {
  readonly fixturesDir?: string;
  readonly cacheDir?: string;
}

/** Option names a config block may use for the location. */
export const LOCATION_OPTIONS = ['fixturesDir', 'cacheDir'] as const;

/**
 * The folder of the promptfoo config this process runs: the first `-c` / `--config` value of
 * `argv` (a file's folder, or the folder itself), resolved against `cwd`; `cwd` when none is given.
 * @example promptfooConfigDir(['node', 'promptfoo', 'eval', '-c', 'evals/app.yaml'], '/repo') // '/repo/evals'
 */
export function promptfooConfigDir(argv: readonly string[] = process.argv, cwd: string = process.cwd()): string {
  let value: string | undefined;
  for (let index = 0; index < argv.length && value === undefined; index += 1) {
    const arg = argv[index]!;
    if (arg === '-c' || arg === '--config') value = argv[index + 1];
    else if (arg.startsWith('--config=')) value = arg.slice('--config='.length);
    else if (arg.startsWith('-c') && arg.length > 2 && !arg.startsWith('--')) value = arg.slice(2);
  }
  if (value === undefined || value === '') return cwd;
  const first = path.resolve(cwd, value.split(',')[0]!);
  try {
    if (statSync(first).isDirectory()) return first;
  } catch {
    // Not there (yet): treat it as a file name.
  }
  return path.dirname(first);
}

/**
 * Reads `fixturesDir` / `cacheDir` from a config block, resolved against `baseDir`.
 * @throws LadderError `invalid_option` for a value that is not a non-empty string.
 */
export function readFixtureLocation(read: OptionReader, baseDir: string): FixtureLocation {
  const fixturesDir = read.string('fixturesDir', 'a folder path (relative to the promptfoo config)');
  const cacheDir = read.string('cacheDir', 'a folder path (relative to the promptfoo config)');
  return {
    ...(fixturesDir === undefined ? {} : { fixturesDir: path.resolve(baseDir, fixturesDir) }),
    ...(cacheDir === undefined ? {} : { cacheDir: path.resolve(baseDir, cacheDir) }),
  };
}

const SUITE_KEY = Symbol.for('text2sql-ladder.promptfoo.fixture-location');

/** Records the test generator's location for the process (see the module doc, step 2). */
export function setSuiteFixtureLocation(location: FixtureLocation): void {
  (globalThis as unknown as Record<symbol, FixtureLocation | undefined>)[SUITE_KEY] = { ...location };
}

/** The location recorded by the test generator (empty when none). */
export function suiteFixtureLocation(): FixtureLocation {
  return (globalThis as unknown as Record<symbol, FixtureLocation | undefined>)[SUITE_KEY] ?? {};
}

/**
 * The location to resolve a fixture with (the module doc's order).
 * @param explicit - an assertion's own `fixturesDir` / `cacheDir` (already absolute).
 * @param where - the environment, working directory and config folder (defaults: this process's).
 */
export function effectiveFixtureLocation(
  explicit: FixtureLocation = {},
  where: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly configDir?: string; readonly installed?: boolean } = {},
): FixtureLocation {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  const suite = suiteFixtureLocation();
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : path.resolve(cwd, value);
  };
  const fixturesDir = explicit.fixturesDir ?? suite.fixturesDir ?? fromEnv(FIXTURES_ENV);
  const cacheRoot = fromEnv(CACHE_ENV);
  let cacheDir = explicit.cacheDir ?? suite.cacheDir ?? (cacheRoot === undefined ? undefined : path.join(cacheRoot, 'fixtures'));
  // The app's own fixtures, or an installed package: the cache goes beside the config, never into
  // the package (read-only or shared under pnpm and CI caches).
  if (cacheDir === undefined && (fixturesDir !== undefined || (where.installed ?? isInstalledPackage()))) {
    cacheDir = appCacheDir(where.configDir ?? promptfooConfigDir(process.argv, cwd));
  }
  return { ...(fixturesDir === undefined ? {} : { fixturesDir }), ...(cacheDir === undefined ? {} : { cacheDir }) };
}
