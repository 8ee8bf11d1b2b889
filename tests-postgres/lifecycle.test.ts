/**
 * The private server's life cycle: it stops with the run; a run killed by SIGKILL leaves it
 * running, and the next run finds it and stops it (a stale postmaster.pid too).
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { alive, postmasterPid, testDir, until } from './helpers.js';

const cacheDir = path.join(testDir, 'lifecycle');
const dataDir = path.join(cacheDir, '15', 'data');
const engineModule = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/engine/postgres/postgres-engine.ts');
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('the private server', () => {
  it('stops when the engine closes', async () => {
    const engine = createPostgresEngine({ cacheDir });
    expect(await engine.execute({ db: 'postgres', sql: 'SELECT 1 AS one' })).toMatchObject({ ok: true, result: { rows: [[1]] } });
    const pid = postmasterPid(dataDir)!;
    expect(alive(pid)).toBe(true);
    await engine.close();
    expect(await until(() => !alive(pid))).toBe(true);
    expect(postmasterPid(dataDir)).toBeUndefined();
  });

  it('left running by a run killed with SIGKILL, is found and stopped by the next run', async () => {
    const script = path.join(testDir, 'killed-run.mts');
    writeFileSync(
      script,
      `import { createPostgresEngine } from ${JSON.stringify(engineModule)};\nconst engine = createPostgresEngine({ cacheDir: ${JSON.stringify(cacheDir)} });\nawait engine.execute({ db: 'postgres', sql: 'SELECT 1' });\nconsole.log('ready');\nsetInterval(() => {}, 1000);\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('ready') ? resolve() : undefined)));
    const stray = postmasterPid(dataDir)!;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    // SIGKILL runs no exit handler: the server is still there.
    expect(alive(stray)).toBe(true);

    const next = createPostgresEngine({ cacheDir });
    try {
      expect(await next.execute({ db: 'postgres', sql: 'SELECT 2' })).toMatchObject({ ok: true });
      expect(await until(() => !alive(stray))).toBe(true);
      expect(postmasterPid(dataDir)).not.toBe(stray);
    } finally {
      await next.close();
    }
    expect(postmasterPid(dataDir)).toBeUndefined();
    rmSync(script, { force: true });
  });

  it('starts over a stale postmaster.pid whose pid is no PostgreSQL process', async () => {
    // This test process's own pid: alive, but not a postmaster (PostgreSQL itself would refuse it).
    writeFileSync(path.join(dataDir, 'postmaster.pid'), `${process.pid}\n${dataDir}\n0\n5432\n\n\n\nready   \n`);
    const engine = createPostgresEngine({ cacheDir });
    try {
      expect(await engine.execute({ db: 'postgres', sql: 'SELECT 3' })).toMatchObject({ ok: true });
      expect(postmasterPid(dataDir)).not.toBe(process.pid);
    } finally {
      await engine.close();
    }
  });

  it('is shared by two engines, and stops when the last one closes', async () => {
    const first = createPostgresEngine({ cacheDir });
    const second = createPostgresEngine({ cacheDir });
    await first.execute({ db: 'postgres', sql: 'SELECT 1' });
    await second.execute({ db: 'postgres', sql: 'SELECT 1' });
    const pid = postmasterPid(dataDir)!;
    await first.close();
    expect(await second.execute({ db: 'postgres', sql: 'SELECT 1' })).toMatchObject({ ok: true });
    expect(postmasterPid(dataDir)).toBe(pid);
    await second.close();
    expect(await until(() => !alive(pid))).toBe(true);
  });
});
