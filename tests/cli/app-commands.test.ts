/**
 * The app-repo commands: `init` (the scaffold, no overwrite without --force, an existing
 * package.json merged), `fixtures build` (snapshots and role copies with their checksums, exit 2
 * on misuse) and `audit` on a user dataset with one broken gold (exit 1). In-process via runCli.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, type CapturedRun } from '../helpers/run-cli.js';
import { SCAFFOLD_SCRIPTS, scaffoldPromptfooVersion } from '../../src/cli/init.js';
import { fileChecksum } from '../../src/fixtures/build.js';
import { tempDir } from '../compare/helpers.js';

let dir: string;

function cli(args: readonly string[]): Promise<CapturedRun> {
  return runCliCaptured(args, dir);
}

beforeAll(() => {
  dir = tempDir('ladder-app-cli-');
});

describe('text2sql-ladder init', () => {
  it('writes the scaffold and the package.json scripts', async () => {
    const app = path.join(dir, 'app');
    const { code, out } = await cli(['init', app]);
    expect(code).toBe(0);
    expect(out.split('\n').slice(0, 13)).toEqual([
      'text2sql-ladder init: wrote 11 files in <dir>/app',
      '  .env.ladder',
      '  .env.online',
      '  .gitignore',
      '  datasets/questions.yaml',
      '  fixtures/shop/data/base.sql',
      '  fixtures/shop/data/later.sql',
      '  fixtures/shop/fixture.yaml',
      '  fixtures/shop/schema.sql',
      '  package.json',
      '  promptfooconfig.yaml',
      '  recordings/baseline.jsonl',
      'package.json scripts added: eval, eval:online, view, audit, fixtures:build',
    ]);
    const manifest = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['scripts']).toEqual(SCAFFOLD_SCRIPTS);
    expect(manifest['devDependencies']).toEqual({ 'text2sql-ladder': '^0.2.0', promptfoo: scaffoldPromptfooVersion() });
    expect(readFileSync(path.join(app, '.gitignore'), 'utf8')).toBe('node_modules/\n.promptfoo/\n.text2sql-ladder/\nout/\n.env.online\n');
    expect(readFileSync(path.join(app, '.env.ladder'), 'utf8')).toContain('PROMPTFOO_CONFIG_DIR=.promptfoo\n');
  });

  it('refuses to overwrite without --force (exit 2) and overwrites with it', async () => {
    const app = path.join(dir, 'app');
    writeFileSync(path.join(app, 'datasets/questions.yaml'), '# mine\n');
    const refused = await cli(['init', app]);
    expect(refused.code).toBe(2);
    expect(refused.err).toBe(
      'error: init: 9 files of the scaffold exist in <dir>/app: .env.ladder, .env.online, datasets/questions.yaml, fixtures/shop/data/base.sql, fixtures/shop/data/later.sql, fixtures/shop/fixture.yaml, fixtures/shop/schema.sql, promptfooconfig.yaml, recordings/baseline.jsonl; pass --force to overwrite them\n',
    );
    expect(readFileSync(path.join(app, 'datasets/questions.yaml'), 'utf8')).toBe('# mine\n');
    expect((await cli(['init', app, '--force'])).code).toBe(0);
    expect(readFileSync(path.join(app, 'datasets/questions.yaml'), 'utf8')).toMatch(/^# Your questions/);
  });

  it('adds to an existing package.json and .gitignore, keeping the app\'s own scripts', async () => {
    const app = path.join(dir, 'existing');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'shop-app', version: '2.0.0', scripts: { eval: 'my-eval', test: 'vitest' }, dependencies: { 'text2sql-ladder': '^0.1.0' } }));
    writeFileSync(path.join(app, '.gitignore'), 'dist\nnode_modules/');
    const { code, out } = await cli(['init', app]);
    expect(code).toBe(0);
    expect(out).toContain('package.json scripts added: eval:online, view, audit, fixtures:build\npackage.json scripts kept as they were (yours differ): eval\n');
    const manifest = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      name: 'shop-app',
      version: '2.0.0',
      scripts: { eval: 'my-eval', test: 'vitest', 'eval:online': SCAFFOLD_SCRIPTS['eval:online'], view: SCAFFOLD_SCRIPTS['view'], audit: SCAFFOLD_SCRIPTS['audit'], 'fixtures:build': SCAFFOLD_SCRIPTS['fixtures:build'] },
      dependencies: { 'text2sql-ladder': '^0.1.0' },
      devDependencies: { promptfoo: scaffoldPromptfooVersion() },
    });
    expect(readFileSync(path.join(app, '.gitignore'), 'utf8')).toBe('dist\nnode_modules/\n.promptfoo/\n.text2sql-ladder/\nout/\n.env.online\n');
  });
});

describe('text2sql-ladder fixtures build', () => {
  it('builds every snapshot and role copy and prints their sha256', async () => {
    const fixtures = path.join(dir, 'app', 'fixtures');
    const cache = path.join(dir, 'build-cache');
    const first = await cli(['fixtures', 'build', fixtures, '--cache-dir', cache, '--json']);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out.split('<dir>').join(dir)) as { fixtures: { name: string; fromCache: boolean; files: { snapshot: string; role: string | null; path: string; sha256: string }[] }[]; cacheDir: string };
    expect(report.cacheDir).toBe(cache);
    expect(report.fixtures.map((f) => [f.name, f.fromCache])).toEqual([['shop', false]]);
    const files = report.fixtures[0]!.files;
    expect(files.map((f) => [f.snapshot, f.role, path.basename(f.path)])).toEqual([
      ['base', null, 'base.sqlite'],
      ['later', null, 'later.sqlite'],
      ['base', 'reporting', 'base@reporting.sqlite'],
      ['later', 'reporting', 'later@reporting.sqlite'],
    ]);
    for (const file of files) expect(file.sha256).toBe(fileChecksum(file.path));
    const again = await cli(['fixtures', 'build', path.join(fixtures, 'shop'), '--cache-dir', cache]);
    expect(again.code).toBe(0);
    const buildDir = path.relative(process.cwd(), path.dirname(files[0]!.path));
    const shown = path.isAbsolute(buildDir) || buildDir.startsWith('..') ? path.dirname(files[0]!.path) : buildDir;
    expect(again.out.split('<dir>').join(dir)).toBe(
      [
        `fixture shop: 4 files in ${shown} (already built)`,
        `  snapshot  role       sha256${' '.repeat(58)}  file`,
        ...files.map((f) => `  ${f.snapshot.padEnd(8)}  ${(f.role ?? '-').padEnd(9)}  ${f.sha256}  ${path.basename(f.path)}`),
        '',
      ].join('\n'),
    );
  });

  it('exits 2 with one line for a missing folder, an empty folder and a failing script', async () => {
    expect(await cli(['fixtures', 'build', path.join(dir, 'nope')])).toEqual({ code: 2, out: '', err: 'error: fixtures build: <dir>/nope is not a folder (give a folder of fixture folders, each with a fixture.yaml)\n' });
    mkdirSync(path.join(dir, 'empty'));
    expect(await cli(['fixtures', 'build', path.join(dir, 'empty')])).toEqual({ code: 2, out: '', err: 'error: fixtures build: no fixture in <dir>/empty (a fixture is a folder with a fixture.yaml)\n' });
    const broken = path.join(dir, 'broken', 'bad');
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, 'fixture.yaml'), 'name: bad\ndialect: sqlite\nsnapshots:\n  base: { scripts: [schema.sql] }\n');
    writeFileSync(path.join(broken, 'schema.sql'), 'CREATE TABLE t (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n');
    const result = await cli(['fixtures', 'build', path.join(dir, 'broken'), '--cache-dir', path.join(dir, 'broken-cache')]);
    expect(result.code).toBe(2);
    expect(result.err).toBe('error: <dir>/broken/bad/schema.sql:2: fails while building snapshot "base" of fixture bad: no such table: nowhere\n');
    expect(existsSync(path.join(dir, 'broken-cache'))).toBe(true);
  });
});

describe('text2sql-ladder audit on a user dataset', () => {
  it('exits 0 on the scaffold and 1 with the broken gold named', async () => {
    const app = path.join(dir, 'app');
    const good = await cli(['audit', path.join(app, 'datasets/questions.yaml'), '--fixtures', path.join(app, 'fixtures'), '--format', 'json']);
    expect(good.code).toBe(0);
    const goodReport = JSON.parse(good.out) as { counts: Record<string, number> };
    expect(goodReport.counts['error']).toBe(0);
    const text = readFileSync(path.join(app, 'datasets/questions.yaml'), 'utf8').replace("WHERE status = 'CANCELLED'", "WHERE state = 'CANCELLED'");
    writeFileSync(path.join(app, 'datasets/broken.yaml'), text);
    const bad = await cli(['audit', path.join(app, 'datasets/broken.yaml'), '--fixtures', path.join(app, 'fixtures'), '--format', 'json']);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.out) as { counts: Record<string, number>; findings: { kind: string; item: string; snapshot: string | null; role: string | null; message: string }[] };
    expect(report.counts['error']).toBe(2);
    expect(report.findings.filter((f) => f.kind === 'gold_error').map((f) => [f.item, f.snapshot, f.role, f.message])).toEqual([
      ['cancelled-orders', 'base', 'reporting', 'gold 0 fails (unknown_column): no such column: state'],
      ['cancelled-orders', 'later', 'reporting', 'gold 0 fails (unknown_column): no such column: state'],
    ]);
  });
});
