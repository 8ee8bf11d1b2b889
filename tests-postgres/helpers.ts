/** Shared set-up of the PostgreSQL tests: engines on the run's private server folder, and the admin's client. */
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
