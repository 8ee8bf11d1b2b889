/**
 * The child's watchdog ends a runaway statement at its deadline however the statement starts:
 * right after another one, after a short wait for the parent (the thread is still sampling then,
 * and is not woken), or after the child sat idle (the thread sleeps, and the statement wakes it).
 * The exact message tells the watchdog's kill from the parent's backstop (2 × deadline + 5 s).
 * A new child takes jobs before its watchdog thread runs: a runaway statement or a memory bomb
 * sent as its very first job is still ended by the watchdog, once the thread has booted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_AFTER_MS } from '../src/engine/sqlite/child-watchdog.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { createTempSqlite, type TempSqlite } from '../tests/helpers/temp-sqlite.js';

const DEADLINE_MS = 300;
const RUNAWAY = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000000000) SELECT count(*) FROM c';
const MEMORY_BOMB = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT length(group_concat(printf('%.1000c', 'x'), '')) FROM c";
/** Generous on a loaded machine, and far below the backstop (5.6 s). */
const BOUND_MS = DEADLINE_MS + 2_000;

let db: TempSqlite;
let engine: SqliteEngine;
const measured: string[] = [];

beforeAll(() => {
  db = createTempSqlite('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);', { prefix: 'ladder-faults-wake-' });
  engine = createSqliteEngine({ poolSize: 1, timeoutMs: DEADLINE_MS });
});

afterAll(async () => {
  await engine.close();
  db.remove();
  process.stdout.write(`\nrunaway statement with a ${DEADLINE_MS} ms deadline, send → timeout result:\n${measured.map((line) => `  ${line}`).join('\n')}\n`);
});

describe('a runaway statement', () => {
  it.each([
    ['right after another statement', 0],
    ['after a wait shorter than the watchdog goes on sampling', Math.floor(IDLE_AFTER_MS / 3)],
    ['after the child sat idle', 4 * IDLE_AFTER_MS],
  ])('is ended by the watchdog at its deadline %s', async (name, gapMs) => {
    expect(await engine.execute({ db: db.file, sql: 'SELECT a FROM t' })).toMatchObject({ ok: true, result: { rows: [[1]] } });
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const sent = performance.now();
    const outcome = await engine.execute({ db: db.file, sql: RUNAWAY });
    const tookMs = performance.now() - sent;
    measured.push(`${name}: ${tookMs.toFixed(1)} ms`);
    expect(outcome).toEqual({ ok: false, error: { code: 'timeout', message: `timeout: deadline of ${DEADLINE_MS} ms passed; child process killed` } });
    expect(tookMs).toBeLessThan(BOUND_MS);
  });
});

describe("a new child's first job, sent before its watchdog thread runs", () => {
  it('is ended at its deadline when it runs away', async () => {
    const fresh = createSqliteEngine({ poolSize: 1, timeoutMs: 50 });
    try {
      const sent = performance.now();
      const outcome = await fresh.execute({ db: db.file, sql: RUNAWAY });
      const tookMs = performance.now() - sent;
      measured.push(`first job of a new child, 50 ms deadline: ${tookMs.toFixed(1)} ms`);
      expect(outcome).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 50 ms passed; child process killed' } });
      // Far below the backstop (5.1 s): the watchdog, not the parent, ended it.
      expect(tookMs).toBeLessThan(2_000);
    } finally {
      await fresh.close();
    }
  });

  it('is ended at the memory cap when it allocates without bound', async () => {
    const fresh = createSqliteEngine({ poolSize: 1, maxMemoryBytes: 128 * 2 ** 20, timeoutMs: 120_000 });
    try {
      const outcome = await fresh.execute({ db: db.file, sql: MEMORY_BOMB });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'memory_limit' } });
      expect(outcome.ok === false && outcome.error.message).toMatch(/^memory limit: child RSS [\d.]+ MiB passed the cap of 128 MiB \(maxMemoryBytes\); child process killed$/);
    } finally {
      await fresh.close();
    }
  });
});
