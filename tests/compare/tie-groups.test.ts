import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planTieQuery, resolveGoldOrdering, tieSegmentsFrom } from '../../src/compare/tie-groups.js';
import { compareResults } from '../../src/compare/compare-results.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { makeDb, result, tempDir } from './helpers.js';

describe('planTieQuery', () => {
  it.each([
    [
      'hidden key, LIMIT removed',
      'SELECT name FROM t ORDER BY age LIMIT 2',
      ['name'],
      { kind: 'ordered', keys: [{ hidden: 0 }], specs: [{ text: 'age', descending: false, nulls: null }], hiddenExpressions: ['age'], sql: 'SELECT name, age FROM t ORDER BY age ', limit: 2, offset: 0 },
    ],
    [
      'visible key by expression, no LIMIT: the gold result suffices',
      'SELECT name, age FROM t ORDER BY age DESC',
      ['name', 'age'],
      { kind: 'ordered', keys: [{ visible: 1 }], specs: [{ text: 'age', descending: true, nulls: null }], hiddenExpressions: [], sql: null, limit: -1, offset: 0 },
    ],
    [
      'ordinal and alias keys',
      'SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY n DESC, 1 LIMIT 1 OFFSET 2',
      ['name', 'n'],
      { kind: 'ordered', keys: [{ visible: 1 }, { visible: 0 }], specs: [{ text: 'n', descending: true, nulls: null }, { text: '1', descending: false, nulls: null }], hiddenExpressions: [], sql: 'SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY n DESC, 1 ', limit: 1, offset: 2 },
    ],
    [
      'alias after * is replaced by its expression',
      'SELECT *, age * 2 AS a2 FROM t ORDER BY a2',
      ['name', 'age', 'a2'],
      { kind: 'ordered', keys: [{ hidden: 0 }], specs: [{ text: 'a2', descending: false, nulls: null }], hiddenExpressions: ['age * 2'], sql: 'SELECT *, age * 2 AS a2, age * 2 FROM t ORDER BY a2', limit: -1, offset: 0 },
    ],
    ['no outer ORDER BY', 'SELECT a FROM (SELECT a FROM t ORDER BY a)', ['a'], { kind: 'unordered' }],
    ['DISTINCT with a hidden key', 'SELECT DISTINCT name FROM t ORDER BY age', ['name'], { kind: 'unknown', reason: 'DISTINCT with sort key age outside the select list' }],
    ['non-literal LIMIT', 'SELECT name FROM t ORDER BY name LIMIT (SELECT 1)', ['name'], { kind: 'unknown', reason: 'LIMIT / OFFSET is not an integer literal' }],
    ['compound, key is a result column', 'SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 3', ['a'], { kind: 'ordered', keys: [{ visible: 0 }], specs: [{ text: 'a', descending: false, nulls: null }], hiddenExpressions: [], sql: 'SELECT a FROM t UNION SELECT b FROM u ORDER BY a ', limit: 3, offset: 0 }],
    [
      'NULLS LAST and a descending hidden key',
      'SELECT name FROM t ORDER BY age DESC NULLS LAST, city',
      ['name'],
      { kind: 'ordered', keys: [{ hidden: 0 }, { hidden: 1 }], specs: [{ text: 'age', descending: true, nulls: 'last' }, { text: 'city', descending: false, nulls: null }], hiddenExpressions: ['age', 'city'], sql: 'SELECT name, age, city FROM t ORDER BY age DESC NULLS LAST, city', limit: -1, offset: 0 },
    ],
  ])('%s', (_name, sql, columns, plan) => {
    expect(planTieQuery(sql, columns)).toEqual(plan);
  });
});

describe('tieSegmentsFrom', () => {
  // Full rows: visible name, hidden key.
  const full = [['a', 1], ['b', 2], ['c', 2], ['d', 2], ['e', 3]];
  it('groups without a cut', () => {
    const gold = [['a'], ['c'], ['b'], ['d'], ['e']];
    expect(tieSegmentsFrom(full, gold, 1, [{ hidden: 0 }], 0)).toEqual({
      segments: [
        { start: 0, end: 1, pool: [['a']] },
        { start: 1, end: 4, pool: [['c'], ['b'], ['d']] },
        { start: 4, end: 5, pool: [['e']] },
      ],
      nondeterministic: false,
    });
  });

  it('a LIMIT window cutting a group: the pool is the whole group', () => {
    expect(tieSegmentsFrom(full, [['a'], ['c']], 1, [{ hidden: 0 }], 0)).toEqual({
      segments: [
        { start: 0, end: 1, pool: [['a']] },
        { start: 1, end: 2, pool: [['b'], ['c'], ['d']] },
      ],
      nondeterministic: true,
    });
  });

  it('a cut group whose rows are all equal is not nondeterministic', () => {
    const same = [['x', 1], ['x', 1], ['y', 2]];
    expect(tieSegmentsFrom(same, [['x']], 1, [{ hidden: 0 }], 0)?.nondeterministic).toBe(false);
  });

  it('rows that disagree with the gold give null', () => {
    expect(tieSegmentsFrom(full, [['z']], 1, [{ hidden: 0 }], 0)).toBeNull();
  });
});

describe('resolveGoldOrdering on a database', () => {
  let engine: Engine;
  let db: string;
  beforeAll(() => {
    db = makeDb(path.join(tempDir(), 'people.sqlite'), `
      CREATE TABLE people (name TEXT, age INTEGER, city TEXT);
      INSERT INTO people VALUES ('ann', 30, 'x'), ('bob', 25, 'y'), ('cid', 30, 'z'), ('dan', 40, 'x'), ('eve', 25, 'z');
    `);
    engine = createSqliteEngine({ poolSize: 1 });
  });
  afterAll(async () => {
    await engine.close();
  });

  const run = async (sql: string) => {
    const outcome = await engine.execute({ db, sql });
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome.result;
  };

  it('ties on a hidden sort key: any order within the tie is accepted', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY age';
    const gold = await run(goldSql);
    const ordering = await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect(ordering.segments?.map((s) => [s.start, s.end])).toEqual([[0, 2], [2, 4], [4, 5]]);
    const tieSwapped = result([['eve'], ['bob'], ['cid'], ['ann'], ['dan']], ['name']);
    const crossTie = result([['bob'], ['ann'], ['eve'], ['cid'], ['dan']], ['name']);
    expect(compareResults(gold, tieSwapped, resolvePolicy('default'), { ordering }).match).toBe(true);
    expect(compareResults(gold, crossTie, resolvePolicy('default'), { ordering }).match).toBe(false);
  });

  it('LIMIT cutting a tie group: flagged, and the other tie choice is accepted', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY age DESC LIMIT 2';
    const gold = await run(goldSql);
    const ordering = await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect(ordering.nondeterministic).toBe(true);
    const other = gold.rows[1]![0] === 'ann' ? 'cid' : 'ann';
    const verdict = compareResults(gold, result([['dan'], [other]], ['name']), resolvePolicy('default'), { ordering });
    expect([verdict.match, verdict.flags]).toEqual([true, ['ordered', 'nondeterministic_gold']]);
    expect(compareResults(gold, result([['dan'], ['bob']], ['name']), resolvePolicy('default'), { ordering }).match).toBe(false);
  });

  it('sort key facts: the key values of the gold rows and the NULL keys of the rows without LIMIT', async () => {
    const goldSql = "SELECT name FROM people ORDER BY CASE WHEN city = 'z' THEN NULL ELSE age END, name LIMIT 2";
    const gold = await run(goldSql);
    const ordering = await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect(gold.rows).toEqual([['cid'], ['eve']]);
    expect(ordering.sortKeys).toEqual({
      specs: [
        { text: "CASE WHEN city = 'z' THEN NULL ELSE age END", descending: false, nulls: null },
        { text: 'name', descending: false, nulls: null },
      ],
      values: [[null, 'cid'], [null, 'eve']],
      fullCount: 5,
      nullCounts: [2, 0],
    });
  });

  it('LIMIT that does not cut a tie group: not flagged', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY age DESC LIMIT 3';
    const gold = await run(goldSql);
    const ordering = await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect([ordering.nondeterministic, ordering.segments?.length]).toEqual([false, 2]);
  });

  it('spider preset: text rule, no tie query', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY age';
    const gold = await run(goldSql);
    expect(await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('spider') })).toEqual({ ordered: true, source: 'text' });
  });

  it('a tie query that times out is marked transient (never cached)', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY age LIMIT 1';
    const gold = await run(goldSql);
    const timingOut = { ...engine, execute: async () => ({ ok: false as const, error: { code: 'timeout' as const, message: 'deadline of 1 ms passed' } }) };
    const ordering = await resolveGoldOrdering({ engine: timingOut, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect(ordering).toEqual({ ordered: true, source: 'ast', tiesUnknownReason: 'tie query failed: deadline of 1 ms passed', transient: true });
  });

  it('a tie query that fails leaves ties unknown (strict order)', async () => {
    const goldSql = 'SELECT name FROM people ORDER BY nosuch';
    const gold = result([['ann']], ['name']);
    const ordering = await resolveGoldOrdering({ engine, db, goldSql, goldResult: gold, policy: resolvePolicy('default') });
    expect(ordering).toEqual({ ordered: true, source: 'ast', tiesUnknownReason: 'tie query failed: no such column: nosuch' });
  });
});
