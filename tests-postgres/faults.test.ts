/**
 * Faults on PostgreSQL: the private server killed mid-run (the statements in flight are
 * engine failures, the server is started again and the run goes on, the fixture unchanged), a
 * connection dropped mid-statement, the server's folder deleted between runs (everything is made
 * again, with the same checksums) and while a run uses it (a clear message, nothing started over
 * it), and two runs at once on one cache folder (one server, one build, the same results, nothing
 * left running).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseChecksum } from '../src/engine/postgres/pg-checksum.js';
import { connect } from '../src/engine/postgres/pg-server.js';
import { createPostgresEngine, type PostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { resolveFixture, type ResolvedFixture } from '../src/fixtures/registry.js';
import { alive, fixturesDir, postmasterPid, testDir, until } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A server folder of its own for one test. */
function serverFolder(name: string): { cacheDir: string; dataDir: string } {
  const cacheDir = path.join(testDir, `faults-${name}`);
  folders.push(cacheDir);
  return { cacheDir, dataDir: path.join(cacheDir, '15', 'data') };
}

/** How many statements `sql` runs on the server now (as its admin sees them). */
async function running(engine: PostgresEngine, sql: string): Promise<number> {
  const admin = await connect(await engine.server(), 'admin', 'postgres');
  try {
    return (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1 AND state = 'active'", [sql])).rows[0]!.n;
  } finally {
    await admin.end();
  }
}

async function checksums(engine: PostgresEngine, fixture: ResolvedFixture): Promise<(string | undefined)[]> {
  const sums: (string | undefined)[] = [];
  for (const snapshot of fixture.snapshots) {
    const admin = await connect(await engine.server(), 'admin', snapshot.path);
    try {
      sums.push(await databaseChecksum(admin));
    } finally {
      await admin.end();
    }
  }
  return sums;
}

const COUNT = 'SELECT count(*) FROM orders';

describe('the private server killed mid-run', () => {
  it('fails the statements in flight as engine failures, starts again, and the run goes on with its fixture unchanged', async () => {
    const { cacheDir, dataDir } = serverFolder('killed');
    const engine = createPostgresEngine({ cacheDir, poolSize: 3, timeoutMs: 60_000 });
    try {
      const fixture = await resolveFixture('pgshop', { fixturesDir, cacheDir: path.join(cacheDir, 'fixtures'), postgres: () => engine });
      const db = fixture.snapshots[0]!.path;
      const before = await engine.execute({ db, sql: COUNT });
      expect(before).toMatchObject({ ok: true, result: { rows: [[5]] } });
      const killed = postmasterPid(dataDir)!;

      const SLEEP = 'SELECT pg_sleep(30)';
      const inFlight = [1, 2, 3].map(() => engine.execute({ db, sql: SLEEP }));
      expect(await until(async () => (await running(engine, SLEEP)) === 3)).toBe(true);
      process.kill(killed, 'SIGKILL');
      for (const outcome of await Promise.all(inFlight)) {
        expect(outcome).toMatchObject({ ok: false, error: { code: 'engine_failure', message: expect.stringMatching(/^engine failure: the connection to the server broke \(.+\); replaced$/) } });
      }

      // The next statements start the server again on the same socket and run.
      const after = await Promise.all([1, 2, 3, 4].map(() => engine.execute({ db, sql: COUNT })));
      for (const outcome of after) expect(outcome).toEqual({ ...before, result: { ...(before.ok ? before.result : {}), elapsedMs: expect.any(Number) } });
      const restarted = postmasterPid(dataDir)!;
      expect(restarted).not.toBe(killed);
      expect(alive(killed)).toBe(false);
      expect(await checksums(engine, fixture)).toEqual(fixture.snapshots.map((snapshot) => snapshot.checksum));
    } finally {
      await engine.close();
    }
    expect(postmasterPid(dataDir)).toBeUndefined();
  });
});

describe('a connection dropped mid-statement', () => {
  it('is an engine failure for that statement; the next runs on a new connection', async () => {
    const { cacheDir } = serverFolder('dropped');
    const engine = createPostgresEngine({ cacheDir, poolSize: 1, timeoutMs: 60_000 });
    try {
      const pid = async (): Promise<unknown> => {
        const outcome = await engine.execute({ db: 'postgres', sql: 'SELECT pg_backend_pid()' });
        return outcome.ok ? outcome.result.rows[0]![0] : outcome.error;
      };
      const backend = await pid();
      const SLEEP = 'SELECT pg_sleep(31)';
      const pending = engine.execute({ db: 'postgres', sql: SLEEP });
      expect(await until(async () => (await running(engine, SLEEP)) === 1)).toBe(true);
      const admin = await connect(await engine.server(), 'admin', 'postgres');
      try {
        expect((await admin.query('SELECT pg_terminate_backend($1) AS ended', [backend])).rows).toEqual([{ ended: true }]);
      } finally {
        await admin.end();
      }
      expect(await pending).toMatchObject({ ok: false, error: { code: 'engine_failure', message: expect.stringMatching(/^engine failure: the connection to the server broke \(.+\); replaced$/) } });
      const next = await pid();
      expect(typeof next).toBe('number');
      expect(next).not.toBe(backend);
    } finally {
      await engine.close();
    }
  });
});

describe("the private server's folder deleted", () => {
  it('between runs: the next run makes the server and the fixture again, with the same checksums and results', async () => {
    const { cacheDir, dataDir } = serverFolder('deleted');
    const run = async (): Promise<{ initialized: boolean; checksums: (string | undefined)[]; rows: unknown }> => {
      const engine = createPostgresEngine({ cacheDir, poolSize: 1 });
      try {
        const fixture = await resolveFixture('pgshop', { fixturesDir, cacheDir: path.join(cacheDir, 'fixtures'), postgres: () => engine });
        const outcome = await engine.execute({ db: fixture.snapshots[0]!.path, sql: 'SELECT id, total FROM shop.orders ORDER BY id' });
        return { initialized: (await engine.server()).start!.initialized, checksums: fixture.snapshots.map((snapshot) => snapshot.checksum), rows: outcome.ok ? outcome.result.rows : outcome.error };
      } finally {
        await engine.close();
      }
    };
    const first = await run();
    expect(first.initialized).toBe(true);
    rmSync(cacheDir, { recursive: true, force: true });
    const second = await run();
    expect(second).toEqual(first);
    expect(postmasterPid(dataDir)).toBeUndefined();
  });

  it('while a run uses it: its next statement is an engine failure naming the folder, and nothing starts over it', async () => {
    const { cacheDir, dataDir } = serverFolder('deleted-mid-run');
    const engine = createPostgresEngine({ cacheDir, poolSize: 1 });
    const orphan = { pid: 0 };
    try {
      expect(await engine.execute({ db: 'postgres', sql: 'SELECT 1' })).toMatchObject({ ok: true });
      orphan.pid = postmasterPid(dataDir)!;
      // The connection goes with its server: the next statement has to connect again.
      const admin = await connect(await engine.server(), 'admin', 'postgres');
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'ladder_reader'");
      await admin.end();
      rmSync(cacheDir, { recursive: true, force: true });
      expect(await engine.execute({ db: 'postgres', sql: 'SELECT 2' })).toEqual({
        ok: false,
        error: {
          code: 'engine_failure',
          message: expect.stringContaining(`the private server is gone and could not be started again: the private PostgreSQL server's data folder ${dataDir} is gone (deleted while the run used it); the fixtures it held are gone with it: start the run again`),
        },
      });
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await engine.close();
      // PostgreSQL ends a postmaster whose lock file is gone within a minute; the test does not wait.
      if (orphan.pid > 0 && alive(orphan.pid)) process.kill(orphan.pid, 'SIGKILL');
    }
  });
});

describe('two runs at once on one cache folder', () => {
  it('share one server and one build, get the same results, and leave nothing running', async () => {
    const { cacheDir, dataDir } = serverFolder('two-runs');
    const script = path.join(testDir, 'faults-two-runs.mts');
    const barrier = path.join(testDir, 'faults-two-runs-barrier');
    mkdirSync(barrier);
    folders.push(barrier);
    const modules = { engine: path.resolve(here, '../src/engine/postgres/postgres-engine.ts'), registry: path.resolve(here, '../src/fixtures/registry.ts') };
    writeFileSync(
      script,
      [
        `import { readdirSync, readFileSync, writeFileSync } from 'node:fs';`,
        `import { createPostgresEngine } from ${JSON.stringify(modules.engine)};`,
        `import { resolveFixture } from ${JSON.stringify(modules.registry)};`,
        `const engine = createPostgresEngine({ cacheDir: ${JSON.stringify(cacheDir)}, poolSize: 2 });`,
        `const fixture = await resolveFixture('pgshop', { fixturesDir: ${JSON.stringify(fixturesDir)}, cacheDir: ${JSON.stringify(path.join(cacheDir, 'fixtures'))}, postgres: () => engine });`,
        `const rows = [];`,
        `for (const snapshot of fixture.snapshots) { const o = await engine.execute({ db: snapshot.path, sql: 'SELECT id, total::text FROM shop.orders ORDER BY id' }); rows.push(o.ok ? o.result.rows : o.error); }`,
        `const postmaster = Number(readFileSync(${JSON.stringify(path.join(dataDir, 'postmaster.pid'))}, 'utf8').split('\\n')[0]);`,
        `console.log(JSON.stringify({ snapshots: fixture.snapshots.map((s) => [s.path, s.checksum]), rows, postmaster }));`,
        // Neither closes before both have run: the two runs overlap whatever the machine's load.
        `writeFileSync(${JSON.stringify(barrier)} + '/' + process.pid, '');`,
        `while (readdirSync(${JSON.stringify(barrier)}).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));`,
        `await engine.close();`,
      ].join('\n'),
    );
    folders.push(script);
    const runOnce = (): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const [a, b] = await Promise.all([runOnce(), runOnce()]);
    expect([a.code, a.err, b.code, b.err]).toEqual([0, '', 0, '']);
    const [first, second] = [JSON.parse(a.out) as { postmaster: number }, JSON.parse(b.out) as { postmaster: number }];
    expect(second).toEqual(first);
    expect(first).toMatchObject({ rows: [{ length: 5 }, { length: 7 }] });
    // Both ran on one server, which the last one out stopped.
    expect(alive(first.postmaster)).toBe(false);
    expect(postmasterPid(dataDir)).toBeUndefined();
  });
});
