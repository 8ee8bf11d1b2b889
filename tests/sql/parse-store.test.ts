import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseStore, parseStoreFile, parseStoreTurnedOff } from '../../src/sql/parse-store.js';

const root = path.resolve(import.meta.dirname, '../..');

/** Folders this file made in the temp folder, removed after its tests. */
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new folder in the temp folder, removed after this file's tests. */
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parse-store-'));
  madeDirs.push(dir);
  return dir;
}

function tempFile(name = 'parses-test.bin'): string {
  return path.join(tempDir(), name);
}

/** Runs an ES module snippet with the TypeScript sources (the store writes on exit: one process per run). */
function runNode(code: string, env: NodeJS.ProcessEnv = {}): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  if (child.status !== 0) throw new Error(`node exited ${String(child.status)}: ${child.stderr}`);
  return child.stdout.trim();
}

describe('ParseStore', () => {
  it('reads back, in a new store on the same file, exactly what was kept (undefined fields included)', () => {
    const file = tempFile();
    const first = new ParseStore(file);
    first.set('a', { ok: true, value: { type: 'select_stmt', alias: undefined, range: [0, 8] } });
    first.set('b', { ok: false, budget: false, message: 'Syntax Error: Unexpected "SELEC"' });
    first.save();
    const second = new ParseStore(file);
    expect(second.size).toBe(2);
    const tree = second.get('a') as { value: Record<string, unknown> };
    expect(tree).toEqual({ ok: true, value: { type: 'select_stmt', alias: undefined, range: [0, 8] } });
    expect(Object.hasOwn(tree.value, 'alias')).toBe(true);
    expect(second.get('b')).toEqual({ ok: false, budget: false, message: 'Syntax Error: Unexpected "SELEC"' });
    expect(second.get('c')).toBeUndefined();
  });

  it('each get returns a fresh copy: changing one does not change the store', () => {
    const store = new ParseStore(tempFile());
    store.set('a', { list: [1, 2] });
    (store.get('a') as { list: number[] }).list.push(3);
    expect(store.get('a')).toEqual({ list: [1, 2] });
  });

  it('drops the least recently used answer past the entry limit (a get counts as a use)', () => {
    const store = new ParseStore(tempFile(), { entries: 2 });
    store.set('a', 1);
    store.set('b', 2);
    expect(store.get('a')).toBe(1);
    store.set('c', 3);
    expect([store.has('a'), store.has('b'), store.has('c')]).toEqual([true, false, true]);
  });

  it('drops the least recently used past the byte limit, and never keeps a value larger than it', () => {
    const oneKiB = 'x'.repeat(1_000);
    const size = serialize(oneKiB).byteLength;
    const store = new ParseStore(tempFile(), { bytes: 2 * size });
    store.set('a', oneKiB);
    store.set('b', oneKiB);
    store.set('c', oneKiB);
    expect([store.has('a'), store.has('b'), store.has('c')]).toEqual([false, true, true]);
    store.set('huge', 'x'.repeat(5_000));
    expect(store.has('huge')).toBe(false);
    expect(store.size).toBe(2);
  });

  it('does not keep, and does not throw for, a value it cannot copy', () => {
    const store = new ParseStore(tempFile());
    expect(() => store.set('f', { run: () => 1 })).not.toThrow();
    expect(store.has('f')).toBe(false);
  });

  it('cuts a file written under larger limits down to its own, oldest first', () => {
    const file = tempFile();
    const big = new ParseStore(file);
    for (const key of ['a', 'b', 'c']) big.set(key, key);
    big.save();
    const small = new ParseStore(file, { entries: 2 });
    expect([small.has('a'), small.has('b'), small.has('c')]).toEqual([false, true, true]);
  });

  it('writes nothing when nothing was added', () => {
    const file = tempFile();
    const store = new ParseStore(file);
    expect(store.get('a')).toBeUndefined();
    store.save();
    expect(existsSync(file)).toBe(false);
  });

  it('reads a corrupt file, another format or a missing file as an empty store', () => {
    const corrupt = tempFile();
    writeFileSync(corrupt, 'not a store');
    expect(new ParseStore(corrupt).size).toBe(0);
    const otherFormat = tempFile();
    const body = serialize({ format: 99, entries: [['a', serialize(1)]] });
    writeFileSync(otherFormat, Buffer.concat([createHash('sha256').update(body).digest(), body]));
    expect(new ParseStore(otherFormat).size).toBe(0);
    expect(new ParseStore(tempFile()).size).toBe(0);
  });

  it('does not trust a file changed after it was written, even when it still decodes', () => {
    const file = tempFile();
    const store = new ParseStore(file);
    store.set('SELECT * FROM customers', { ok: true, value: { table: 'customers' } });
    store.save();
    const bytes = readFileSync(file);
    const at = bytes.lastIndexOf('customers');
    expect(at).toBeGreaterThan(32);
    // Same length, still a valid serialization: only the digest can tell.
    bytes.write('bustomers', at, 'latin1');
    writeFileSync(file, bytes);
    const reread = new ParseStore(file);
    expect(reread.size).toBe(0);
    expect(reread.get('SELECT * FROM customers')).toBeUndefined();
    // The next answer rewrites it, whole again.
    reread.set('SELECT * FROM customers', { ok: true, value: { table: 'customers' } });
    reread.save();
    expect(new ParseStore(file).get('SELECT * FROM customers')).toEqual({ ok: true, value: { table: 'customers' } });
  });

  it('reads a file cut short as an empty store', () => {
    const file = tempFile();
    const store = new ParseStore(file);
    store.set('a', 'x'.repeat(1_000));
    store.save();
    writeFileSync(file, readFileSync(file).subarray(0, 500));
    expect(new ParseStore(file).size).toBe(0);
    writeFileSync(file, readFileSync(file).subarray(0, 10));
    expect(new ParseStore(file).size).toBe(0);
  });

  it('leaves no temporary file behind when the rename fails (a folder where the file should be)', () => {
    const file = tempFile();
    mkdirSync(file);
    const store = new ParseStore(file);
    store.set('a', 1);
    expect(() => store.save()).not.toThrow();
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('does not throw when its folder cannot be written', () => {
    const dir = tempDir();
    const blocker = path.join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const store = new ParseStore(path.join(blocker, 'parses-test.bin'));
    store.set('a', 1);
    expect(() => store.save()).not.toThrow();
  });

  it('on save, removes interrupted writes older than an hour and other versions untouched for 30 days', () => {
    const file = tempFile('parses-1-current.bin');
    const dir = path.dirname(file);
    const old = (name: string, ageMs: number): void => {
      writeFileSync(path.join(dir, name), '');
      const when = (Date.now() - ageMs) / 1000;
      utimesSync(path.join(dir, name), when, when);
    };
    old('parses-1-current.bin.123-1.tmp', 2 * 3_600_000);
    old('parses-1-current.bin.456-2.tmp', 60_000);
    old('parses-0-older-parser.bin', 31 * 24 * 3_600_000);
    old('parses-1-other-install.bin', 24 * 3_600_000);
    old('unrelated.bin', 365 * 24 * 3_600_000);
    const store = new ParseStore(file);
    store.set('a', 1);
    store.save();
    expect(readdirSync(dir).sort()).toEqual(['parses-1-current.bin', 'parses-1-current.bin.456-2.tmp', 'parses-1-other-install.bin', 'unrelated.bin']);
  });

  it('on save, removes at once the temporary file of a write whose process is gone, and keeps a live one', () => {
    const file = tempFile('parses-1-current.bin');
    const dir = path.dirname(file);
    // A pid past Linux's highest (2^22) runs no process; this process's own pid runs.
    writeFileSync(path.join(dir, 'parses-1-current.bin-4194305-0123abcd.tmp'), 'half');
    writeFileSync(path.join(dir, `parses-1-current.bin-${process.ppid}-89abcdef.tmp`), 'half');
    const store = new ParseStore(file);
    store.set('a', 1);
    store.save();
    expect(readdirSync(dir).sort()).toEqual(['parses-1-current.bin', `parses-1-current.bin-${process.ppid}-89abcdef.tmp`]);
  });
});

describe('parseStoreTurnedOff', () => {
  it('is off for off, 0, false and no, in any case and with spaces; on for anything else', () => {
    const off = (value: string | undefined): boolean => parseStoreTurnedOff(value === undefined ? {} : { TEXT2SQL_LADDER_PARSE_STORE: value });
    expect(['off', 'OFF', ' Off ', '0', 'false', 'False', 'no', 'NO'].map(off)).toEqual([true, true, true, true, true, true, true, true]);
    expect([undefined, '', 'on', '1', 'true', 'yes', 'offline'].map(off)).toEqual([false, false, false, false, false, false, false]);
  });
});

describe('parseStoreFile', () => {
  it('names the file after the format, the tree depth limit and both parsers’ versions, in the cache folder', () => {
    expect(parseStoreFile({ TEXT2SQL_LADDER_CACHE_DIR: '/tmp/ladder-cache' })).toBe('/tmp/ladder-cache/parses/parses-2-depth1100-sql-parser-cst@0.42.1-node-sql-parser@5.4.0.bin');
    expect(parseStoreFile({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/text2sql-ladder/parses/parses-2-depth1100-sql-parser-cst@0.42.1-node-sql-parser@5.4.0.bin');
  });

  it('names node-sql-parser `none` when that optional peer is not installed (no Snowflake answer is stored then)', () => {
    expect(parseStoreFile({ TEXT2SQL_LADDER_CACHE_DIR: '/tmp/ladder-cache' }, () => undefined)).toBe('/tmp/ladder-cache/parses/parses-2-depth1100-sql-parser-cst@0.42.1-node-sql-parser@none.bin');
  });
});

describe('the parse store behind the parser thread', () => {
  const parseOnce = (file: string, sql: string): string =>
    runNode(
      `const { enableParseStore } = await import('./src/sql/parse-store.ts');
       const { parseInWorker } = await import('./src/sql/bounded-parse.ts');
       enableParseStore(${JSON.stringify(file)});
       const parsed = parseInWorker('sql-parser-cst', ${JSON.stringify(sql)}, { dialect: 'sqlite' });
       console.log(JSON.stringify(parsed.ok ? parsed.value.statements.map((s) => s.type) : parsed));`,
    );

  it('keeps a tree and a syntax error on exit, and a later process takes them from the store, not the thread', () => {
    const file = tempFile();
    expect(parseOnce(file, 'SELECT 1')).toBe('["select_stmt"]');
    expect(parseOnce(file, 'SELEC 1')).toMatch(/^\{"ok":false,"budget":false,"message":"Syntax Error: Unexpected \\"SELEC\\"/);
    const kept = new ParseStore(file);
    expect(kept.size).toBe(2);
    // Replace the kept tree by a marker: a later process that returns it read the store.
    const key = `sql-parser-cst\u0000${JSON.stringify({ dialect: 'sqlite' })}\u0000SELECT 1`;
    expect(kept.has(key)).toBe(true);
    kept.set(key, { ok: true, value: { statements: [{ type: 'from_the_store' }] } });
    kept.save();
    expect(parseOnce(file, 'SELECT 1')).toBe('["from_the_store"]');
  });

  it('keeps no budget outcome', () => {
    const file = tempFile();
    runNode(
      `const { enableParseStore } = await import('./src/sql/parse-store.ts');
       const { parseInWorker } = await import('./src/sql/bounded-parse.ts');
       enableParseStore(${JSON.stringify(file)});
       parseInWorker('sql-parser-cst', 'SELECT ' + '('.repeat(3000) + '1' + ')'.repeat(3000), { dialect: 'sqlite' });`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('stays off with TEXT2SQL_LADDER_PARSE_STORE=Off', () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const out = runNode(
      `const { enableParseStore, activeParseStore } = await import('./src/sql/parse-store.ts');
       console.log(String(enableParseStore()), String(activeParseStore()));`,
      { TEXT2SQL_LADDER_PARSE_STORE: 'Off', TEXT2SQL_LADDER_CACHE_DIR: dir },
    );
    expect(out).toBe('undefined undefined');
    expect(readdirSync(dir)).toEqual([]);
  });
});
