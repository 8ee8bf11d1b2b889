/**
 * The child-process pool behind createSqliteEngine: deadline kill and replacement, the RSS
 * watchdog, concurrency, closing, and not keeping Node alive. Uses test-db.ts's `music.sqlite`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, startSqliteChildAhead, type SqliteEngine } from '../../../src/engine/sqlite/sqlite-engine.js';
import { shouldGrow } from '../../../src/engine/sqlite/sqlite-pool.js';
import { buildTestDb, listDir, sha256, type TestDb } from './test-db.js';

/** Counts to 2·10^8 one row at a time: about 45 s of SQLite work on this machine. */
const FORTY_SECONDS_SQL = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000000) SELECT count(*) FROM c';

let fixture: TestDb;
let checksum: string;

beforeAll(() => {
  fixture = buildTestDb();
  checksum = sha256(fixture.file);
});

afterAll(() => {
  expect(sha256(fixture.file)).toBe(checksum);
  expect(listDir(fixture.dir)).toEqual(['music.sqlite']);
  fixture.remove();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while the process runs (a killed child the parent has not reaped yet is a zombie, `Z`). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Process ids of this process's children (from every thread's /proc children list). */
function childrenOfThisProcess(): number[] {
  const tasks = readdirSync(`/proc/${process.pid}/task`);
  return tasks.flatMap((tid) => readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
}

/** Blocks this thread's event loop, as synchronous grading does. */
function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe('one child with a 500 ms default deadline', () => {
  // Shared by the tests below: each kill leaves a replacement child starting for the next test.
  let engine: SqliteEngine;
  beforeAll(() => {
    engine = createSqliteEngine({ poolSize: 1, timeoutMs: 500 });
  });
  afterAll(() => engine.close());

  it('kills the child of a ~40 s recursive CTE at the deadline, replaces it, and the next statement runs', async () => {
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT 1' })).toMatchObject({ ok: true });
    const [first] = engine.childPids;
    const started = Date.now();
    const outcome = await engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL });
    const waited = Date.now() - started;
    expect(outcome).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 500 ms passed; child process killed' } });
    expect(waited).toBeGreaterThanOrEqual(490);
    expect(waited).toBeLessThan(500 + 3_000);
    expect(await waitUntil(() => !isAlive(first!), 3_000)).toBe(true);
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT count(*) FROM singer' })).toMatchObject({ ok: true, result: { rows: [[3]] } });
    expect(engine.childPids).toHaveLength(1);
    expect(engine.childPids[0]).not.toBe(first);
  });

  it('takes a per-request deadline over the engine default', async () => {
    expect(await engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL, timeoutMs: 300 })).toEqual({
      ok: false,
      error: { code: 'timeout', message: 'timeout: deadline of 300 ms passed; child process killed' },
    });
  });

  it('starts the deadline of a statement sent ahead only when the child starts it', async () => {
    await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
    // The slow statement must outlast the 500 ms default deadline by a wide margin on any machine
    // (4 million rows took 497 ms on an idle one), so that `quick` would time out if its deadline
    // started when it was sent rather than when the child started it.
    const slow = engine.execute({ db: fixture.file, sql: 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000000) SELECT count(*) FROM c', timeoutMs: 120_000 });
    const quick = engine.execute({ db: fixture.file, sql: 'SELECT 2' });
    const started = Date.now();
    expect(await slow).toMatchObject({ ok: true, result: { rows: [[20_000_000]] } });
    expect(Date.now() - started).toBeGreaterThan(500);
    expect(await quick).toMatchObject({ ok: true, result: { rows: [[2]] } });
  });

  it('requeues statements sent ahead to a killed child, and runs them', async () => {
    await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
    const outcomes = await Promise.all([
      engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL }),
      engine.execute({ db: fixture.file, sql: 'SELECT 3' }),
      engine.execute({ db: fixture.file, sql: 'SELECT 4' }),
    ]);
    expect(outcomes).toMatchObject([
      { ok: false, error: { code: 'timeout' } },
      { ok: true, result: { rows: [[3]] } },
      { ok: true, result: { rows: [[4]] } },
    ]);
  });

  it('gives engine_failure when the child dies for another reason, replaces it, and the next statement runs', async () => {
    await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
    const [pid] = engine.childPids;
    const running = engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL, timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid!, 'SIGTERM');
    expect(await running).toEqual({ ok: false, error: { code: 'engine_failure', message: 'engine failure: child process died (signal SIGTERM); replaced' } });
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT 5' })).toMatchObject({ ok: true, result: { rows: [[5]] } });
    expect(engine.childPids).not.toContain(pid);
  });
});

describe('memory cap', () => {
  it('kills a child whose RSS passes maxMemoryBytes (memory_limit) and carries on', async () => {
    const engine = createSqliteEngine({ poolSize: 1, maxMemoryBytes: 128 * 2 ** 20 });
    try {
      // SQLite's hard_heap_limit is not enforced in this build; a 300 MB string is built in full.
      const outcome = await engine.execute({ db: fixture.file, sql: "SELECT length(printf('%.*c', 300000000, 'x'))" });
      expect(outcome.ok).toBe(false);
      const error = outcome.ok ? undefined : outcome.error;
      expect(error?.code).toBe('memory_limit');
      const match = /^memory limit: child RSS (\d+(?:\.\d)?) MiB passed the cap of 128 MiB \(maxMemoryBytes\); child process killed$/.exec(error?.message ?? '');
      expect(match, error?.message).not.toBeNull();
      // Sampled every 20 ms: above the cap, and well below the 300 MB the statement wanted.
      expect(Number(match![1])).toBeGreaterThanOrEqual(128);
      expect(Number(match![1])).toBeLessThan(286);
      expect(await engine.execute({ db: fixture.file, sql: "SELECT length(printf('%.*c', 1000, 'x'))" })).toMatchObject({ ok: true, result: { rows: [[1000]] } });
    } finally {
      await engine.close();
    }
  });
});

describe('a parent whose event loop is blocked', () => {
  let engine: SqliteEngine;
  beforeAll(async () => {
    engine = createSqliteEngine({ poolSize: 1, timeoutMs: 200, maxMemoryBytes: 128 * 2 ** 20 });
    await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
  });
  afterAll(() => engine.close());

  it('gets the result of a statement that finished, not a timeout, however long it was blocked', async () => {
    const quick = engine.execute({ db: fixture.file, sql: 'SELECT count(*) FROM singer' });
    blockFor(1_000);
    const outcome = await quick;
    expect(outcome).toMatchObject({ ok: true, result: { rows: [[3]] } });
    expect(outcome.ok && outcome.result.elapsedMs).toBeLessThan(200);
  });

  it('cannot keep a runaway statement alive: the child’s own watchdog ends it at its deadline', async () => {
    const [pid] = engine.childPids;
    const runaway = engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL });
    blockFor(1_500);
    expect(isRunning(pid!)).toBe(false);
    expect(await runaway).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 200 ms passed; child process killed' } });
    expect(await engine.execute({ db: fixture.file, sql: 'SELECT 7' })).toMatchObject({ ok: true, result: { rows: [[7]] } });
  });

  it('cannot let a memory bomb grow: the child’s own watchdog ends it at the cap', async () => {
    const [pid] = engine.childPids;
    const bomb = engine.execute({ db: fixture.file, sql: "SELECT length(printf('%.*c', 300000000, 'x'))", timeoutMs: 60_000 });
    blockFor(1_500);
    expect(isRunning(pid!)).toBe(false);
    const outcome = await bomb;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'memory_limit' } });
    const rss = /^memory limit: child RSS (\d+(?:\.\d)?) MiB passed the cap of 128 MiB/.exec(outcome.ok ? '' : outcome.error.message);
    expect(Number(rss?.[1])).toBeLessThan(286);
  });
});

describe('pool', () => {
  it('runs a burst of short statements on one child: they never wait as long as a child takes to start', async () => {
    const engine = createSqliteEngine({ poolSize: 2 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => engine.execute({ db: fixture.file, sql: `SELECT ${i} AS i, count(*) FROM concert` })),
      );
      expect(outcomes.map((outcome) => (outcome.ok ? outcome.result.rows : outcome.error))).toEqual(
        Array.from({ length: 8 }, (_, i) => [[i, 3]]),
      );
      expect(engine.childPids).toHaveLength(1);
    } finally {
      await engine.close();
    }
  });

  it('starts a second child when statements wait behind a slow one, up to poolSize', async () => {
    const engine = createSqliteEngine({ poolSize: 2 });
    try {
      await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
      const [first] = engine.childPids;
      let slowDone = false;
      const slow = engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL, timeoutMs: 120_000 }).finally(() => (slowDone = true));
      // Sent ahead to the busy child, they are handed back once the slow one has run for a
      // child's start-up time, and run on the second child.
      const waiting = [2, 3, 4, 5].map((i) => engine.execute({ db: fixture.file, sql: `SELECT ${i}` }));
      const outcomes = await Promise.all(waiting);
      expect(outcomes.map((outcome) => outcome.ok && outcome.result.rows)).toEqual([[[2]], [[3]], [[4]], [[5]]]);
      expect(slowDone).toBe(false);
      expect(engine.childPids).toHaveLength(2);
      expect(engine.childPids[0]).toBe(first);
      const ended = slow.catch((error: unknown) => (error as { code?: string }).code);
      await engine.close();
      expect(await ended).toEqual('engine_closed');
    } finally {
      await engine.close();
    }
  });

  it.runIf(process.platform === 'linux')('starts children without NODE_EXTRA_CA_CERTS (Node would parse the file at every child start) and with the rest of the environment', async () => {
    const saved = process.env['NODE_EXTRA_CA_CERTS'];
    // Any readable PEM file will do; the child must not be given one at all.
    process.env['NODE_EXTRA_CA_CERTS'] = fixture.file;
    process.env['LADDER_TEST_MARKER'] = 'kept';
    const engine = createSqliteEngine({ poolSize: 1 });
    try {
      await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
      const environ = readFileSync(`/proc/${engine.childPids[0]}/environ`, 'utf8').split('\0');
      expect(environ.filter((entry) => entry.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
      expect(environ).toContain('LADDER_TEST_MARKER=kept');
    } finally {
      await engine.close();
      if (saved === undefined) delete process.env['NODE_EXTRA_CA_CERTS'];
      else process.env['NODE_EXTRA_CA_CERTS'] = saved;
      delete process.env['LADDER_TEST_MARKER'];
    }
  });

  it('shouldGrow: one more child only when the oldest job waited a start-up time, none starting, room left', () => {
    const base = { live: 1, starting: 0, size: 2, waitedMs: 300, startupMs: 250 };
    expect(shouldGrow(base)).toBe(true);
    expect(shouldGrow({ ...base, waitedMs: 250 })).toBe(true);
    expect(shouldGrow({ ...base, waitedMs: 249 })).toBe(false);
    expect(shouldGrow({ ...base, starting: 1 })).toBe(false);
    expect(shouldGrow({ ...base, live: 2 })).toBe(false);
  });

  it('adopts a child started ahead with the same memory cap; an engine with another cap forks its own', async () => {
    const before = new Set(childrenOfThisProcess());
    startSqliteChildAhead();
    const ahead = childrenOfThisProcess().filter((pid) => !before.has(pid));
    expect(ahead).toHaveLength(1);
    const other = createSqliteEngine({ poolSize: 1, maxMemoryBytes: 256 * 2 ** 20 });
    const engine = createSqliteEngine({ poolSize: 1 });
    try {
      expect((await other.execute({ db: fixture.file, sql: 'SELECT 1' })).ok).toBe(true);
      expect(other.childPids).not.toEqual(ahead);
      expect((await engine.execute({ db: fixture.file, sql: 'SELECT 2' })).ok).toBe(true);
      expect(engine.childPids).toEqual(ahead);
    } finally {
      await Promise.all([engine.close(), other.close()]);
    }
    expect(ahead.map(isRunning)).toEqual([false]);
  });

  it('starts no child ahead while an engine with the same memory cap has a live child (it would never be adopted)', async () => {
    const engine = createSqliteEngine({ poolSize: 1 });
    try {
      expect((await engine.execute({ db: fixture.file, sql: 'SELECT 1' })).ok).toBe(true);
      const before = new Set(childrenOfThisProcess());
      startSqliteChildAhead();
      expect(childrenOfThisProcess().filter((pid) => !before.has(pid))).toEqual([]);
    } finally {
      await engine.close();
    }
    // Once that engine's children are gone, a child started ahead is worth having again.
    const before = new Set(childrenOfThisProcess());
    startSqliteChildAhead();
    const ahead = childrenOfThisProcess().filter((pid) => !before.has(pid));
    expect(ahead).toHaveLength(1);
    const next = createSqliteEngine({ poolSize: 1 });
    try {
      expect((await next.execute({ db: fixture.file, sql: 'SELECT 2' })).ok).toBe(true);
      expect(next.childPids).toEqual(ahead);
    } finally {
      await next.close();
    }
  });

  it('close() ends every child, is idempotent, and later calls throw engine_closed', async () => {
    const engine = createSqliteEngine({ poolSize: 2 });
    await Promise.all([engine.execute({ db: fixture.file, sql: 'SELECT 1' }), engine.execute({ db: fixture.file, sql: 'SELECT 2' })]);
    const pids = engine.childPids;
    expect(pids.length).toBeGreaterThanOrEqual(1);
    await engine.close();
    await engine.close();
    expect(engine.childPids).toEqual([]);
    expect(pids.map(isAlive)).toEqual(pids.map(() => false));
    const closed = { code: 'engine_closed', message: 'the engine is closed; create a new one with createSqliteEngine()' };
    await expect(engine.execute({ db: fixture.file, sql: 'SELECT 1' })).rejects.toMatchObject(closed);
    await expect(engine.prepare({ db: fixture.file, sql: 'SELECT 1' })).rejects.toMatchObject(closed);
    await expect(engine.explain({ db: fixture.file, sql: 'SELECT 1' })).rejects.toMatchObject(closed);
    await expect(engine.catalog(fixture.file)).rejects.toMatchObject(closed);
  });

  it('close() rejects a statement still running with engine_closed', async () => {
    const engine = createSqliteEngine({ poolSize: 1 });
    await engine.execute({ db: fixture.file, sql: 'SELECT 1' });
    const running = expect(engine.execute({ db: fixture.file, sql: FORTY_SECONDS_SQL })).rejects.toMatchObject({
      code: 'engine_closed',
      message: 'the engine was closed before the statement finished',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await engine.close();
    await running;
  });

  it('does not keep Node alive when never closed', () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = path.join(fixture.dir, 'unclosed.mts');
    const engineUrl = pathToFileURL(path.resolve(here, '../../../src/engine/sqlite/sqlite-engine.ts')).href;
    writeFileSync(
      script,
      [
        `import { createSqliteEngine } from ${JSON.stringify(engineUrl)};`,
        'const engine = createSqliteEngine({ poolSize: 2 });',
        `const outcome = await engine.execute({ db: ${JSON.stringify(fixture.file)}, sql: 'SELECT 41 + 1' });`,
        'console.log(JSON.stringify(outcome.ok && outcome.result.rows));',
      ].join('\n'),
    );
    try {
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      const started = Date.now();
      const run = spawnSync(process.execPath, ['--import', tsx, script], { encoding: 'utf8', timeout: 30_000 });
      expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({ status: 0, signal: null, stdout: '[[42]]' });
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      rmSync(script, { force: true });
    }
  });

  it('warm() starts the children before the first statement, which then runs on one of them', async () => {
    const engine = createSqliteEngine({ poolSize: 2 });
    try {
      expect(engine.childPids).toEqual([]);
      engine.warm(1);
      expect(engine.childPids).toHaveLength(1);
      engine.warm();
      const warmed = [...engine.childPids];
      expect(warmed).toHaveLength(2);
      engine.warm();
      expect(engine.childPids).toEqual(warmed);
      const outcome = await engine.execute({ db: fixture.file, sql: 'SELECT 6 * 7' });
      expect(outcome.ok && outcome.result.rows).toEqual([[42]]);
      expect(engine.childPids).toEqual(warmed);
    } finally {
      await engine.close();
    }
    engine.warm();
    expect(engine.childPids).toEqual([]);
  });

  it('a warmed engine that is never used nor closed does not keep Node alive', () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = path.join(fixture.dir, 'warmed.mts');
    const engineUrl = pathToFileURL(path.resolve(here, '../../../src/engine/sqlite/sqlite-engine.ts')).href;
    writeFileSync(script, [`import { createSqliteEngine } from ${JSON.stringify(engineUrl)};`, 'createSqliteEngine({ poolSize: 2 }).warm();', "console.log('warmed');"].join('\n'));
    try {
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      const run = spawnSync(process.execPath, ['--import', tsx, script], { encoding: 'utf8', timeout: 30_000 });
      expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({ status: 0, signal: null, stdout: 'warmed' });
    } finally {
      rmSync(script, { force: true });
    }
  });
});
