import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { Engine, ExecuteRequest } from '../../src/engine/engine.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { RungResult } from '../../src/rungs/rung-result.js';
import type { SearchStepDetails, SemanticDetails } from '../../src/rungs/semantic-details.js';
import { checkSemantic } from '../../src/semantic/check-semantic.js';
import { readSemanticOptions, type SemanticOptions } from '../../src/semantic/semantic-options.js';
import { createSemanticService } from '../../src/semantic/semantic-service.js';
import { countTransientFailures } from '../../src/semantic/model/transient-failures.js';
import { machineBoundCause, readVerdict, storeVerdict, verdictKey, type VerdictKeyInput } from '../../src/semantic/verdict-cache.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_SCHEMA } from './shop-fixture.js';

const PAID = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";
const ALL = 'SELECT COUNT(*) FROM orders';
const COMMUTED = "SELECT COUNT(*) FROM orders WHERE 'paid' = status";
const BLOB_GOLD = "SELECT CAST(name AS BLOB), 9007199254740993 FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE status = 'paid') ORDER BY 1";
const BLOB_PREDICTED = 'SELECT CAST(name AS BLOB), 9007199254740993 FROM customers WHERE customer_id IN (SELECT customer_id FROM orders) ORDER BY 1';

let temp: TempSqlite;
let engine: SqliteEngine;
let cacheDir: string;

beforeAll(() => {
  temp = createTempSqlite(SHOP_SCHEMA, { prefix: 'ladder-verdicts-', name: 'base.sqlite' });
  cacheDir = path.join(temp.dir, 'cache');
  engine = createSqliteEngine({ poolSize: 2 });
});
afterAll(async () => {
  await engine.close();
  temp.remove();
});

const policy = resolvePolicy('default');
const snapshots = (): { name: string; path: string }[] => [{ name: 'base', path: temp.file }];
/** Budgets bounded by databases only, so that no verdict depends on the machine's load. */
const options = (over: Record<string, unknown> = {}): SemanticOptions => readSemanticOptions({ cacheDir, suite: { maxSeconds: 600 }, search: { maxSeconds: 600 }, ...over });

/** The pairs judged: a pass, a suite rejection, a search refutation, a snapshot refutation, blob and bigint cells in a witness. */
const PAIRS: readonly { readonly golds: readonly string[]; readonly predicted: string; readonly over?: Record<string, unknown> }[] = [
  { golds: [PAID], predicted: COMMUTED },
  { golds: [PAID], predicted: ALL },
  { golds: [PAID], predicted: ALL, over: { suite: false } },
  { golds: ['SELECT COUNT(*) FROM customers'], predicted: ALL },
  { golds: [BLOB_GOLD], predicted: BLOB_PREDICTED, over: { suite: false } },
];

/** Judges every pair with a fresh service (a new run), the options changed by `over`. */
async function judgeAll(over: Record<string, unknown> = {}, on: Engine = engine): Promise<RungResult<SemanticDetails>[]> {
  const service = createSemanticService();
  try {
    const results: RungResult<SemanticDetails>[] = [];
    for (const pair of PAIRS) {
      results.push(await checkSemantic({ predictedSql: pair.predicted, golds: pair.golds, snapshots: snapshots(), engine: on, policy, options: options({ ...pair.over, ...over }), service }));
    }
    return results;
  } finally {
    service.close();
  }
}

/**
 * A verdict as bytes: JSON of the whole result with cells JSON would not carry exactly spelt out,
 * wall times left out (`elapsedMs`: the machine's) and `details.verdictCache` left out (what the
 * cache did, the only part meant to differ).
 */
function verdictBytes(result: RungResult<SemanticDetails>): string {
  const { verdictCache: _cache, ...details } = result.details;
  return JSON.stringify({ ...result, details }, (key, value: unknown) => {
    if (key === 'elapsedMs') return undefined;
    if (typeof value === 'bigint') return `bigint:${value}`;
    if (value instanceof Uint8Array) return `blob:${Buffer.from(value).toString('hex')}`;
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) return `real:${Object.is(value, -0) ? '-0' : String(value)}`;
    return value;
  });
}

describe('the verdict cache', () => {
  it('keeps every verdict byte-identical: cold caches, verdicts stored, read back, judged again with the cache off, and after the caches are deleted', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const cold = await judgeAll();
    const fromCache = await judgeAll();
    const cacheOff = await judgeAll({ verdictCache: false });
    rmSync(cacheDir, { recursive: true, force: true });
    const rebuilt = await judgeAll({ verdictCache: false });

    expect(cold.map((r) => `${r.status} ${r.details.rejectedBy ?? '-'} ${r.details.verdictCache.status}`)).toEqual(['pass - stored', 'fail suite stored', 'fail search stored', 'fail snapshot stored', 'fail search stored']);
    expect(fromCache.map((r) => r.details.verdictCache)).toEqual(PAIRS.map(() => ({ status: 'hit' })));
    expect(cacheOff.map((r) => r.details.verdictCache)).toEqual(PAIRS.map(() => ({ status: 'off' })));
    for (const run of [fromCache, cacheOff, rebuilt]) expect(run.map(verdictBytes)).toEqual(cold.map(verdictBytes));
    // The cells JSON would not carry survive the cache exactly.
    const witness = fromCache[4]!.details.search!.witnesses[0]!;
    expect(witness.predicted).toMatchObject({ ok: true, result: { rows: [[new Uint8Array(Buffer.from('a')), 9007199254740993n]] } });
  });

  it('judges a key once when two rows ask at the same moment: the second reads what the first stored', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const service = createSemanticService();
    try {
      const row = () => checkSemantic({ predictedSql: COMMUTED, golds: [PAID], snapshots: snapshots(), engine, policy, options: options(), service });
      const [first, second] = await Promise.all([row(), row()]);
      expect([first.details.verdictCache.status, second.details.verdictCache.status]).toEqual(['stored', 'hit']);
      expect(verdictBytes(second)).toBe(verdictBytes(first));
    } finally {
      service.close();
    }
  });

  it('keys a verdict on what can change it: another prediction, option or policy is judged afresh', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    await judgeAll();
    const service = createSemanticService();
    try {
      const judge = (over: Record<string, unknown>, extra: { policy?: ReturnType<typeof resolvePolicy>; predictedSql?: string } = {}) =>
        checkSemantic({ predictedSql: extra.predictedSql ?? COMMUTED, golds: [PAID], snapshots: snapshots(), engine, policy: extra.policy ?? policy, options: options(over), service });
      expect((await judge({})).details.verdictCache.status).toBe('hit');
      expect((await judge({ seed: 7 })).details.verdictCache.status).toBe('stored');
      expect((await judge({ search: { maxSeconds: 600, maxDatabases: 50 } })).details.verdictCache.status).toBe('stored');
      expect((await judge({}, { policy: resolvePolicy('spider') })).details.verdictCache.status).toBe('stored');
      expect((await judge({}, { predictedSql: `${COMMUTED} ` })).details.verdictCache.status).toBe('stored');
    } finally {
      service.close();
    }
  });

  it('never stores a verdict a transient failure shaped (here: the prediction times out on every generated database)', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const slow: Engine = {
      ...engine,
      dialect: engine.dialect,
      execute: (request: ExecuteRequest) =>
        request.sql === ALL && request.db !== temp.file ? Promise.resolve({ ok: false, error: { code: 'timeout', message: 'deadline of 1 ms passed' } }) : engine.execute(request),
      prepare: (request: ExecuteRequest) => engine.prepare(request),
      explain: (request: ExecuteRequest) => engine.explain(request),
      catalog: (db: string) => engine.catalog(db),
      close: async () => undefined,
    };
    const service = createSemanticService();
    try {
      const result = await checkSemantic({ predictedSql: ALL, golds: [PAID], snapshots: snapshots(), engine: slow, policy, options: options({ suite: false, search: { maxSeconds: 600, maxDatabases: 5 } }), service });
      expect(result.status).toBe('pass');
      expect(result.details.search).toMatchObject({ verdict: 'not_refuted_within_budget', stoppedBy: 'databases', transientFailures: 5 });
      expect(result.details.verdictCache).toEqual({ status: 'not_stored', reason: 'a statement timed out, went over its memory cap or lost its child process' });
      const again = await checkSemantic({ predictedSql: ALL, golds: [PAID], snapshots: snapshots(), engine: slow, policy, options: options({ suite: false, search: { maxSeconds: 600, maxDatabases: 5 } }), service });
      expect(again.details.verdictCache.status).toBe('not_stored');
    } finally {
      service.close();
    }
  });

  it('reads an unreadable or foreign file as a miss, and reports a folder it cannot write instead of throwing', async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const [first] = await judgeAll({}).then((all) => all.slice(0, 1));
    const folder = path.join(cacheDir, 'verdicts');
    const [sub] = readdirSync(folder);
    const [file] = readdirSync(path.join(folder, sub!));
    const key = file!.replace(/\.v8$/, '');
    expect(readVerdict(folder, key)?.rung).toBe('semantic');
    writeFileSync(path.join(folder, sub!, file!), 'not a verdict');
    expect(readVerdict(folder, key)).toBeUndefined();
    expect(readVerdict(folder, 'f'.repeat(64))).toBeUndefined();

    const blocked = path.join(temp.dir, 'blocked');
    writeFileSync(blocked, 'a file where a folder should be');
    expect(storeVerdict(blocked, key, first!)).toMatch(/^(ENOTDIR|EEXIST)/);
    const service = createSemanticService();
    try {
      const blockedDir = path.join(temp.dir, 'blocked-cache');
      mkdirSync(blockedDir, { recursive: true });
      writeFileSync(path.join(blockedDir, 'verdicts'), 'a file where the verdicts folder should be');
      const result = await checkSemantic({ predictedSql: COMMUTED, golds: [PAID], snapshots: snapshots(), engine, policy, options: readSemanticOptions({ cacheDir: blockedDir, suite: false, search: { maxSeconds: 600, maxDatabases: 3 } }), service });
      expect(result.status).toBe('pass');
      expect(result.details.verdictCache).toMatchObject({ status: 'not_stored', reason: expect.stringMatching(/^the cache could not be written: (ENOTDIR|EEXIST)/) });
    } finally {
      service.close();
      rmSync(blocked, { force: true });
      rmSync(path.join(temp.dir, 'blocked-cache'), { recursive: true, force: true });
    }
  });
});

describe('a suite build shared by concurrent rows', () => {
  it('fails only the rows that wait on it, each with the cause, and the next item builds afresh', async () => {
    const blocked = path.join(temp.dir, 'not-a-folder');
    writeFileSync(blocked, 'a file where the suite cache folder should be');
    const service = createSemanticService();
    try {
      const row = (dir: string, predictedSql: string) =>
        checkSemantic({ predictedSql, golds: [PAID], snapshots: snapshots(), engine, policy, options: readSemanticOptions({ cacheDir: dir, suite: { maxSeconds: 600 }, search: false }), service });
      const [strong, weak] = await Promise.allSettled([row(blocked, COMMUTED), row(blocked, ALL)]);
      for (const settled of [strong, weak]) {
        expect(settled.status).toBe('rejected');
        expect(String((settled as PromiseRejectedResult).reason)).toMatch(/^LadderError: L5 could not build the test suite of the item's golds: (ENOTDIR|EEXIST)/);
      }
      rmSync(blocked, { force: true });
      const next = await row(blocked, ALL);
      expect([next.status, next.details.rejectedBy]).toEqual(['fail', 'suite']);
    } finally {
      service.close();
      rmSync(blocked, { recursive: true, force: true });
    }
  });
});

describe('verdictKey', () => {
  const base: VerdictKeyInput = {
    snapshots: [{ name: 'base', path: 'unused.sqlite', checksum: 'a'.repeat(64) }],
    invariants: '[]',
    executedGolds: [PAID],
    executedPrediction: ALL,
    policy,
    options: readSemanticOptions({ cacheDir: 'one' }),
    goldOrdered: undefined,
    asOfDate: undefined,
    engine: { dialect: 'sqlite', options: { timeoutMs: 10_000, maxRows: 100_000, maxMemoryBytes: 1, maxResultBytes: 2, doubleQuotes: 'legacy', poolSize: 2 } } as unknown as Engine,
    versions: { generator: 3, distill: 2, suiteFormat: 2, sqlite: '3.50.0', package: '0.2.0' },
  };
  const key = verdictKey(base);

  it.each<[string, Partial<VerdictKeyInput>]>([
    ['a snapshot checksum', { snapshots: [{ name: 'base', path: 'unused.sqlite', checksum: 'b'.repeat(64) }] }],
    ['a snapshot name', { snapshots: [{ name: 'jan', path: 'unused.sqlite', checksum: 'a'.repeat(64) }] }],
    ['the invariants', { invariants: '[{"kind":"values"}]' }],
    ['the golds', { executedGolds: [PAID, ALL] }],
    ['the prediction', { executedPrediction: COMMUTED }],
    ['the policy', { policy: resolvePolicy('spider') }],
    ['the seed', { options: readSemanticOptions({ cacheDir: 'one', seed: 1 }) }],
    ['the NULL policy', { options: readSemanticOptions({ cacheDir: 'one', nulls: 'observed' }) }],
    ['the empty-vs-NULL-row rule', { options: readSemanticOptions({ cacheDir: 'one', emptyVsNullRow: 'different' }) }],
    ['a step turned off', { options: readSemanticOptions({ cacheDir: 'one', suite: false }) }],
    ['a budget', { options: readSemanticOptions({ cacheDir: 'one', search: { maxDatabases: 10 } }) }],
    ['gold_result_ordered', { goldOrdered: true }],
    ['as_of_date', { asOfDate: '2024-01-01' }],
    ['the engine deadline', { engine: { dialect: 'sqlite', options: { ...(base.engine as unknown as { options: object }).options, timeoutMs: 5000 } } as unknown as Engine }],
    ['the generator version', { versions: { ...base.versions, generator: 4 } }],
    ["SQLite's version", { versions: { ...base.versions, sqlite: '3.51.0' } }],
  ])('changes with %s', (_what, change) => {
    expect(verdictKey({ ...base, ...change })).not.toBe(key);
  });

  it('does not change with the cache folders or the pool size', () => {
    expect(verdictKey({ ...base, options: readSemanticOptions({ cacheDir: 'two' }) })).toBe(key);
    expect(verdictKey({ ...base, engine: { dialect: 'sqlite', options: { ...(base.engine as unknown as { options: object }).options, poolSize: 8 } } as unknown as Engine })).toBe(key);
  });
});

describe('machineBoundCause', () => {
  const search = (over: Partial<SearchStepDetails>): SemanticDetails => ({
    rejectedBy: null,
    rejectedDatabases: {},
    suite: null,
    goldAmbiguity: [],
    search: { verdict: 'not_refuted_within_budget', reason: '', witnesses: [], databases: 100, elapsedMs: 1, stoppedBy: 'databases', transientFailures: 0, rejectedDatabases: {}, ...over },
    verdictCache: { status: 'off' },
  });

  it.each<[string, SemanticDetails, number, string | null]>([
    ['a search that used its database budget', search({}), 0, null],
    ['a search stopped at its time budget', search({ stoppedBy: 'seconds' }), 0, 'the search stopped at its time budget'],
    ['a timeout in the search', search({ transientFailures: 1 }), 0, 'a statement timed out, went over its memory cap or lost its child process'],
    ['a timeout on a snapshot or the suite', search({}), 2, 'a statement timed out, went over its memory cap or lost its child process'],
    [
      'a witness shrunk until the deadline',
      search({ verdict: 'refuted', stoppedBy: null, witnesses: [{ shrink: { stoppedBy: 'deadline' } } as unknown as SearchStepDetails['witnesses'][number]] }),
      0,
      "a witness's shrinking stopped at the search's deadline",
    ],
  ])('%s', (_what, details, transient, cause) => {
    expect(machineBoundCause(details, transient, null, [PAID])).toBe(cause);
  });

  it("a suite whose build for the item's gold stopped at its time budget", () => {
    const suite = { golds: [{ executedSql: PAID, stopReason: 'seconds' }, { executedSql: ALL, stopReason: 'covered' }] } as unknown as Parameters<typeof machineBoundCause>[2];
    expect(machineBoundCause(search({}), 0, suite, [PAID])).toBe("the item's suite stopped at its time budget when it was built");
    expect(machineBoundCause(search({}), 0, suite, [ALL])).toBeNull();
  });
});

describe('countTransientFailures', () => {
  it('counts timeouts, memory caps and lost children, and nothing else', async () => {
    const outcomes = ['timeout', 'memory_limit', 'engine_failure', 'sqlite_error', 'result_too_large'].map((code) => ({ ok: false as const, error: { code: code as 'timeout', message: code } }));
    let next = 0;
    const stub = { dialect: 'sqlite', execute: async () => outcomes[next++]!, prepare: async () => outcomes[next++]!, explain: async () => outcomes[next++]!, catalog: async () => ({ tables: [] }), close: async () => undefined } as unknown as Engine;
    const counting = countTransientFailures(stub);
    await counting.engine.execute({ db: 'x', sql: 'SELECT 1' });
    await counting.engine.prepare({ db: 'x', sql: 'SELECT 1' });
    await counting.engine.explain({ db: 'x', sql: 'SELECT 1' });
    await counting.engine.execute({ db: 'x', sql: 'SELECT 1' });
    await counting.engine.execute({ db: 'x', sql: 'SELECT 1' });
    expect(counting.count()).toBe(3);
  });
});
