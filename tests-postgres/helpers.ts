/** Shared set-up of the PostgreSQL tests: engines on the run's private server folder, and the admin's client. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { connect } from '../src/engine/postgres/pg-server.js';
import { createPostgresEngine, type PostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import type { PostgresEngineOptions } from '../src/engine/postgres/postgres-engine-options.js';

/** The run's temporary folder (tests-postgres/global-setup.ts). */
export const testDir = process.env['TEXT2SQL_LADDER_PG_TEST_DIR'] ?? '/tmp/t2sl-pg-dev';
/** Folder of the private server every test engine shares. */
export const serverDir = path.join(testDir, 'server');
/** The PostgreSQL test fixtures. */
export const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** An engine on the run's private server. */
export function testEngine(options: PostgresEngineOptions = {}): PostgresEngine {
  return createPostgresEngine({ cacheDir: serverDir, poolSize: 2, timeoutMs: 5_000, ...options });
}

/** A client of the server's admin on `database` (the caller ends it). */
export async function adminClient(engine: PostgresEngine, database = 'postgres'): Promise<pg.Client> {
  return connect(await engine.server(), 'admin', database);
}

/** The pid a private server's folder names in `postmaster.pid`, or `undefined` when none runs there. */
export function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

/** Whether process `pid` exists (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a state (not for time): true once `check` holds, false after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
