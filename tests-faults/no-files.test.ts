/**
 * Read-only SELECTs write nothing anywhere: a DISTINCT that spills (300 000 rows of 400 bytes,
 * far past SQLite's page cache) keeps its temp storage in memory — the engine child's open files
 * are watched while it runs, with a plain better-sqlite3 connection as the control that shows the
 * watch sees a temp file — and a WAL-mode database leaves its folder byte-for-byte unchanged, a
 * live writer's `-shm` included. (Before: a DISTINCT spill wrote 3.5 GiB to /var/tmp within one
 * deadline; WAL databases got `-shm` / `-wal` files beside them.)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { createTempSqlite, type TempSqlite } from '../tests/helpers/temp-sqlite.js';
import { openFiles } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SPILL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000) SELECT count(*) FROM (SELECT DISTINCT x || hex(randomblob(200)) FROM c)";

let db: TempSqlite;
let tempDir: string;

beforeAll(() => {
  db = createTempSqlite('CREATE TABLE t (a INTEGER);', { prefix: 'ladder-faults-files-' });
  tempDir = mkdtempSync(path.join(tmpdir(), 'ladder-faults-sqlite-tmp-'));
});

afterAll(() => {
  db.remove();
  rmSync(tempDir, { recursive: true, force: true });
});

/** Polls a process's open files every 5 ms until `done` settles; returns those outside `allowed`. */
async function watchOpenFiles(pid: number, done: Promise<unknown>, allowed: (file: string) => boolean): Promise<string[]> {
  const seen = new Set<string>();
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  while (!finished) {
    for (const file of openFiles(pid)) if (!allowed(file)) seen.add(file);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return [...seen];
}

/** Files any Node process holds open on its own (its binary, libraries, /dev nodes). */
const baseline = (file: string): boolean => file.startsWith('/dev/') || file.startsWith('/proc/') || file.endsWith('.node') || file.includes('/node_modules/') || file === process.execPath;

describe('a spilling DISTINCT', () => {
  it('opens a temp file in a plain connection (the control: the watch sees it)', async () => {
    const control = spawn(
      process.execPath,
      ['-e', `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db.file)}, { readonly: true }); setTimeout(() => console.log(db.prepare(${JSON.stringify(SPILL)}).pluck().get()), 300);`],
      { cwd: ROOT, env: { ...process.env, SQLITE_TMPDIR: tempDir }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const done = new Promise((resolve) => control.once('exit', resolve));
    const extra = await watchOpenFiles(control.pid!, done, (file) => baseline(file) || file === db.file);
    expect(extra.some((file) => file.startsWith(tempDir) && file.includes('etilqs_'))).toBe(true);
  });

  it('opens no file at all in an engine child, and the query still answers', async () => {
    const saved = process.env['SQLITE_TMPDIR'];
    process.env['SQLITE_TMPDIR'] = tempDir;
    const engine = createSqliteEngine({ poolSize: 1, timeoutMs: 120_000, maxMemoryBytes: 2 ** 30 });
    try {
      await engine.execute({ db: db.file, sql: 'SELECT 1' });
      const [pid] = engine.childPids;
      const running = engine.execute({ db: db.file, sql: SPILL });
      const extra = await watchOpenFiles(pid!, running, (file) => baseline(file) || file === db.file);
      expect(await running).toMatchObject({ ok: true, result: { rows: [[300_000]] } });
      expect(extra).toEqual([]);
      expect(readdirSync(tempDir)).toEqual([]);
    } finally {
      await engine.close();
      if (saved === undefined) delete process.env['SQLITE_TMPDIR'];
      else process.env['SQLITE_TMPDIR'] = saved;
    }
  });
});

describe('a WAL-mode database', () => {
  const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
  const snapshot = (dir: string): Record<string, string> => Object.fromEntries(readdirSync(dir).sort().map((name) => [name, sha256(path.join(dir, name))]));

  it('leaves its folder unchanged through execute, prepare, explain and catalog', async () => {
    const wal = createTempSqlite('PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2);', { prefix: 'ladder-faults-wal-', name: 'wal.sqlite' });
    const engine = createSqliteEngine({ poolSize: 2 });
    try {
      const before = snapshot(wal.dir);
      expect(Object.keys(before)).toEqual(['wal.sqlite']);
      const outcomes = await Promise.all([
        engine.execute({ db: wal.file, sql: 'SELECT sum(v) FROM t' }),
        engine.prepare({ db: wal.file, sql: 'SELECT v FROM t' }),
        engine.explain({ db: wal.file, sql: 'SELECT v FROM t WHERE v > 1' }),
        engine.execute({ db: wal.file, sql: 'SELECT count(*) FROM t' }),
      ]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, true]);
      expect((await engine.catalog(wal.file)).tables.map((table) => table.name)).toEqual(['t']);
      expect(snapshot(wal.dir)).toEqual(before);
    } finally {
      await engine.close();
      wal.remove();
    }
  });

  it('does not touch a live writer’s -wal and -shm, and says why it refuses to read', async () => {
    const wal = createTempSqlite('PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER);', { prefix: 'ladder-faults-wal-', name: 'live.sqlite' });
    const writer = new Database(wal.file);
    const engine = createSqliteEngine({ poolSize: 1 });
    try {
      writer.pragma('wal_autocheckpoint = 0');
      writer.exec('INSERT INTO t VALUES (1)');
      const before = snapshot(wal.dir);
      expect(Object.keys(before)).toEqual(['live.sqlite', 'live.sqlite-shm', 'live.sqlite-wal']);
      const outcome = await engine.execute({ db: wal.file, sql: 'SELECT count(*) FROM t' });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'db_unavailable', message: expect.stringContaining('that are not checkpointed') } });
      expect(snapshot(wal.dir)).toEqual(before);
    } finally {
      await engine.close();
      writer.close();
      wal.remove();
    }
  });
});
