import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { Engine, ExecuteRequest, ExecutionOutcome } from '../../src/engine/engine.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { generateDatabase } from '../../src/semantic/generation/generate-database.js';
import { DRAW_CHILDREN, drawChildPids } from '../../src/semantic/generation/draw-children.js';
import { createGeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { readObservedValues } from '../../src/semantic/model/observed-values.js';
import { extractGoldLiterals, type GoldLiteral } from '../../src/semantic/model/gold-literals.js';
import { createPrng } from '../../src/semantic/model/prng.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { createSearchDrawStore, planKey } from '../../src/semantic/search/search-draws.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_SCHEMA } from './shop-fixture.js';

let temp: TempSqlite;
let schema: DatabaseSchema;

beforeAll(() => {
  temp = createTempSqlite(SHOP_SCHEMA, { prefix: 'ladder-search-draws-' });
  schema = readSchema(temp.file);
});
afterAll(() => temp.remove());

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const literalsOf = (...sqls: string[]): GoldLiteral[] => sqls.flatMap((sql) => extractGoldLiterals(sql, schema));
const inputOf = (literals: readonly GoldLiteral[]) => ({ schema, snapshots: [], observed: readObservedValues([temp.file], schema), literals });
const TINY = { min: 1, max: 3 };

describe('the drawn databases a searcher keeps (search-draws.ts)', () => {
  it('gives the bytes a fresh draw of the same plan, stream and rows gives (drawn in a draw child)', async () => {
    const store = createSearchDrawStore(path.join(temp.dir, 'same-bytes'));
    const literals = literalsOf("SELECT COUNT(*) FROM orders WHERE status = 'open'");
    const draws = store.acquire(inputOf(literals));
    const fresh = createGeneratorPlan({ schema, snapshots: [temp.file], literals });
    for (let i = 0; i < 5; i += 1) {
      const drawn = await draws.draw(`0/search/${i}`, TINY);
      const direct = generateDatabase(fresh, { rng: createPrng(`0/search/${i}`), file: path.join(temp.dir, `direct-${i}.sqlite`), rows: TINY, maxAttempts: 2 });
      expect(direct.ok).toBe(true);
      if (!direct.ok || drawn.file === null) throw new Error('no database');
      // Drawn without the contract check, and still the bytes of a checked draw (nothing broke it).
      expect(sha256(drawn.file)).toBe(direct.database.checksum);
      expect(drawn.rejected).toEqual(direct.rejected);
      expect(draws.contractViolation(drawn.file)).toBeNull();
    }
    draws.release();
    store.clear();
    expect(drawChildPids().length).toBe(DRAW_CHILDREN);
  });

  it('hands a later search of the same constants the files already drawn, and another plan its own', async () => {
    const store = createSearchDrawStore(path.join(temp.dir, 'reuse'));
    // The same constant in two texts (different offsets) makes the same plan.
    const first = literalsOf("SELECT COUNT(*) FROM orders WHERE status = 'paid'");
    const second = literalsOf("SELECT count(*) FROM orders AS o WHERE o.status = 'paid' AND 1 = 1");
    expect(planKey(second)).toBe(planKey(first));
    const a = store.acquire(inputOf(first));
    const fileA = (await a.draw('0/search/0', TINY)).file;
    const b = store.acquire(inputOf(second));
    expect(b.plan()).toBe(a.plan());
    expect((await b.draw('0/search/0', TINY)).file).toBe(fileA);
    // Another stream or another size is another database.
    expect((await b.draw('0/search/1', TINY)).file).not.toBe(fileA);
    expect((await b.draw('0/search/0', { min: 2, max: 10 })).file).not.toBe(fileA);
    const other = literalsOf("SELECT COUNT(*) FROM orders WHERE status = 'void'");
    expect(planKey(other)).not.toBe(planKey(first));
    const c = store.acquire(inputOf(other));
    expect(c.plan()).not.toBe(a.plan());
    expect((await c.draw('0/search/0', TINY)).file).not.toBe(fileA);
    for (const d of [a, b, c]) d.release();
    expect(store.size).toBe(2);
    store.clear();
  });

  it("checks a file's contract on request, once (the search asks for the draws that tell its queries apart)", () => {
    const store = createSearchDrawStore(path.join(temp.dir, 'contract'));
    const draws = store.acquire(inputOf([]));
    const orphan = createTempSqlite(`PRAGMA foreign_keys = OFF; ${SHOP_SCHEMA} INSERT INTO orders VALUES (99, 42, 1.0, 'open');`, { prefix: 'ladder-search-orphan-' });
    try {
      const expected = { rule: 'foreignKeys', detail: '1 row without a parent (first in orders)' };
      expect(draws.contractViolation(orphan.file)).toEqual(expected);
      expect(draws.contractViolation(orphan.file)).toEqual(expected);
    } finally {
      orphan.remove();
      draws.release();
      store.clear();
    }
  });

  it('keys the constants by storage class: 1, 1.0 and "1" are three plans', () => {
    const key = (sql: string): string => planKey(literalsOf(sql));
    expect(new Set([key('SELECT * FROM orders WHERE amount = 1'), key('SELECT * FROM orders WHERE amount = 1.0'), key("SELECT * FROM orders WHERE amount = '1'")]).size).toBe(3);
  });

  it('keeps the files of the most recently used idle plans and removes the others', async () => {
    const dir = path.join(temp.dir, 'evict');
    const store = createSearchDrawStore(dir, { keptPlans: 1 });
    const files: string[] = [];
    for (const status of ['paid', 'open', 'void']) {
      const literals = literalsOf(`SELECT COUNT(*) FROM orders WHERE status = '${status}'`);
      const draws = store.acquire(inputOf(literals));
      files.push((await draws.draw('0/search/0', TINY)).file!);
      draws.release();
    }
    expect(store.size).toBe(1);
    expect(files.map((f) => existsSync(f))).toEqual([false, false, true]);
    // A plan in use is never dropped, however many plans come after it.
    const held = literalsOf("SELECT COUNT(*) FROM orders WHERE status = 'paid'");
    const inUse = store.acquire(inputOf(held));
    const heldFile = (await inUse.draw('0/search/0', TINY)).file!;
    for (const city of ['Oslo', 'Rome']) {
      const literals = literalsOf(`SELECT COUNT(*) FROM customers WHERE city = '${city}'`);
      store.acquire(inputOf(literals)).release();
    }
    expect(existsSync(heldFile)).toBe(true);
    // Cleared while in use: the files go when the last user lets go.
    store.clear();
    expect(existsSync(heldFile)).toBe(true);
    inUse.release();
    expect(existsSync(heldFile)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('runs a gold once per file and policy for every search of the plan, and never reuses a run a timeout shaped', async () => {
    const store = createSearchDrawStore(path.join(temp.dir, 'gold-runs'));
    const engine = createSqliteEngine();
    const ran: string[] = [];
    let timeOut = false;
    const watched: Engine = {
      ...engine,
      dialect: engine.dialect,
      execute: async (request: ExecuteRequest): Promise<ExecutionOutcome> => {
        ran.push(request.sql);
        if (timeOut) return { ok: false, error: { code: 'timeout', message: 'statement timed out' } };
        return engine.execute(request);
      },
    };
    try {
      const gold = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";
      const literals = literalsOf(gold);
      const ctx = { engine: watched, policy: resolvePolicy('default'), timeoutMs: 60_000 };
      const a = store.acquire(inputOf(literals));
      const file = (await a.draw('0/search/0', TINY)).file!;
      const first = await a.goldRun(ctx, file, gold);
      expect(first.usable).toBe(true);
      const b = store.acquire(inputOf(literals));
      expect(await b.goldRun({ ...ctx, policy: resolvePolicy('default') }, file, gold)).toBe(first);
      expect(ran).toEqual([gold]);
      // Another policy runs it again.
      await b.goldRun({ ...ctx, policy: resolvePolicy('spider') }, file, gold);
      expect(ran).toEqual([gold, gold]);
      // A run that timed out is not handed on: the next search runs the gold itself.
      const other = (await a.draw('0/search/1', TINY)).file!;
      timeOut = true;
      expect((await a.goldRun(ctx, other, gold)).usable).toBe(false);
      timeOut = false;
      expect((await b.goldRun(ctx, other, gold)).usable).toBe(true);
      expect(ran).toEqual([gold, gold, gold, gold]);
      a.release();
      b.release();
    } finally {
      store.clear();
      await engine.close();
    }
  });
});
