/**
 * The pool's batches: jobs queued for a busy child leave in one IPC message, each keeps its own
 * deadline from its own start in the child, and a child that dies in the middle of a batch fails
 * only the job it was running (the jobs after it run on the replacement). Uses test-db.ts's
 * `music.sqlite`, a pool of one child (no hand-back: there is nowhere else to run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlitePool, type PoolOutcome, type SqlitePool } from '../../../src/engine/sqlite/sqlite-pool.js';
import type { ChildRequest } from '../../../src/engine/sqlite/sqlite-protocol.js';
import { buildTestDb, type TestDb } from './test-db.js';

/** Counts to 2·10^7 one row at a time: well over a second of SQLite work on this machine. */
const SLOW_SQL = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000000) SELECT count(*) FROM c';
/** Counts to 2·10^8: about 45 s. */
const RUNAWAY_SQL = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000000) SELECT count(*) FROM c';

let fixture: TestDb;
let pool: SqlitePool;

beforeAll(() => {
  fixture = buildTestDb();
});

afterAll(() => {
  fixture.remove();
});

function job(sql: string, timeoutMs = 10_000): Omit<ChildRequest, 'id'> {
  return { op: 'execute', db: fixture.file, sql, maxRows: 1000, maxResultBytes: 2 ** 20, timeoutMs, doubleQuotes: 'legacy' };
}

/** Rows of an outcome, or its error code and message. */
function shown(outcome: PoolOutcome): unknown {
  if (!outcome.ok) return outcome.error;
  return 'result' in outcome && 'rows' in outcome.result ? outcome.result.rows : outcome;
}

/** The child's own time for an execute job, in ms. */
function elapsedOf(outcome: PoolOutcome): number | undefined {
  return outcome.ok && 'result' in outcome && 'elapsedMs' in outcome.result ? outcome.result.elapsedMs : undefined;
}

describe('batches', () => {
  beforeAll(async () => {
    pool = createSqlitePool({ size: 1, maxMemoryBytes: 512 * 2 ** 20 });
    expect(shown(await pool.run(job('SELECT 0')))).toEqual([[0]]);
    expect(pool.sent).toEqual({ batches: 1, jobs: 1 });
  });
  afterAll(() => pool.close());

  it('sends the job for an idle child at once and the jobs queued behind it in one message', async () => {
    const outcomes = Promise.all([1, 2, 3, 4, 5].map((i) => pool.run(job(`SELECT ${i} AS i, count(*) FROM concert`))));
    // The first left at once (the child was idle); the other four wait for the end of this turn.
    expect(pool.sent).toEqual({ batches: 2, jobs: 2 });
    expect((await outcomes).map(shown)).toEqual([[[1, 3]], [[2, 3]], [[3, 3]], [[4, 3]], [[5, 3]]]);
    expect(pool.sent).toEqual({ batches: 3, jobs: 6 });
  });

  it('counts each deadline in a batch from that job’s own start in the child', async () => {
    const slow = pool.run(job(SLOW_SQL, 120_000));
    // One batch behind the slow job: a quick job whose 300 ms deadline would have passed had it
    // started when the batch arrived, a runaway that meets its own, and one more after it.
    const rest = [pool.run(job('SELECT 2', 300)), pool.run(job(RUNAWAY_SQL, 300)), pool.run(job('SELECT 4', 300))];
    const first = await slow;
    expect(shown(first)).toEqual([[20_000_000]]);
    expect(elapsedOf(first)).toBeGreaterThan(300);
    expect((await Promise.all(rest)).map(shown)).toEqual([
      [[2]],
      { code: 'timeout', message: 'timeout: deadline of 300 ms passed; child process killed' },
      [[4]],
    ]);
    // warm-up, 1 + 4, the slow job alone, the three behind it, `SELECT 4` again on the replacement.
    expect(pool.sent).toEqual({ batches: 6, jobs: 11 });
  });

  it('fails only the running job when the child dies mid-batch, and runs the rest on the replacement', async () => {
    const before = pool.sent;
    const opener = pool.run(job('SELECT 0'));
    const batch = [pool.run(job('SELECT 1')), pool.run(job(RUNAWAY_SQL, 60_000)), pool.run(job('SELECT 3')), pool.run(job('SELECT 4'))];
    const [pid] = pool.childPids;
    expect(shown(await opener)).toEqual([[0]]);
    expect(shown(await batch[0]!)).toEqual([[1]]);
    // The runaway is running now (its batch-mates behind it).
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid!, 'SIGTERM');
    expect((await Promise.all(batch)).map(shown)).toEqual([
      [[1]],
      { code: 'engine_failure', message: 'engine failure: child process died (signal SIGTERM); replaced' },
      [[3]],
      [[4]],
    ]);
    expect(pool.childPids).not.toContain(pid);
    // The opener alone, the four in one message, then the two requeued ones in one message.
    expect({ batches: pool.sent.batches - before.batches, jobs: pool.sent.jobs - before.jobs }).toEqual({ batches: 3, jobs: 7 });
  });
});
