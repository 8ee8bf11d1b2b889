/**
 * The parser thread's V8 code cache: its folder, a module compiled with and without a cache (the
 * same exports either way), the cache written once and read back, a corrupt cache rewritten, an
 * unwritable folder harmless; and a real parse that leaves the parser's cache behind.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheDir, preloadWithCodeCache } from '../../src/sql/code-cache.js';

const load = createRequire(import.meta.url);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-code-cache-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A small CommonJS module that requires a sibling, at a fresh path. */
function writeModule(name: string): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'helper.js'), 'module.exports = (x) => x * 2;\n');
  const file = path.join(folder, 'main.js');
  writeFileSync(file, "const twice = require('./helper');\nexports.answer = twice(21);\nexports.where = __filename;\nexports.self = module.id;\n");
  return file;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * In a new process (V8 keeps compiled scripts in memory, so a second compile of the same text in
 * one process never reads the cache): compiles `file` through the preload, requires it as a
 * package would, saves the cache; returns what the preload said and the module's exports.
 */
function preloadAndRequire(file: string, cacheDir: string): { cache: string; exports: unknown } {
  const script = [
    "import { createRequire } from 'node:module';",
    "import { preloadWithCodeCache } from './src/sql/code-cache.ts';",
    'const load = createRequire(import.meta.url);',
    `const preload = preloadWithCodeCache(load, ${JSON.stringify(file)}, ${JSON.stringify(cacheDir)});`,
    `const exports = load(${JSON.stringify(file)});`,
    'preload.save();',
    'preload.save();',
    'console.log(JSON.stringify({ cache: preload.cache, exports }));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as { cache: string; exports: unknown };
}

describe('codeCacheDir', () => {
  it('follows TEXT2SQL_LADDER_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(codeCacheDir({ TEXT2SQL_LADDER_CACHE_DIR: '/srv/cache' })).toBe('/srv/cache/code');
    expect(codeCacheDir({ XDG_CACHE_HOME: '/home/u/.xdg' })).toBe('/home/u/.xdg/text2sql-ladder/code');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative' })).toBe(path.join(os.homedir(), '.cache', 'text2sql-ladder', 'code'));
    expect(codeCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'text2sql-ladder', 'code'));
  });
});

describe('preloadWithCodeCache', () => {
  it('compiles the module as require would, writes the cache once, and reads it in the next process', () => {
    const file = writeModule('m');
    const cacheDir = path.join(dir, 'cache');
    expect(preloadAndRequire(file, cacheDir)).toEqual({ cache: 'miss', exports: { answer: 42, where: file, self: file } });
    const written = readdirSync(cacheDir);
    expect(written).toEqual([expect.stringMatching(/^main\.js-\d+-\d+-\d+\.v8cache$/)]);
    expect(preloadAndRequire(file, cacheDir)).toEqual({ cache: 'hit', exports: { answer: 42, where: file, self: file } });
    expect(readdirSync(cacheDir)).toEqual(written);
  });

  it('rewrites a cache V8 rejects', () => {
    const file = writeModule('m');
    const cacheDir = path.join(dir, 'cache');
    preloadAndRequire(file, cacheDir);
    const [name] = readdirSync(cacheDir);
    writeFileSync(path.join(cacheDir, name!), 'not a code cache');
    expect(preloadAndRequire(file, cacheDir)).toEqual({ cache: 'rejected', exports: expect.objectContaining({ answer: 42 }) });
    expect(preloadAndRequire(file, cacheDir).cache).toBe('hit');
  });

  it.runIf(process.getuid?.() !== 0)('loads without a cache when the folder cannot be written', () => {
    const file = writeModule('m');
    const locked = path.join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    expect(preloadAndRequire(file, path.join(locked, 'code'))).toEqual({ cache: 'miss', exports: expect.objectContaining({ answer: 42 }) });
  });

  it('leaves a module already loaded, or one that cannot be read, to require', () => {
    const file = writeModule('m');
    load(file);
    expect(preloadWithCodeCache(load, file, dir).cache).toBe('off');
    expect(preloadWithCodeCache(load, path.join(dir, 'missing.js'), dir).cache).toBe('off');
  });
});

describe('the parser thread', () => {
  it("leaves sql-parser-cst's code cache in the cache folder after a parse, and parses the same with it", () => {
    const run = (): string => {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "const { parseSql } = await import('./src/sql/parse.ts'); const r = parseSql('SELECT a FROM t WHERE b = 1', 'sqlite'); console.log(r.ok);"], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: dir },
        timeout: 60_000,
      });
      return child.stdout.trim();
    };
    expect(run()).toBe('true');
    const cached = readdirSync(path.join(dir, 'code'));
    expect(cached).toEqual([expect.stringMatching(/^parser\.js-6565638-\d+-\d+\.v8cache$/)]);
    expect(readFileSync(path.join(dir, 'code', cached[0]!)).length).toBeGreaterThan(100_000);
    expect(run()).toBe('true');
    expect(readdirSync(path.join(dir, 'code'))).toEqual(cached);
  });
});
