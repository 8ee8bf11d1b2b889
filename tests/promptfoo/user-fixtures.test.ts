/**
 * The promptfoo front end on an app's own fixtures: `fixturesDir` in the test generator resolved
 * against the promptfoo config's folder (and recorded for the assertions of its tests), the
 * environment variable, an assertion's own `config.fixturesDir`, dataset items naming SQLite
 * files (`db_path`, `snapshots` as paths, resolved against the dataset file), and the folder of
 * the config read from promptfoo's command line.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ladder } from '../../assertions/ladder.js';
import { loadTests } from '../../src/promptfoo/dataset-tests.js';
import { effectiveFixtureLocation, promptfooConfigDir, setSuiteFixtureLocation } from '../../src/promptfoo/fixture-location.js';
import { loadDataset } from '../../src/dataset/load.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let app: string;
const argv = process.argv;

beforeAll(() => {
  app = tempDir('ladder-pf-user-');
  cpSync(path.join(ROOT, 'templates/app/fixtures'), path.join(app, 'fixtures'), { recursive: true });
  cpSync(path.join(ROOT, 'templates/app/datasets'), path.join(app, 'datasets'), { recursive: true });
  mkdirSync(path.join(app, 'db'));
  makeDb(path.join(app, 'db', 'jan.sqlite'), 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);');
  makeDb(path.join(app, 'db', 'feb.sqlite'), 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);');
  writeFileSync(
    path.join(app, 'datasets', 'files.yaml'),
    [
      '- id: one-file',
      '  question: How many rows?',
      '  db_path: ../db/jan.sqlite',
      '  gold_sql: SELECT COUNT(*) FROM t',
      '- id: two-files',
      '  question: How many rows?',
      '  snapshots: [../db/jan.sqlite, ../db/feb.sqlite]',
      '  gold_sql: SELECT COUNT(*) FROM t',
    ].join('\n'),
  );
});

afterEach(() => {
  process.argv = argv;
  setSuiteFixtureLocation({});
  vi.unstubAllEnvs();
});

describe('promptfooConfigDir', () => {
  it.each([
    [['node', 'promptfoo', 'eval', '-c', 'evals/app.yaml'], '/repo/evals'],
    [['node', 'promptfoo', 'eval', '--config', '/abs/x/promptfooconfig.yaml'], '/abs/x'],
    [['node', 'promptfoo', 'eval', '--config=sub/c.yaml,other.yaml'], '/repo/sub'],
    [['node', 'promptfoo', 'eval', '-o', 'out.json'], '/repo'],
  ])('%j → %s', (args, expected) => {
    expect(promptfooConfigDir(args, '/repo')).toBe(expected);
  });
});

describe('effectiveFixtureLocation', () => {
  it('takes the assertion first, then the test generator, then the environment', () => {
    const env = { TEXT2SQL_LADDER_FIXTURES: 'shared/fixtures', TEXT2SQL_LADDER_CACHE_DIR: '/var/cache/ladder' };
    expect(effectiveFixtureLocation({}, { env, cwd: '/app', configDir: '/app', installed: true })).toEqual({ fixturesDir: '/app/shared/fixtures', cacheDir: '/var/cache/ladder/fixtures' });
    setSuiteFixtureLocation({ fixturesDir: '/app/fixtures' });
    expect(effectiveFixtureLocation({}, { env: {}, cwd: '/app', configDir: '/app/evals', installed: false })).toEqual({ fixturesDir: '/app/fixtures', cacheDir: '/app/evals/.text2sql-ladder/cache/fixtures' });
    expect(effectiveFixtureLocation({ fixturesDir: '/other' }, { env, cwd: '/app', configDir: '/app', installed: true })).toEqual({ fixturesDir: '/other', cacheDir: '/var/cache/ladder/fixtures' });
  });

  it('leaves the bundled fixtures and the clone cache alone in a clone without settings', () => {
    expect(effectiveFixtureLocation({}, { env: {}, cwd: '/clone', configDir: '/clone', installed: false })).toEqual({});
    expect(effectiveFixtureLocation({}, { env: {}, cwd: '/app', configDir: '/app', installed: true })).toEqual({ cacheDir: '/app/.text2sql-ladder/cache/fixtures' });
  });
});

describe('loadTests and the ladder on an app folder', () => {
  it('resolves file and fixturesDir against the config folder, and the ladder finds the fixture', async () => {
    process.argv = ['node', 'promptfoo', 'eval', '-c', path.join(app, 'promptfooconfig.yaml')];
    const tests = await loadTests({ file: 'datasets/questions.yaml', fixturesDir: 'fixtures', cacheDir: '.cache-under-test' });
    expect(tests.map((test) => [test.vars['id'], test.vars['db'], test.vars['role'] ?? null])).toEqual([
      ['orders-total', 'shop', null],
      ['revenue-by-country', 'shop', null],
      ['cancelled-orders', 'shop', 'reporting'],
      ['best-customers', 'shop', null],
      ['delete-cancelled', 'shop', null],
    ]);
    const test = tests[2]!;
    const context = { vars: test.vars, test: { description: test.description, metadata: test.metadata, vars: test.vars }, config: test.assert[0]!.config };
    const pass = await ladder("SELECT COUNT(*) FROM orders WHERE status = 'CANCELLED'", context);
    expect([pass.pass, pass.reason]).toEqual([true, 'L4_execution pass: matches on 2 snapshots']);
    // The role's copy has no customers table: L2 names it.
    const scoped = await ladder('SELECT COUNT(*) FROM customers', context);
    expect(scoped.pass).toBe(false);
    expect(scoped.reason).toMatch(/^L2_schema fail: .*customers/);
  });

  it('takes TEXT2SQL_LADDER_FIXTURES when the generator names no folder', async () => {
    process.argv = ['node', 'promptfoo', 'eval', '-c', path.join(app, 'promptfooconfig.yaml')];
    vi.stubEnv('TEXT2SQL_LADDER_FIXTURES', path.join(app, 'fixtures'));
    vi.stubEnv('TEXT2SQL_LADDER_CACHE_DIR', path.join(app, '.env-cache'));
    const tests = await loadTests({ file: 'datasets/questions.yaml', ids: ['orders-total'] });
    const test = tests[0]!;
    const result = await ladder('SELECT COUNT(*) FROM orders', { vars: test.vars, test: { metadata: test.metadata, vars: test.vars } });
    expect([result.pass, result.reason]).toEqual([true, 'L4_execution pass: matches on 2 snapshots']);
  });

  it('names a missing fixture in an ERROR with the did-you-mean', async () => {
    process.argv = ['node', 'promptfoo', 'eval', '-c', path.join(app, 'promptfooconfig.yaml')];
    await expect(ladder('SELECT 1', { vars: { id: 'x', db: 'shp', gold_sql: 'SELECT 1' }, config: { fixturesDir: 'fixtures' } })).rejects.toThrow(
      `unknown fixture "shp" in ${path.join(app, 'fixtures')} (did you mean shop?); known fixtures: shop (in assertions/ladder.ts:ladder)`,
    );
  });

  it('turns db_path and file snapshots into absolute db_path vars, relative to the dataset file', async () => {
    process.argv = ['node', 'promptfoo', 'eval', '-c', path.join(app, 'promptfooconfig.yaml')];
    const tests = await loadTests({ file: 'datasets/files.yaml' });
    expect(tests.map((test) => [test.vars['id'], test.vars['db'] ?? null, test.vars['db_path']])).toEqual([
      ['one-file', null, [path.join(app, 'db', 'jan.sqlite')]],
      ['two-files', null, [path.join(app, 'db', 'jan.sqlite'), path.join(app, 'db', 'feb.sqlite')]],
    ]);
    const two = tests[1]!;
    const context = { vars: two.vars, test: { metadata: two.metadata, vars: two.vars } };
    expect((await ladder('SELECT COUNT(*) FROM t', context)).pass).toBe(true);
    const wrong = await ladder('SELECT 2', context);
    expect([wrong.pass, wrong.reason]).toEqual([false, 'L4_execution fail: snapshot feb: gold [3] vs predicted [2]']);
  });
});

describe('dataset items naming SQLite files', () => {
  it('reports a missing file, a role without a fixture and db next to db_path at their lines', async () => {
    const file = path.join(app, 'datasets', 'bad-files.yaml');
    writeFileSync(
      file,
      [
        '- id: missing',
        '  question: Q?',
        '  db_path: ../db/nope.sqlite',
        '- id: role',
        '  question: Q?',
        '  db_path: ../db/jan.sqlite',
        '  role: analyst',
        '- id: both',
        '  question: Q?',
        '  db: shop',
        '  db_path: ../db/jan.sqlite',
      ].join('\n'),
    );
    const { items, errors } = await loadDataset(file);
    expect(items).toEqual([]);
    expect(errors.map((error) => error.message.replace(file, '<file>'))).toEqual([
      `<file>:3: item "missing": db_path: database ../db/nope.sqlite does not exist (paths are relative to ${path.join(app, 'datasets')})`,
      '<file>:7: item "role": a role needs a fixture (db): plain SQLite files declare no roles',
      '<file>:11: item "both": give db (a fixture name) or db_path (SQLite files), not both',
    ]);
  });
});
