import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { createCounterexampleSearcher, searchCounterexample, type CounterexampleSearcher } from '../../src/semantic/search/counterexample-search.js';
import type { RefutedOutcome, SearchOutcome } from '../../src/semantic/search/search-outcome.js';
import { fileContractViolation } from '../../src/semantic/generation/database-contract.js';
import { createGeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { resolveSearchBudget, tierOfDraw } from '../../src/semantic/search/search-budget.js';
import { bindInvariants, readFixtureInvariants } from '../../src/semantic/model/invariants.js';
import { readSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_SCHEMA } from './shop-fixture.js';

/** The shop plus a rowid table without a key (its scan order is its insertion order). */
const SCHEMA = `${SHOP_SCHEMA}
CREATE TABLE tags (name TEXT NOT NULL);
INSERT INTO tags VALUES ('x'), ('y');
`;

let temp: TempSqlite;
let engine: SqliteEngine;
let searcher: CounterexampleSearcher;

beforeAll(() => {
  temp = createTempSqlite(SCHEMA, { prefix: 'ladder-search-', name: 'base.sqlite' });
  engine = createSqliteEngine({ poolSize: 2 });
  searcher = createCounterexampleSearcher({ engine, schemaDb: temp.file, workDir: path.join(temp.dir, 'work') });
});
afterAll(async () => {
  searcher.close();
  await engine.close();
  temp.remove();
});

const PAID = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";

function refuted(outcome: SearchOutcome): RefutedOutcome {
  if (outcome.verdict !== 'refuted') throw new Error(`expected a refutation, got ${outcome.verdict}: ${outcome.reason}`);
  return outcome;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

describe('counterexample search: options', () => {
  it('validates the budget with named fields', () => {
    expect(resolveSearchBudget()).toEqual({ maxDatabases: 100, maxSeconds: 60, maxShrinkTrials: 150 });
    expect(() => resolveSearchBudget({ maxDatabases: 0 })).toThrow('budget.maxDatabases must be an integer ≥ 1; received a number (0)');
    expect(() => resolveSearchBudget({ maxSeconds: -1 })).toThrow('budget.maxSeconds must be a finite number > 0 (seconds); received a number (-1)');
    expect(() => resolveSearchBudget({ maxShrinkTrial: 3 } as never)).toThrow('budget.maxShrinkTrial is not an option (did you mean budget.maxShrinkTrials?)');
  });

  it('draws tiny databases first, then larger ones', () => {
    expect([0, 59, 60, 84, 85, 99].map((i) => tierOfDraw(i, 100).name)).toEqual(['tiny', 'tiny', 'small', 'small', 'medium', 'medium']);
    expect([0, 5, 6, 8, 9].map((i) => tierOfDraw(i, 10).name)).toEqual(['tiny', 'tiny', 'small', 'small', 'medium']);
  });

  it('rejects misuse with the option named', async () => {
    await expect(searcher.search({ golds: [], predictedSql: 'SELECT 1' })).rejects.toThrow('golds must be a non-empty array of SQL strings; received an array');
    await expect(searcher.search({ golds: [PAID], predictedSql: PAID, emptyVsNullRow: 'equal' as never })).rejects.toThrow("emptyVsNullRow must be one of 'same', 'different'; received a string (\"equal\")");
    await expect(searcher.search({ golds: [PAID], predictedSql: PAID, seeds: 1 } as never)).rejects.toThrow('seeds is not an option (did you mean seed?)');
    await expect(searchCounterexample({ engine, schemaDb: path.join(temp.dir, 'none.sqlite'), golds: [PAID], predictedSql: PAID })).rejects.toThrow(`schemaDb ${path.join(temp.dir, 'none.sqlite')} does not exist`);
  });

  it('does not search a prediction that does not prepare on the schema', async () => {
    const outcome = await searcher.search({ golds: [PAID], predictedSql: 'SELECT COUNT(*) FROM order' });
    expect({ verdict: outcome.verdict, reason: outcome.reason }).toEqual({
      verdict: 'not_searched',
      reason: 'not searched: the prediction does not prepare on the schema (syntax_error: near "order": syntax error)',
    });
  });
});

describe('counterexample search on the shop (every order of the base snapshot is paid)', () => {
  it('refutes a dropped filter with a shrunk, re-run witness', async () => {
    const outcome = refuted(await searcher.search({ golds: [PAID], predictedSql: 'SELECT COUNT(*) FROM orders' }));
    expect(outcome.reason).toBe(
      "refuted on a 2-row database: gold returns [0], prediction [1]; INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', 'a'); INSERT INTO orders (order_id, customer_id, amount, status) VALUES (1, 1, 1.0, 'open');",
    );
    const w = outcome.witness;
    expect({ golds: w.golds, rowsPerTable: w.rowsPerTable, maxRowsPerTable: w.maxRowsPerTable, difference: w.difference, draw: w.draw }).toEqual({
      golds: [0], rowsPerTable: { customers: 1, orders: 1, tags: 0 }, maxRowsPerTable: 1, difference: 'gold [0] vs predicted [1]', draw: { index: 0, tier: 'tiny' },
    });
    expect(w.goldResults.map((r) => r.rows)).toEqual([[[0]]]);
    expect(w.predicted.ok && w.predicted.result.rows).toEqual([[1]]);
    expect(w.shrink.rowsAfter).toBeLessThan(w.shrink.rowsBefore);
    // The script rebuilds the witness anywhere; the golds give the reported results there.
    const copy = createTempSqlite(w.script, { prefix: 'ladder-witness-' });
    try {
      const db = new Database(copy.file, { readonly: true });
      expect(db.prepare(PAID).raw(true).all()).toEqual([[0]]);
      expect(db.prepare('SELECT COUNT(*) FROM orders').raw(true).all()).toEqual([[1]]);
      db.close();
    } finally {
      copy.remove();
    }
  });

  it('finds the same witness again from the same seed, and never changes the schema database', async () => {
    const before = sha256(temp.file);
    const a = refuted(await searcher.search({ golds: [PAID], predictedSql: 'SELECT COUNT(*) FROM orders', seed: 7 }));
    const b = refuted(await searcher.search({ golds: [PAID], predictedSql: 'SELECT COUNT(*) FROM orders', seed: 7 }));
    expect(b.witness.checksum).toBe(a.witness.checksum);
    expect(sha256(temp.file)).toBe(before);
  });

  it('keeps the witness file when asked', async () => {
    const keep = path.join(temp.dir, 'kept');
    const outcome = refuted(await searcher.search({ golds: [PAID], predictedSql: 'SELECT COUNT(*) FROM orders', keepWitnessIn: keep }));
    expect(outcome.witness.file).toBe(path.join(keep, `witness-${outcome.witness.checksum.slice(0, 16)}.sqlite`));
    expect(existsSync(outcome.witness.file!)).toBe(true);
  });

  it('reports an equivalent rewrite as not refuted within budget, never as equivalent', async () => {
    const outcome = await searcher.search({ golds: [PAID], predictedSql: "SELECT COUNT(order_id) FROM orders AS o WHERE 'paid' = o.status", budget: { maxDatabases: 40, maxSeconds: 3600 } });
    expect({ verdict: outcome.verdict, reason: outcome.reason, databases: outcome.tried.databases }).toEqual({
      verdict: 'not_refuted_within_budget',
      reason: 'not refuted within budget: 40 databases tried (24 tiny, 10 small, 6 medium), stopped by the database budget of 40',
      databases: 40,
    });
  });

  it('judges an empty result against one row of NULLs by the emptyVsNullRow policy (default same)', async () => {
    const gold = 'SELECT MAX(amount) FROM orders';
    const predictedSql = 'SELECT amount FROM orders ORDER BY amount DESC LIMIT 1';
    const same = await searcher.search({ golds: [gold], predictedSql, budget: { maxDatabases: 40, maxSeconds: 3600 } });
    expect({ verdict: same.verdict, emptyVsNullRow: same.tried.emptyVsNullRow }).toEqual({ verdict: 'not_refuted_within_budget', emptyVsNullRow: 4 });
    const different = refuted(await searcher.search({ golds: [gold], predictedSql, emptyVsNullRow: 'different', budget: { maxDatabases: 40, maxSeconds: 3600 } }));
    expect(different.reason).toBe('refuted on a 0-row database: gold returns [NULL], prediction no rows; ');
  });

  it('with several golds, refutes only when every gold is distinguished', async () => {
    const golds = [PAID, "SELECT COUNT(*) FROM orders WHERE status IN ('paid', 'open')"];
    // Matches the second gold everywhere: never refuted.
    const matchesOne = await searcher.search({ golds, predictedSql: "SELECT COUNT(*) FROM orders WHERE status <> 'void'", budget: { maxDatabases: 40, maxSeconds: 3600 } });
    expect({ verdict: matchesOne.verdict, distinguished: matchesOne.verdict === 'not_refuted_within_budget' && matchesOne.distinguishedGolds }).toEqual({ verdict: 'not_refuted_within_budget', distinguished: [0] });
    // Differs from both: one database tells it apart from each.
    const neither = refuted(await searcher.search({ golds, predictedSql: 'SELECT COUNT(*) FROM orders' }));
    expect({ witnesses: neither.witnesses.length, golds: neither.witness.golds }).toEqual({ witnesses: 1, golds: [0, 1] });
    expect(neither.reason).toMatch(/^refuted on a \d+-row database: gold 0 returns \[\d+\], gold 1 returns \[\d+\], prediction \[\d+\]; INSERT INTO /);
  });

  it('refutes with one database per gold when no database distinguishes every gold', async () => {
    // The smaller of two counts: it equals the orders count where orders are fewer, the customers count otherwise.
    const golds = ['SELECT COUNT(*) FROM orders', 'SELECT COUNT(*) FROM customers'];
    const predictedSql = 'SELECT MIN((SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM customers))';
    const outcome = refuted(await searcher.search({ golds, predictedSql }));
    expect(outcome.witnesses.map((w) => w.golds)).toEqual([[0], [1]]);
    expect(outcome.reason).toMatch(/^refuted: on a \d+-row database, gold 0 returns \[\d+\], prediction \[\d+\]; INSERT INTO .* \| on a \d+-row database, gold 1 returns \[\d+\], prediction \[\d+\]; INSERT INTO /);
  });

  it('does not search when no gold prepares on the schema', async () => {
    const outcome = await searcher.search({ golds: ['SELECT nope FROM orders'], predictedSql: PAID });
    expect({ verdict: outcome.verdict, reason: outcome.reason }).toEqual({ verdict: 'not_searched', reason: 'not searched: no gold prepares on the schema (unknown_column: no such column: nope)' });
  });

  it('drops a difference that rests on the order rows are read in', async () => {
    // LIMIT without ORDER BY: the gold's answer is whichever row SQLite reads first.
    const outcome = await searcher.search({ golds: ['SELECT name FROM tags LIMIT 1'], predictedSql: 'SELECT MIN(name) FROM tags', budget: { maxDatabases: 30, maxSeconds: 3600 } });
    expect(outcome.verdict).toBe('not_refuted_within_budget');
    expect(outcome.tried.orderDependent).toBeGreaterThan(0);
  });

  it('runs the prediction in the engine under the deadline: a runaway query is no evidence', async () => {
    const runaway = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';
    const outcome = await searcher.search({ golds: [PAID], predictedSql: runaway, timeoutMs: 200, budget: { maxDatabases: 2, maxSeconds: 3600 } });
    expect({ verdict: outcome.verdict, databases: outcome.tried.databases, noEvidence: outcome.tried.noEvidence }).toEqual({ verdict: 'not_refuted_within_budget', databases: 2, noEvidence: 2 });
  });
});

describe('counterexample search on the warehouse fixture (declared invariants)', () => {
  it('keeps every invariant in the shrunk witness', async () => {
    const fixture = await resolveFixture('warehouse');
    const manifest = path.resolve('fixtures/warehouse/fixture.yaml');
    const invariants = readFixtureInvariants(manifest);
    const outcome = refuted(
      await searchCounterexample({
        engine,
        schemaDb: fixture.snapshots[0]!.path,
        snapshots: fixture.snapshots,
        invariants,
        golds: ["SELECT COUNT(*) FROM orders WHERE status = 'COMPLETED'"],
        predictedSql: "SELECT COUNT(*) FROM orders WHERE status IN ('COMPLETED', 'SHIPPED')",
        keepWitnessIn: path.join(temp.dir, 'warehouse'),
      }),
    );
    const schema = readSchema(fixture.snapshots[0]!.path);
    const contract = createGeneratorPlan({ schema, snapshots: fixture.snapshots.map((s) => s.path), invariants: bindInvariants(schema, invariants) }).contract;
    expect(fileContractViolation(contract, outcome.witness.file!)).toBeNull();
    expect(outcome.witness.maxRowsPerTable).toBeLessThanOrEqual(3);
  });
});
