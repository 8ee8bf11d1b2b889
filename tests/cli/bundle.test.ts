/**
 * The bundled command line (`dist/cli/`, the package's `bin`, built by `npm run build`) behaves as
 * the sources do: the same output and exit code for `--version`, `--help`, `check`, `spider` and a
 * misuse, the engine child and its watchdog working from the bundle (a runaway statement ends at
 * its deadline), and the parser thread working from it (L2 reads a parse tree).
 * Skipped when dist/ is not built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUNDLE = path.join(ROOT, 'dist', 'cli', 'text2sql-ladder.js');

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the bundle, or the sources through tsx, with the same arguments and stdin. */
function run(which: 'bundle' | 'sources', args: readonly string[], input?: string): Run {
  const entry = which === 'bundle' ? [BUNDLE] : ['--import', 'tsx', path.join(ROOT, 'bin', 'text2sql-ladder.ts')];
  const child = spawnSync(process.execPath, [...entry, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, ...(input === undefined ? {} : { input }) });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

let dir: string;

beforeAll(() => {
  dir = tempDir('ladder-bundle-');
  mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
  makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), "CREATE TABLE items (id INTEGER, name TEXT, price REAL); INSERT INTO items VALUES (1,'pen',1.5),(2,'ink',3),(3,'cup',3);");
  writeFileSync(path.join(dir, 'gold.sql'), ['SELECT count(*) FROM items\tshop', 'SELECT name FROM items ORDER BY price DESC, name\tshop', 'SELECT id FROM items\tshop'].join('\n') + '\n');
  writeFileSync(
    path.join(dir, 'pred.sql'),
    ['SELECT COUNT(id) FROM items', 'SELECT name FROM items ORDER BY price, name', 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c'].join('\n') + '\n',
  );
});

describe.runIf(existsSync(BUNDLE))('the bundled CLI', () => {
  it('answers --version, --help and a misuse as the sources do', () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(run('bundle', ['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
    expect(run('bundle', ['--help'])).toEqual(run('sources', ['--help']));
    expect(run('bundle', ['spider', '--pred', 'p.sql'])).toEqual(run('sources', ['spider', '--pred', 'p.sql']));
  });

  it('checks a query with the parser thread and the engine child, as the sources do', () => {
    const database = path.join(dir, 'database', 'shop', 'shop.sqlite');
    const bundled = run('bundle', ['check', '--db', database], 'SELECT nme FROM items');
    expect(bundled.status).toBe(1);
    expect(bundled.stdout).toContain('L2 schema  fail');
    expect(bundled).toEqual(run('sources', ['check', '--db', database], 'SELECT nme FROM items'));
  });

  it('runs spider as the sources do, a runaway prediction ended by the watchdog at its deadline', () => {
    const args = ['spider', '--gold', path.join(dir, 'gold.sql'), '--pred', path.join(dir, 'pred.sql'), '--db', path.join(dir, 'database'), '--timeout-ms', '300'];
    const bundled = run('bundle', args);
    expect(bundled.status).toBe(0);
    expect(bundled.stderr).toBe('item 2 (shop): snapshot shop: prediction failed (timeout): timeout: deadline of 300 ms passed; child process killed\n');
    expect(bundled.stdout).toContain('scored 3 of 3 | correct 1 | executed 2 | prediction errors 1');
    expect(bundled).toEqual(run('sources', args));
  });
});
