/**
 * L5's scratch (the counterexample search's drawn databases) lives under the cache folder, never in
 * the system's temp folder; an interrupted search (SIGTERM, SIGINT) removes its folder on the way
 * out, and the folder a SIGKILLed one left is removed by the next searcher. (0.2.0 left
 * `$TMPDIR/ladder-search-XXXX`, about 250 KB each, after 4 of 4 SIGKILLs and 2 of 2 SIGTERMs,
 * never swept.) Run on the compiled package.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHOP = `
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(customer_id), amount REAL NOT NULL, status TEXT NOT NULL CHECK (status IN ('paid', 'open', 'void')));
INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bo', 'Rome');
INSERT INTO orders VALUES (10, 1, 12.5, 'paid'), (11, 2, 7.0, 'paid');
`;

/** Searches once (drawn databases land in the scratch folder), says `ready`, then waits to be killed. */
const SEARCHER = `
const { createSqliteEngine } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/engine/sqlite/sqlite-engine.js'))});
const { createCounterexampleSearcher } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/semantic/search/counterexample-search.js'))});
const engine = createSqliteEngine({ poolSize: 1 });
const searcher = createCounterexampleSearcher({ engine, schemaDb: process.argv[2] });
const outcome = await searcher.search({ golds: ["SELECT COUNT(*) FROM orders WHERE status = 'paid'"], predictedSql: 'SELECT COUNT(*) FROM orders' });
process.stdout.write('ready ' + outcome.verdict + '\\n');
setInterval(() => {}, 1000);
`;

let work: string;
let cache: string;
let systemTemp: string;
const launched: ChildProcess[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-scratch-'));
  cache = path.join(work, 'cache');
  systemTemp = path.join(work, 'system-tmp');
  mkdirSync(systemTemp);
  const db = new Database(path.join(work, 'shop.sqlite'));
  db.exec(SHOP);
  db.close();
  writeFileSync(path.join(work, 'searcher.mjs'), SEARCHER);
});

afterAll(() => {
  for (const child of launched) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Entries of the scratch folder under the cache. */
function scratch(): string[] {
  try {
    return readdirSync(path.join(cache, 'tmp')).sort();
  } catch {
    return [];
  }
}

/** Starts a searcher; resolves once it has searched (its scratch holds databases). */
async function startSearcher(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(work, 'searcher.mjs'), path.join(work, 'shop.sqlite')], {
    cwd: work,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: cache, TMPDIR: systemTemp },
  });
  launched.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await waitFor(() => out.startsWith('ready') || child.exitCode !== null, 120_000);
  expect(out, 'the searcher searched once').toBe('ready refuted\n');
  return child;
}

describe('L5 search scratch', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the searcher removes its scratch folder as it ends', async (signal) => {
    const child = await startSearcher();
    const own = scratch().filter((name) => name === `search-${child.pid}-${name.slice(-8)}`);
    expect(own).toHaveLength(1);
    expect(readdirSync(path.join(cache, 'tmp', own[0]!)).length).toBeGreaterThan(0);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, by) => resolve(by)));
    child.kill(signal);
    expect(await exited).toBe(signal);
    expect(scratch()).toEqual([]);
    expect(readdirSync(systemTemp)).toEqual([]);
  });

  it('SIGKILL: the folder it left is removed by the next searcher, whose own goes when it ends', async () => {
    const killed = await startSearcher();
    const left = scratch();
    expect(left).toEqual([expect.stringMatching(new RegExp(`^search-${killed.pid}-[0-9a-f]{8}$`))]);
    const exited = new Promise((resolve) => killed.once('exit', resolve));
    killed.kill('SIGKILL');
    await exited;
    expect(scratch()).toEqual(left);
    const next = await startSearcher();
    expect(scratch()).toEqual([expect.stringMatching(new RegExp(`^search-${next.pid}-[0-9a-f]{8}$`))]);
    const done = new Promise((resolve) => next.once('exit', resolve));
    next.kill('SIGTERM');
    await done;
    expect(scratch()).toEqual([]);
    expect(readdirSync(systemTemp)).toEqual([]);
  });
});
