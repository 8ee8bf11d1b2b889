import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { createLadderRungs } from '../../src/rungs/ladder-rungs.js';
import { checkSemantic } from '../../src/semantic/check-semantic.js';
import { DEFAULT_SEMANTIC_OPTIONS, readSemanticOptions, type SemanticOptions } from '../../src/semantic/semantic-options.js';
import { createSemanticRung } from '../../src/semantic/semantic-rung.js';
import { createSemanticService, type SemanticService } from '../../src/semantic/semantic-service.js';
import { failureOf } from '../matchers/helpers.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_SCHEMA } from './shop-fixture.js';

/** The shop's base snapshot holds only paid orders: dropping the filter passes L4. */
const PAID = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";
const ALL = 'SELECT COUNT(*) FROM orders';
const COMMUTED = "SELECT COUNT(*) FROM orders WHERE 'paid' = status";

let temp: TempSqlite;
let engine: SqliteEngine;
let service: SemanticService;
let suites: string;

beforeAll(() => {
  temp = createTempSqlite(SHOP_SCHEMA, { prefix: 'ladder-l5-', name: 'base.sqlite' });
  suites = path.join(temp.dir, 'suites');
  engine = createSqliteEngine({ poolSize: 2 });
  service = createSemanticService();
});
afterAll(async () => {
  service.close();
  await engine.close();
  temp.remove();
});

/** Budgets bounded by databases only, so that the verdicts do not depend on the machine's load. */
const options = (over: Record<string, unknown> = {}): SemanticOptions =>
  readSemanticOptions({ cacheDir: suites, suite: { maxSeconds: 600 }, search: { maxSeconds: 600 }, ...over });
const snapshots = (): { name: string; path: string }[] => [{ name: 'base', path: temp.file }];
const policy = resolvePolicy('default');
const WITNESS = "refuted on a 2-row database: gold returns [0], prediction [1]; INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', 'a'); INSERT INTO orders (order_id, customer_id, amount, status) VALUES (1, 1, 1.0, 'open');";
const NOT_REFUTED = 'not refuted within budget: 100 databases tried (60 tiny, 25 small, 15 medium), stopped by the database budget of 100';

describe('L5 options', () => {
  it('true means both steps with the library budgets', () => {
    expect(readSemanticOptions(true)).toBe(DEFAULT_SEMANTIC_OPTIONS);
    expect(DEFAULT_SEMANTIC_OPTIONS).toEqual({ suite: { budget: {}, seed: 0, nulls: 'allowed', emptyVsNullRow: 'same' }, search: { budget: {}, seed: 0, nulls: 'allowed', emptyVsNullRow: 'same' }, verdictCache: {} });
    expect(readSemanticOptions({ suite: false, search: { maxSeconds: 2 }, seed: 'x', nulls: 'observed', emptyVsNullRow: 'different' })).toEqual({
      suite: false,
      search: { budget: { maxSeconds: 2 }, seed: 'x', nulls: 'observed', emptyVsNullRow: 'different' },
      verdictCache: {},
    });
    expect(readSemanticOptions({ cacheDir: path.join('cache', 'l5'), verdictCache: true }).verdictCache).toEqual({ cacheDir: path.join('cache', 'l5', 'verdicts') });
    expect(readSemanticOptions({ cacheDir: 'x', verdictCache: false }).verdictCache).toBe(false);
  });

  it.each([
    [{ serch: true }, 'config.semantic.serch is not an option (did you mean config.semantic.search?)'],
    [{ search: { maxSeconds: 0 } }, 'config.semantic.search must be { maxDatabases, maxSeconds, maxShrinkTrials } with valid values (config.semantic.search.maxSeconds must be a finite number > 0 (seconds); received a number (0))'],
    [{ suite: { patience: 0 } }, 'config.semantic.suite must be { maxDatabases, maxSeconds, patience } with valid values (config.semantic.suite.patience must be an integer ≥ 1; received 0)'],
    [{ nulls: 'some' }, 'config.semantic.nulls must be one of'],
    ['yes', 'config.semantic must be true or { suite, search, seed, nulls, emptyVsNullRow, cacheDir, verdictCache }; received a string ("yes")'],
    [{ verdictCache: 'no' }, 'config.semantic.verdictCache must be true or false; received a string ("no")'],
  ])('rejects %o naming the option', (value, message) => {
    expect(() => readSemanticOptions(value, { name: 'config.semantic' })).toThrow(message);
  });
});

describe('checkSemantic on the shop (base snapshot: every order paid)', () => {
  it('the suite rejects a dropped filter, and the search adds a 2-row witness', async () => {
    const result = await checkSemantic({ predictedSql: ALL, golds: [PAID], snapshots: snapshots(), engine, policy, options: options(), service });
    expect({ status: result.status, reason: result.reason }).toEqual({
      status: 'fail',
      reason: `refuted on generated database gen-1 (customers 6, orders 10): gold [6] vs predicted [10]; ${WITNESS}`,
    });
    expect(result.details.suite).toMatchObject({ status: 'fail', databases: 2, generated: 1, failing: { database: 'gen-1', generated: true }, rejectedDatabases: {} });
    expect({ rejectedBy: result.details.rejectedBy, rejectedDatabases: result.details.rejectedDatabases }).toEqual({ rejectedBy: 'suite', rejectedDatabases: {} });
    expect(result.details.search?.witnesses[0]?.rowsPerTable).toEqual({ customers: 1, orders: 1 });
  });

  it('with the suite off, the search alone refutes it, the witness in the reason', async () => {
    const result = await checkSemantic({ predictedSql: ALL, golds: [PAID], snapshots: snapshots(), engine, policy, options: options({ suite: false }), service });
    expect({ status: result.status, reason: result.reason, suite: result.details.suite, rejectedBy: result.details.rejectedBy }).toEqual({ status: 'fail', reason: WITNESS, suite: null, rejectedBy: 'search' });
  });

  it('a commuted predicate passes both steps: matched on the suite, not refuted within budget', async () => {
    const result = await checkSemantic({ predictedSql: COMMUTED, golds: [PAID], snapshots: snapshots(), engine, policy, options: options(), service });
    expect({ status: result.status, reason: result.reason }).toEqual({ status: 'pass', reason: `matches on all 2 databases of the test suite (1 snapshot, 1 generated); ${NOT_REFUTED}` });
  });

  it('reports golds that disagree on the suite (gold ambiguity) without resolving them', async () => {
    const result = await checkSemantic({ predictedSql: PAID, golds: [PAID, ALL], snapshots: snapshots(), engine, policy, options: options({ search: false }), service });
    expect({ status: result.status, reason: result.reason, issues: result.issues }).toEqual({
      status: 'pass',
      reason: 'matches on all 2 databases of the test suite (1 snapshot, 1 generated), gold 0; gold ambiguity: 1 pair of golds disagree',
      issues: [{ kind: 'gold_ambiguity', message: 'golds 0 and 1 disagree on gen-1: gold 0 [6] vs gold 1 [10]' }],
    });
    expect(result.details.goldAmbiguity).toEqual([{ goldA: 0, goldB: 1, database: 'gen-1', reason: 'gold 0 [6] vs gold 1 [10]' }]);
  });

  it('a prediction that is the gold up to formatting passes with nothing built, drawn or searched', async () => {
    const folder = path.join(temp.dir, 'same-text');
    const result = await checkSemantic({ predictedSql: "select count(*)\nfrom ORDERS as o where o.status = 'paid';", golds: ["SELECT COUNT(*) FROM orders o WHERE o.status = 'paid'"], snapshots: snapshots(), engine, policy, options: options({ cacheDir: folder }), service });
    expect({ status: result.status, reason: result.reason, suite: result.details.suite, search: result.details.search, sameAsGold: result.details.sameAsGold }).toEqual({
      status: 'pass',
      reason: 'the prediction is the gold up to formatting (case, AS, ASC, INNER/OUTER, spacing): the same result on every database, nothing generated',
      suite: null,
      search: null,
      sameAsGold: 0,
    });
    // Only the verdict was stored: no suite folder.
    expect(readdirSync(folder)).toEqual(['verdicts']);
  });

  it('a string constant in another case is not the same text, and the search still runs', async () => {
    const result = await checkSemantic({ predictedSql: "SELECT COUNT(*) FROM orders WHERE status = 'Paid' OR status = 'paid'", golds: [PAID], snapshots: snapshots(), engine, policy, options: options({ suite: false, search: { maxDatabases: 5, maxSeconds: 600 } }), service });
    expect({ sameAsGold: result.details.sameAsGold, searched: result.details.search?.databases }).toEqual({ sameAsGold: undefined, searched: 5 });
  });

  it('with several golds, the same text as one skips the search but the suite still reports gold ambiguity', async () => {
    const result = await checkSemantic({ predictedSql: PAID.toLowerCase(), golds: [ALL, PAID], snapshots: snapshots(), engine, policy, options: options(), service });
    expect({ status: result.status, reason: result.reason, search: result.details.search, sameAsGold: result.details.sameAsGold }).toEqual({
      status: 'pass',
      reason: 'matches on all 2 databases of the test suite (1 snapshot, 1 generated), gold 1; search not run: the prediction is gold 1 up to formatting (case, AS, ASC, INNER/OUTER, spacing); gold ambiguity: 1 pair of golds disagree',
      search: null,
      sameAsGold: 1,
    });
  });

  it('builds one suite per schema and settings for the items whose golds it holds', async () => {
    const shared = createSemanticService();
    try {
      const fixture = { snapshots: snapshots(), invariants: [] };
      const settings = options().suite as Exclude<SemanticOptions['suite'], false>;
      const prepared = await shared.prepareSuite({ engine, fixture, golds: [PAID, ALL], policy, settings });
      expect(await shared.suiteFor({ engine, fixture, golds: [ALL], policy, settings })).toBe(prepared);
      expect(await shared.suiteFor({ engine, fixture, golds: [COMMUTED], policy, settings })).not.toBe(prepared);
    } finally {
      shared.close();
    }
  });

  it('two items that ask at once share one suite and one searcher (the service loads its code on first use)', async () => {
    const shared = createSemanticService();
    try {
      const fixture = { snapshots: snapshots(), invariants: [] };
      const settings = options().suite as Exclude<SemanticOptions['suite'], false>;
      const [a, b] = await Promise.all([shared.suiteFor({ engine, fixture, golds: [PAID], policy, settings }), shared.suiteFor({ engine, fixture, golds: [PAID], policy, settings })]);
      expect(a).toBe(b);
      const [x, y] = await Promise.all([shared.searcherFor({ engine, fixture, nulls: 'allowed' }), shared.searcherFor({ engine, fixture, nulls: 'allowed' })]);
      expect(x).toBe(y);
      expect(await shared.searcherFor({ engine, fixture, nulls: 'observed' })).not.toBe(x);
    } finally {
      shared.close();
    }
  });
});

describe('L5 in the ladder', () => {
  const ladder = (output: string, semantic: SemanticOptions | undefined) =>
    runLadder(
      { output, expectedBehavior: 'answer', golds: [PAID], snapshots: snapshots(), dialect: 'sqlite', engine },
      createLadderRungs(semantic === undefined ? {} : { semantic: createSemanticRung(semantic, service) }),
    );

  it('off by default: L4 passes and end_to_end is 1', async () => {
    const result = await ladder(ALL, undefined);
    expect([result.rungs.map((r) => r.rung), result.endToEnd]).toEqual([['syntax', 'schema', 'safety', 'execution'], 1]);
  });

  it('on: L5 fails a lucky L4 match, end_to_end counts it, the witness in the reason', async () => {
    const result = await ladder(ALL, options({ suite: false }));
    expect(result.rungs.map((r) => `${r.rung}:${r.status}`)).toEqual(['syntax:pass', 'schema:pass', 'safety:pass', 'execution:pass', 'semantic:fail']);
    expect([result.verdict, result.endToEnd, result.reason]).toEqual(['fail', 0, `L5_semantic fail: ${WITNESS}`]);
  });

  it('on: skipped after a failed L4', async () => {
    const result = await ladder('SELECT COUNT(*) FROM customers', options());
    expect(result.rungs.slice(3).map((r) => `${r.rung}:${r.status}`)).toEqual(['execution:fail', 'semantic:skipped']);
    expect(result.rungs[4]!.reason).toBe('L4_execution fail');
  });
});

describe('toMatchGoldResult with semantic', () => {
  it('fails a lucky match and prints the witness as tables', async () => {
    const failure = await failureOf(() => expect(ALL).toMatchGoldResult(PAID, { db: temp.file, semantic: { suite: false, search: { maxSeconds: 600 } } }));
    expect(failure).toContain(`L5 semantic failed: ${WITNESS}`);
    expect(failure).toContain(
      [
        'Witness database (2 rows; tables not shown are empty):',
        '  customers',
        '  | customer_id | name | city |',
        '  |-------------|------|------|',
        "  | 1           | 'a'  | 'a'  |",
        '  orders',
        '  | order_id | customer_id | amount | status |',
        '  |----------|-------------|--------|--------|',
        "  | 1        | 1           | 1      | 'open' |",
        'Gold result (1 row):',
        '  | COUNT(*) |',
        '  |----------|',
        '  | 0        |',
        'Predicted result (1 row):',
        '  | COUNT(*) |',
        '  |----------|',
        '  | 1        |',
        'Difference: gold [0] vs predicted [1]',
        '',
        'Replay (SQL):',
        "  INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', 'a');",
        "  INSERT INTO orders (order_id, customer_id, amount, status) VALUES (1, 1, 1.0, 'open');",
      ].join('\n'),
    );
  });

  it('passes a commuted predicate', async () => {
    await expect(COMMUTED).toMatchGoldResult(PAID, { db: temp.file, semantic: { cacheDir: suites, suite: { maxSeconds: 600 }, search: { maxSeconds: 600 } } });
  });

  it('rejects a bad semantic option naming it', async () => {
    await expect(expect(ALL).toMatchGoldResult(PAID, { db: temp.file, semantic: { search: { maxDatabase: 3 } } })).rejects.toThrow('options.semantic.search must be { maxDatabases, maxSeconds, maxShrinkTrials } with valid values (options.semantic.search.maxDatabase is not an option (did you mean options.semantic.search.maxDatabases?)');
  });
});
