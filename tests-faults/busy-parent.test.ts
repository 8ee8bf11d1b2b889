/**
 * Deadline and memory cap hold while the parent's event loop is blocked for 5 s, as it is during
 * long synchronous grading: a memory bomb ends at the cap (peak RSS measured from a worker thread
 * of this process, which the block does not stop), a runaway statement ends at its deadline, and
 * a statement that finished in a fraction of a millisecond is not turned into a timeout. (Before,
 * with the parent busy 5.7 s a child reached 2 389 MiB under a 512 MiB cap, and a 0.1 ms
 * `SELECT count(*)` came back `timeout`.)
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { createTempSqlite, type TempSqlite } from '../tests/helpers/temp-sqlite.js';
import { blockFor, isRunning } from './processes.js';

const BLOCK_MS = 5_000;
const CAP = 256 * 2 ** 20;
/** Grows one string without end (until SQLite's 1 GB length limit): about 1 GB/s of heap. */
const MEMORY_BOMB = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT length(group_concat(printf('%.1000c', 'x'), '')) FROM c";
const RUNAWAY = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000000000) SELECT count(*) FROM c';

let db: TempSqlite;
let engine: SqliteEngine;
const measured: string[] = [];

beforeAll(async () => {
  db = createTempSqlite('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3);', { prefix: 'ladder-faults-busy-' });
  engine = createSqliteEngine({ poolSize: 1, maxMemoryBytes: CAP, timeoutMs: 300 });
  await engine.execute({ db: db.file, sql: 'SELECT 1' });
});

afterAll(async () => {
  await engine.close();
  db.remove();
  process.stdout.write(`\nwith the parent blocked for ${BLOCK_MS} ms:\n${measured.map((line) => `  ${line}`).join('\n')}\n`);
});

/**
 * Samples a process from a worker thread every 2 ms (the main thread will be blocked): its
 * peak RSS (VmHWM) and the time (epoch ms) it stopped running. Resolves once the thread has
 * taken its first sample, so that the block cannot delay its start.
 */
async function sample(pid: number): Promise<{ stop: () => Promise<{ peakBytes: number; goneAt: number | null }> }> {
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const fs = require('node:fs');
     const control = new Int32Array(workerData.control);
     let peak = 0, goneAt = null;
     const tick = () => {
       try {
         const status = fs.readFileSync('/proc/' + workerData.pid + '/status', 'utf8');
         const hwm = /VmHWM:\\s+(\\d+)/.exec(status); if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
         if (/State:\\s+[ZX]/.test(status) && goneAt === null) goneAt = Date.now();
       } catch { if (goneAt === null) goneAt = Date.now(); }
     };
     tick();
     Atomics.store(control, 1, 1);
     while (Atomics.load(control, 0) === 0 && goneAt === null) { Atomics.wait(control, 0, 0, 2); tick(); }
     parentPort.postMessage({ peakBytes: peak, goneAt });`,
    { eval: true, workerData: { pid, control: control.buffer } },
  );
  // Listen at once: the result may come before stop() is called.
  const result = new Promise<{ peakBytes: number; goneAt: number | null }>((resolve) => worker.once('message', resolve));
  while (Atomics.load(control, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    stop: async () => {
      Atomics.store(control, 0, 1);
      Atomics.notify(control, 0);
      const value = await result;
      await worker.terminate();
      return value;
    },
  };
}

describe('a parent blocked for 5 s', () => {
  it('does not let a memory bomb grow: the child ends at the cap', async () => {
    const [pid] = engine.childPids;
    const sampler = await sample(pid!);
    const sent = Date.now();
    const bomb = engine.execute({ db: db.file, sql: MEMORY_BOMB, timeoutMs: 120_000 });
    blockFor(BLOCK_MS);
    expect(isRunning(pid!)).toBe(false);
    const outcome = await bomb;
    const { peakBytes, goneAt } = await sampler.stop();
    expect(outcome).toMatchObject({ ok: false, error: { code: 'memory_limit' } });
    // The child's watchdog reports the RSS it measured when it killed the process: the peak.
    const atKill = Number(/child RSS (\d+(?:\.\d)?) MiB/.exec(outcome.ok ? '' : outcome.error.message)?.[1]);
    measured.push(
      `memory bomb under a ${CAP / 2 ** 20} MiB cap: RSS ${atKill} MiB when the child's watchdog killed it ${goneAt === null ? '' : `${goneAt - sent} ms after the statement was sent `}(highest VmHWM this process's sampler saw: ${(peakBytes / 2 ** 20).toFixed(1)} MiB)`,
    );
    // Sampled every 10 ms inside the child: at most one sample's growth above the cap.
    expect(atKill * 2 ** 20).toBeLessThan(CAP + 64 * 2 ** 20);
  });

  it('does not let a runaway statement run past its deadline', async () => {
    await engine.execute({ db: db.file, sql: 'SELECT 1' });
    const [pid] = engine.childPids;
    const sampler = await sample(pid!);
    const sent = Date.now();
    const runaway = engine.execute({ db: db.file, sql: RUNAWAY });
    blockFor(BLOCK_MS);
    const outcome = await runaway;
    const { goneAt } = await sampler.stop();
    measured.push(`runaway statement with a 300 ms deadline: child killed ${goneAt === null ? '(not seen)' : goneAt - sent} ms after the statement was sent; outcome ${outcome.ok ? 'ok' : outcome.error.message}`);
    expect(outcome).toEqual({ ok: false, error: { code: 'timeout', message: 'timeout: deadline of 300 ms passed; child process killed' } });
    expect(goneAt).not.toBeNull();
    expect(goneAt! - sent).toBeLessThan(BLOCK_MS);
  });

  it('does not turn a statement that finished into a timeout', async () => {
    await engine.execute({ db: db.file, sql: 'SELECT 1' });
    const quick = engine.execute({ db: db.file, sql: 'SELECT count(*) FROM t' });
    blockFor(BLOCK_MS);
    const outcome = await quick;
    measured.push(`SELECT count(*) with a 300 ms deadline: ${outcome.ok ? `ok, ${outcome.result.elapsedMs.toFixed(3)} ms in the child` : outcome.error.message}`);
    expect(outcome).toMatchObject({ ok: true, result: { rows: [[3]] } });
  });
});
