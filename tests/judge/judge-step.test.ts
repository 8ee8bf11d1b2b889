import path from 'node:path';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { runLadder, type LadderResult } from '../../src/rungs/ladder.js';
import { createLadderRungs } from '../../src/rungs/ladder-rungs.js';
import { readSemanticOptions } from '../../src/semantic/semantic-options.js';
import { createSemanticRung } from '../../src/semantic/semantic-rung.js';
import { createSemanticService, type SemanticService } from '../../src/semantic/semantic-service.js';
import { judgeFromFunction } from '../../src/judge/equivalence/ask-judge.js';
import { runJudgeStep, type JudgeStepOptions } from '../../src/judge/equivalence/judge-step.js';
import { outcomeOf, routeItem, type RoutingFacts } from '../../src/judge/equivalence/route.js';
import type { CalibrationLookup, CalibrationRecord } from '../../src/judge/calibration-record.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { SHOP_SCHEMA } from '../semantic/shop-fixture.js';

const PAID = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";
const ALL = 'SELECT COUNT(*) FROM orders';
const VOID = "SELECT COUNT(*) FROM orders WHERE status = 'void'";
const NONE = "SELECT COUNT(*) FROM orders WHERE amount > 1000 AND status = 'void'";

describe('routing (the flowchart, verdict by verdict)', () => {
  const facts = (over: Partial<RoutingFacts>): RoutingFacts => ({ invalid: false, execution: 'match', trivialGold: false, witness: false, ...over });
  it.each([
    ['a failed gate', facts({ invalid: true }), { route: 'settled', outcome: 'invalid' }],
    ['a match on a gold that is not trivially small', facts({}), { route: 'settled', outcome: 'pass' }],
    ['a match refuted by an L5 witness', facts({ witness: true }), { route: 'settled', outcome: 'lucky_match' }],
    ['a match on an empty or trivially small gold', facts({ trivialGold: true }), { route: 'possible_lucky_match' }],
    ['results that differ', facts({ execution: 'mismatch' }), { route: 'ex_failure' }],
    ['nothing executed', facts({ execution: 'not_run' }), { route: 'no_database' }],
    ['an unscored L4', facts({ execution: 'unscored' }), { route: 'none', reason: 'L4 unscored: no gold to judge against' }],
  ])('%s', (_case, given, expected) => {
    expect(routeItem(given)).toEqual(expected);
  });

  it.each([
    ['possible_lucky_match', true, false, 'pass', false],
    ['possible_lucky_match', false, false, 'lucky_match', false],
    ['possible_lucky_match', true, true, 'lucky_match', true],
    ['possible_lucky_match', false, true, 'lucky_match', false],
    ['ex_failure', true, false, 'review', false],
    ['ex_failure', false, false, 'wrong_result', false],
    ['ex_failure', true, true, 'wrong_result', true],
    ['no_database', true, false, 'pass', false],
    ['no_database', false, false, 'wrong_result', false],
  ] as const)('%s, judge equivalent=%s, witness=%s → %s (overruled %s)', (route, equivalent, witness, outcome, overruled) => {
    expect(outcomeOf(route, equivalent, witness)).toEqual({ outcome, witnessOverruled: overruled });
  });
});

let temp: TempSqlite;
let engine: SqliteEngine;
let service: SemanticService;
let cache: string;

beforeAll(() => {
  temp = createTempSqlite(SHOP_SCHEMA, { prefix: 'judge-step-', name: 'base.sqlite' });
  engine = createSqliteEngine({ poolSize: 2 });
  service = createSemanticService();
  cache = mkdtempSync(path.join(tmpdir(), 'judge-step-cache-'));
});
afterAll(async () => {
  service.close();
  await engine.close();
  temp.remove();
  rmSync(cache, { recursive: true, force: true });
});

const snapshots = () => [{ name: 'base', path: temp.file }];

async function ladder(sql: string, golds: readonly string[], semantic = false): Promise<LadderResult> {
  const rungs = semantic ? createLadderRungs({ semantic: createSemanticRung(readSemanticOptions({ suite: false, search: { maxSeconds: 600 }, cacheDir: path.join(temp.dir, 'suites') }), service) }) : createLadderRungs();
  return runLadder({ sql, expectedBehavior: 'answer', golds, snapshots: snapshots(), dialect: 'sqlite', engine }, rungs);
}

/** A judge that always gives one answer, keeping every prompt it got. */
function fixedJudge(equivalent: boolean | 'garbage', prompts: string[] = []) {
  return judgeFromFunction(async (prompt) => {
    prompts.push(prompt);
    return equivalent === 'garbage' ? 'no idea' : `- ${equivalent ? 'none' : 'the filter differs'}\n{"differences": ${equivalent ? '[]' : '["the filter differs"]'}, "equivalent": ${equivalent}}`;
  }, { id: 'fixed', model: 'fixed-1' });
}

const PASSING: CalibrationLookup = { record: { passed: true } as CalibrationRecord, file: 'calibrations/fixed.json', reason: 'calibrated' };
const step = (judge: JudgeStepOptions['judge'], over: Partial<JudgeStepOptions> = {}): JudgeStepOptions => ({ judge, calibration: PASSING, cache: false, ...over });

describe('runJudgeStep', () => {
  it('does not ask about an item execution settles (a match on a non-trivial gold: pass)', async () => {
    const prompts: string[] = [];
    const result = await runJudgeStep({ ladder: await ladder(ALL, [PAID]), question: 'How many paid orders?', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(false, prompts)));
    expect(prompts).toEqual([]);
    expect(result?.record).toMatchObject({ state: 'pass', outcome: 'pass', route: 'settled', asked: false, calls: 0, equivalent: null });
    expect(result?.endToEnd).toBe(1);
  });

  it('settles an invalid prediction without asking', async () => {
    const prompts: string[] = [];
    const result = await runJudgeStep({ ladder: await ladder('SELECT nope FROM orders', [PAID]), question: 'q', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(true, prompts)));
    expect(prompts).toEqual([]);
    expect(result?.record).toMatchObject({ state: 'invalid', route: 'settled', asked: false, verdict: 'fail' });
    expect(result?.endToEnd).toBe(0);
  });

  it('a calibrated "not equivalent" on a match with an empty gold is a lucky match: end_to_end 1 → 0', async () => {
    const run = await ladder(NONE, [VOID]);
    expect(run.endToEnd).toBe(1);
    const prompts: string[] = [];
    const result = await runJudgeStep({ ladder: run, question: 'How many void orders?', golds: [VOID], snapshots: snapshots(), engine }, step(fixedJudge(false, prompts)));
    expect(result?.record).toMatchObject({ state: 'lucky_match', outcome: 'lucky_match', route: 'possible_lucky_match', asked: true, equivalent: false, differences: ['the filter differs'], calibrated: true, calibration: 'calibrations/fixed.json', calls: 1, score: 0 });
    expect(result?.record.reason).toBe('lucky_match: results match on an empty or trivially small gold result; judge says not equivalent (the filter differs)');
    expect([result?.endToEnd, result?.verdict]).toEqual([0, 'fail']);
    // The prompt holds the schema and both results on the snapshot (a local judge: rows shared).
    expect(prompts[0]).toContain('CREATE TABLE orders');
    expect(prompts[0]).toContain('On snapshot base:\n  REFERENCE → 1 row (COUNT(*)):\n    0\n  CANDIDATE → 1 row (COUNT(*)):\n    0');
  });

  it('uncalibrated: the verdict is shown and moves no score', async () => {
    const run = await ladder(NONE, [VOID]);
    const result = await runJudgeStep({ ladder: run, question: 'q', golds: [VOID], snapshots: snapshots(), engine }, step(fixedJudge(false), { calibration: [] }));
    expect(result?.record).toMatchObject({ state: 'uncalibrated', outcome: 'lucky_match', calibrated: false, score: null });
    expect(result?.record.calibration).toMatch(/^no calibration record for the equivalence judge fixed \(model fixed-1, prompt equivalence-v1 [0-9a-f]{12}\); run `text2sql-ladder judge calibrate`$/);
    expect(result?.record.reason).toMatch(/^uncalibrated \(lucky_match if it counted\): /);
    expect([result?.endToEnd, result?.verdict]).toEqual([1, 'pass']);
  });

  it('an EX failure the judge calls equivalent goes to review (not a pass); "not equivalent" is a wrong result', async () => {
    const run = await ladder('SELECT COUNT(*) FROM customers', [PAID]);
    const review = await runJudgeStep({ ladder: run, question: 'q', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(true)));
    expect(review?.record).toMatchObject({ state: 'review', route: 'ex_failure', verdict: 'fail', score: 0 });
    expect(review?.endToEnd).toBe(0);
    const wrong = await runJudgeStep({ ladder: run, question: 'q', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(false)));
    expect(wrong?.record).toMatchObject({ state: 'wrong_result', route: 'ex_failure' });
  });

  it('a verified L5 witness always wins: "equivalent" against it is a FAIL, counted against the judge, with both shown', async () => {
    const run = await ladder(ALL, [PAID], true);
    expect(run.results.semantic?.status).toBe('fail');
    const prompts: string[] = [];
    // trivialRows 1: the one-row count match is a possible lucky match, so the judge is asked.
    const result = await runJudgeStep({ ladder: run, question: 'How many paid orders?', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(true, prompts), { trivialRows: 1 }));
    expect(result?.record).toMatchObject({ state: 'lucky_match', route: 'possible_lucky_match', equivalent: true, witnessOverruled: true, score: 0 });
    expect(result?.record.reason).toBe('lucky_match: results match on an empty or trivially small gold result; judge says equivalent; a verified L5 witness shows they differ, so the witness wins');
    expect(result?.endToEnd).toBe(0);
    // The judge saw the witness with both results on it.
    expect(prompts[0]).toContain("On the L5 witness (2 rows; the schema above, these rows only):\n  rows:\n    INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', 'a');\n    INSERT INTO orders (order_id, customer_id, amount, status) VALUES (1, 1, 1.0, 'open');\n  REFERENCE → 1 row (COUNT(*)):\n    0\n  CANDIDATE → 1 row (COUNT(*)):\n    1");
    // Without trivialRows the witness settles the item: no call.
    const settled = await runJudgeStep({ ladder: run, question: 'q', golds: [PAID], snapshots: snapshots(), engine }, step(fixedJudge(true, prompts)));
    expect(settled?.record).toMatchObject({ state: 'lucky_match', route: 'settled', asked: false });
    expect(prompts).toHaveLength(1);
  });

  it('with no database the judge alone decides (no_database)', async () => {
    const result = await runJudgeStep({ question: 'q', golds: [PAID], candidate: ALL, snapshots: [] }, step(fixedJudge(true)));
    expect(result?.record).toMatchObject({ state: 'pass', route: 'no_database', score: 1 });
    expect([result?.endToEnd, result?.verdict]).toEqual([1, 'pass']);
  });

  it('a malformed reply is asked once more, then judge_error for the item (the score stays the ladder\'s)', async () => {
    const run = await ladder(NONE, [VOID]);
    const result = await runJudgeStep({ ladder: run, question: 'q', golds: [VOID], snapshots: snapshots(), engine }, step(fixedJudge('garbage')));
    expect(result?.record).toMatchObject({ state: 'judge_error', verdict: 'unreadable', outcome: null, calls: 2, score: null, error: 'no JSON object in the reply: "no idea"' });
    expect(result?.endToEnd).toBe(1);
  });

  it('a hosted judge gets the SQL only unless share says more; redacted columns never leave', async () => {
    const prompts: string[] = [];
    const hosted = { ...fixedJudge(false, prompts), local: false };
    const run = await ladder(NONE, [VOID]);
    await runJudgeStep({ ladder: run, question: 'q', golds: [VOID], snapshots: snapshots(), engine }, step(hosted));
    expect(prompts[0]).toContain('Schema:\n(not shared)');
    expect(prompts[0]).toContain('Evidence from running both:\n(none: result rows are not shared with this judge (share: rows sends them))');
    const names = await ladder('SELECT name FROM customers WHERE city = \'Oslo\' AND 0', ["SELECT name FROM customers WHERE city = 'Nowhere'"]);
    await runJudgeStep({ ladder: names, question: 'q', golds: ["SELECT name FROM customers WHERE city = 'Nowhere'"], snapshots: snapshots(), engine }, step(hosted, { share: 'rows', redactColumns: ['NAME'] }));
    expect(prompts[1]).toContain('CREATE TABLE customers');
    const wrong = await ladder('SELECT name FROM customers', ["SELECT name FROM customers WHERE city = 'Oslo'"]);
    await runJudgeStep({ ladder: wrong, question: 'q', golds: ["SELECT name FROM customers WHERE city = 'Oslo'"], snapshots: snapshots(), engine }, step(hosted, { share: 'rows', redactColumns: ['NAME'], maxRows: 2 }));
    expect(prompts[2]).toContain('REFERENCE → 1 row (name):\n    [redacted]\n  CANDIDATE → 3 rows (name):\n    [redacted]\n    [redacted]\n    … 1 more not shown');
    expect(prompts[2]).not.toContain('Ann');
  });

  it('caches answers by (provider, model, prompt hash, inputs): the same item costs no second call', async () => {
    const prompts: string[] = [];
    const run = await ladder(NONE, [VOID]);
    const input = { ladder: run, question: 'q', golds: [VOID], snapshots: snapshots(), engine };
    const first = await runJudgeStep(input, step(fixedJudge(false, prompts), { cache }));
    const second = await runJudgeStep(input, step(fixedJudge(false, prompts), { cache }));
    expect([first?.record.cached, first?.record.calls, second?.record.cached, second?.record.calls]).toEqual([false, 1, true, 0]);
    expect(prompts).toHaveLength(1);
    expect(readdirSync(cache)).toHaveLength(1);
    // Another question is another input: asked again.
    await runJudgeStep({ ...input, question: 'another' }, step(fixedJudge(false, prompts), { cache }));
    expect(prompts).toHaveLength(2);
  });
});
