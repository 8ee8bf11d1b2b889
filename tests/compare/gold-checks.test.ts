import { describe, expect, it } from 'vitest';
import {
  findClockReads,
  findLimitWithoutOrderBy,
  findRandomness,
  findTimezoneReads,
  GOLD_CHECK_KINDS,
  GOLD_CHECKS,
  runGoldChecks,
} from '../../src/compare/gold-checks.js';
import {
  checkGoldResult,
  checkGoldRun,
  checkGoldsAgree,
  checkLimitCut,
  checkSameOnEverySnapshot,
  goldVerdictFlags,
  planLimitCut,
} from '../../src/compare/gold-result-checks.js';
import type { GoldOrdering } from '../../src/compare/gold-ordering.js';

const constructs = (findings: readonly { construct: string }[]) => findings.map((found) => found.construct);

describe('findClockReads (lang_datefunc.html)', () => {
  it.each([
    ["SELECT * FROM o WHERE d >= date('now', '-30 days')", ["date('now', '-30 days')"]],
    ["SELECT julianday('now') - julianday(d) FROM o", ["julianday('now')"]],
    ["SELECT datetime('NOW', 'start of month')", ["datetime('NOW', 'start of month')"]],
    ["SELECT strftime('%Y', 'now')", ["strftime('%Y', 'now')"]],
    ["SELECT strftime('%Y')", ["strftime('%Y')"]],
    ['SELECT date(), time(), unixepoch()', ['date()', 'time()', 'unixepoch()']],
    ["SELECT timediff('now', d) FROM o", ["timediff('now', d)"]],
    ['SELECT CURRENT_DATE, current_time, Current_Timestamp', ['CURRENT_DATE', 'current_time', 'Current_Timestamp']],
    ['SELECT date("now")', ['date("now")'], ],
    ["SELECT date(d, '+1 day') FROM o", []],
    ["SELECT strftime('%Y', d) FROM o", []],
    ["SELECT 'date(''now'')', d FROM o -- CURRENT_DATE", []],
    ['SELECT o.current_date, d AS current_time FROM o', []],
    ["SELECT date('2024-06-30')", []],
    ["SELECT date(' now ')", []], // SQLite returns NULL: not a time value
  ])('%s → %j', (sql, expected) => {
    expect(constructs(findClockReads(sql))).toEqual(expected);
  });

  it('positions and messages', () => {
    expect(findClockReads("SELECT 1\nWHERE d < date('now')", 2)).toEqual([
      { kind: 'clock_dependent_gold', goldIndex: 2, construct: "date('now')", message: "date('now'): the time value 'now' reads the clock when the query runs", line: 2, column: 11 },
    ]);
    expect(findClockReads('SELECT CURRENT_DATE')[0]!.message).toBe('CURRENT_DATE: reads the clock when the query runs');
    expect(findClockReads('SELECT date()')[0]!.message).toBe('date(): without a time value SQLite reads the clock (now)');
  });
});

describe('findRandomness and findTimezoneReads', () => {
  it.each([
    ['SELECT * FROM t ORDER BY random() LIMIT 1', ['random()']],
    ['SELECT hex(randomblob(16))', ['randomblob(16)']],
    ["SELECT 'random()' FROM t", []],
  ])('%s → %j', (sql, expected) => {
    expect(constructs(findRandomness(sql))).toEqual(expected);
  });
  it.each([
    ["SELECT date(d, 'localtime') FROM o", ["date(d, 'localtime')"]],
    ["SELECT datetime(d, 'utc') FROM o", ["datetime(d, 'utc')"]],
    ["SELECT date(d, 'start of month') FROM o", []],
  ])('%s → %j', (sql, expected) => {
    expect(constructs(findTimezoneReads(sql))).toEqual(expected);
  });
});

describe('text checks of texts met in turn (the last text read is kept)', () => {
  it('each text gets its own findings, whatever was read before', () => {
    const a = "SELECT random(), date('now', 'localtime')";
    const b = 'SELECT 1';
    const c = "SELECT 1,   random()";
    expect(findRandomness(a).map((f) => [f.construct, f.column])).toEqual([['random()', 8]]);
    expect(findRandomness(b)).toEqual([]);
    expect(findTimezoneReads(b)).toEqual([]);
    expect(findClockReads(a).map((f) => [f.construct, f.column])).toEqual([["date('now', 'localtime')", 18]]);
    expect(findRandomness(c).map((f) => [f.construct, f.column])).toEqual([['random()', 13]]);
    expect(findTimezoneReads(a).map((f) => [f.construct, f.column])).toEqual([["date('now', 'localtime')", 18]]);
    expect(findRandomness(a).map((f) => [f.construct, f.column])).toEqual([['random()', 8]]);
  });
});

describe('runGoldChecks', () => {
  it('checks every gold, in check order; as_of_date silences the clock, not randomness', () => {
    const golds = ["SELECT count(*) FROM o WHERE d > date('now', '-7 days')", 'SELECT * FROM o ORDER BY random()'];
    expect(runGoldChecks({ golds }).map((found) => [found.kind, found.goldIndex])).toEqual([
      ['clock_dependent_gold', 0],
      ['random_dependent_gold', 1],
    ]);
    expect(runGoldChecks({ golds, asOfDate: '2024-06-30' }).map((found) => found.kind)).toEqual(['random_dependent_gold']);
  });

  it('gives the same findings for a gold met again, and a caller cannot change what the next one gets', () => {
    const golds = ["SELECT a FROM t WHERE d = date('now') LIMIT 2"];
    const first = runGoldChecks({ golds });
    const expected = [
      { kind: 'clock_dependent_gold', goldIndex: 0, construct: "date('now')", line: 1, column: 27 },
      { kind: 'limit_without_order_by', goldIndex: 0, construct: 'LIMIT 2', line: 1, column: 39 },
    ];
    expect(first).toMatchObject(expected);
    first.pop();
    expect(() => ((first[0] as { construct: string }).construct = 'x')).toThrow(TypeError);
    expect(runGoldChecks({ golds })).toMatchObject(expected);
    expect(runGoldChecks({ golds }, [...GOLD_CHECKS])).toMatchObject(expected);
  });

  it('a clean gold has no findings; checks are a list callers can replace', () => {
    expect(runGoldChecks({ golds: ['SELECT a FROM t'] })).toEqual([]);
    expect(GOLD_CHECKS.map((check) => check.id)).toEqual(['clock_dependent_gold', 'random_dependent_gold', 'timezone_dependent_gold', 'limit_without_order_by']);
    expect(runGoldChecks({ golds: ['SELECT random()'] }, GOLD_CHECKS.slice(0, 1))).toEqual([]);
  });
});

describe('findLimitWithoutOrderBy (lang_select.html#limitoffset)', () => {
  it.each([
    ['SELECT name FROM t LIMIT 1', ['LIMIT 1']],
    ['SELECT name FROM t ORDER BY age LIMIT 1', []],
    ['SELECT a FROM t WHERE a IN (SELECT b FROM u LIMIT 2) ORDER BY a LIMIT 5', ['LIMIT 2']],
    ['SELECT a FROM t UNION SELECT b FROM u LIMIT 3', ['LIMIT 3']],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 3', []],
    ['SELECT a FROM t LIMIT 10 OFFSET 5', ['LIMIT 10 OFFSET 5']],
    ['SELECT a FROM t LIMIT -1', []],
    ["SELECT 'LIMIT 1' FROM t -- LIMIT 2", []],
    ['SELECT FROM WHERE LIMIT 1', []], // unreadable: not reported
  ])('%s → %j', (sql, expected) => {
    expect(constructs(findLimitWithoutOrderBy(sql))).toEqual(expected);
  });

  it('positions and message', () => {
    expect(findLimitWithoutOrderBy('SELECT a\nFROM t LIMIT 1', 1)).toEqual([
      { kind: 'limit_without_order_by', goldIndex: 1, construct: 'LIMIT 1', message: 'LIMIT 1: without ORDER BY the rows kept are whichever the query plan reaches first', line: 2, column: 8 },
    ]);
  });

  it('planLimitCut removes the outermost LIMIT of a gold without ORDER BY', () => {
    expect(planLimitCut('SELECT name FROM t LIMIT 1')).toEqual({ sql: 'SELECT name FROM t ', clause: 'LIMIT 1', start: 19 });
    expect(planLimitCut('SELECT name FROM t ORDER BY name LIMIT 1')).toBeUndefined();
    expect(planLimitCut('SELECT name FROM t WHERE x IN (SELECT y FROM u LIMIT 1)')).toBeUndefined();
  });
});

const rows = (columns: string[], ...data: unknown[][]) => ({ columns, rows: data as never });

describe('checkGoldResult', () => {
  // SELECT name FROM people ORDER BY age DESC LIMIT 2 over ann 30, cid 30, dan 40, bob 25: the cut falls inside the tie at 30.
  const cut: GoldOrdering = {
    ordered: true,
    source: 'ast',
    segments: [
      { start: 0, end: 1, pool: [['dan']] },
      { start: 1, end: 2, pool: [['ann'], ['cid']] },
    ],
    nondeterministic: true,
    sortKeys: { specs: [{ text: 'age', descending: true, nulls: null }], values: [[40], [30]], fullCount: 4, nullCounts: [0] },
  };

  it('tie_at_limit: names the key value, the rows kept and the rows left out', () => {
    const found = checkGoldResult({ goldIndex: 0, result: rows(['name'], ['dan'], ['ann']), ordering: cut });
    expect(found).toEqual([
      {
        kind: 'tie_at_limit',
        goldIndex: 0,
        message: 'LIMIT cuts a tie of 2 rows on age = 30: keeps 1, leaves out 1',
        rows: [
          { label: 'kept at the cut', columns: ['name'], rows: [['ann']], count: 1 },
          { label: 'left out', columns: ['name'], rows: [['cid']], count: 1 },
        ],
      },
    ]);
    expect(goldVerdictFlags([{ result: rows(['name'], ['dan'], ['ann']), findings: found }])).toEqual(['nondeterministic_gold']);
  });

  it('a cut through identical rows is no tie', () => {
    const same: GoldOrdering = { ...cut, segments: [{ start: 0, end: 1, pool: [['x'], ['x']] }], sortKeys: undefined };
    expect(checkGoldResult({ goldIndex: 0, result: rows(['name'], ['x']), ordering: same })).toEqual([]);
  });

  it('ties_in_result only when order matters', () => {
    const ties: GoldOrdering = {
      ordered: true,
      source: 'ast',
      segments: [
        { start: 0, end: 2, pool: [['ann', 30], ['cid', 30]] },
        { start: 2, end: 3, pool: [['bob', 25]] },
      ],
      sortKeys: { specs: [{ text: 'age', descending: true, nulls: null }], values: [[30], [30], [25]], fullCount: 3, nullCounts: [0] },
    };
    const result = rows(['name', 'age'], ['ann', 30], ['cid', 30], ['bob', 25]);
    expect(checkGoldResult({ goldIndex: 2, result, ordering: ties })).toEqual([
      {
        kind: 'ties_in_result',
        goldIndex: 2,
        message: 'ORDER BY leaves 1 group of tied rows (2 of 3 rows) in any order; first: rows 1–2 on age = 30',
        rows: [{ label: 'rows 1–2', columns: ['name', 'age'], rows: [['ann', 30], ['cid', 30]], count: 2 }],
      },
    ]);
    expect(checkGoldResult({ goldIndex: 2, result, ordering: ties, orderMatters: false })).toEqual([]);
    expect(goldVerdictFlags([{ result, findings: checkGoldResult({ goldIndex: 2, result, ordering: ties }) }])).toEqual([]);
  });

  it('null_sort_key: in the result when order matters, before the LIMIT when it cuts; not with NULLS LAST', () => {
    const ordering: GoldOrdering = {
      ordered: true,
      source: 'ast',
      segments: [{ start: 0, end: 1, pool: [['eve']] }, { start: 1, end: 2, pool: [['bob']] }],
      sortKeys: { specs: [{ text: 'score', descending: false, nulls: null }], values: [[null], [3]], fullCount: 2, nullCounts: [1] },
    };
    const result = rows(['name'], ['eve'], ['bob']);
    const found = checkGoldResult({ goldIndex: 0, result, ordering });
    expect(found.map((f) => [f.kind, f.message, f.rows[0]!.rows])).toEqual([
      ['null_sort_key', 'sort key score is NULL in 1 of 2 rows: SQLite sorts NULLs first here, PostgreSQL last; add NULLS FIRST / NULLS LAST or a filter', [['eve']]],
    ]);
    expect(goldVerdictFlags([{ result, findings: found }])).toEqual(['null_sort_key']);
    // Unordered item: the NULL decides nothing without a LIMIT.
    expect(checkGoldResult({ goldIndex: 0, result, ordering, orderMatters: false })).toEqual([]);
    // A LIMIT cut with a NULL key before it: reported even when order does not count.
    const limited: GoldOrdering = { ...ordering, segments: [{ start: 0, end: 1, pool: [['bob']] }], sortKeys: { specs: [{ text: 'score', descending: true, nulls: null }], values: [[3]], fullCount: 2, nullCounts: [1] } };
    expect(checkGoldResult({ goldIndex: 0, result: rows(['name'], ['bob']), ordering: limited, orderMatters: false }).map((f) => f.message)).toEqual([
      'sort key score is NULL in 1 of the 2 rows before the LIMIT: SQLite sorts NULLs last here, PostgreSQL first; add NULLS FIRST / NULLS LAST or a filter',
    ]);
    const explicit: GoldOrdering = { ...ordering, sortKeys: { ...ordering.sortKeys!, specs: [{ text: 'score', descending: false, nulls: 'last' }] } };
    expect(checkGoldResult({ goldIndex: 0, result, ordering: explicit })).toEqual([]);
  });

  it('all_null_row and empty results', () => {
    const one = rows(['avg(x)', 'max(y)'], [null, null]);
    const found = checkGoldResult({ goldIndex: 0, result: one });
    expect(found.map((f) => [f.kind, f.message])).toEqual([
      ['all_null_row', 'the only row is all NULL (NULL, NULL): an aggregate over no rows tells a right answer from a wrong one no better than an empty result'],
    ]);
    expect(goldVerdictFlags([{ result: one, findings: found }, { result: rows(['a']), findings: [] }])).toEqual(['all_null_gold_row', 'empty_gold']);
    expect(checkGoldResult({ goldIndex: 0, result: rows(['a'], [null], [1]) })).toEqual([]);
    expect(checkGoldResult({ goldIndex: 0, result: rows(['a']) })).toEqual([]);
  });

  it('ties_unchecked: order matters and the groups are unknown', () => {
    const ordering: GoldOrdering = { ordered: true, source: 'ast', tiesUnknownReason: 'DISTINCT with sort key age outside the select list' };
    expect(checkGoldResult({ goldIndex: 0, result: rows(['a'], [1]), ordering }).map((f) => [f.kind, f.message])).toEqual([
      ['ties_unchecked', 'order matters but the tie groups are unknown (DISTINCT with sort key age outside the select list); ties at the LIMIT and in the result were not checked'],
    ]);
  });
});

describe('checkLimitCut and checkSameOnEverySnapshot', () => {
  const plan = { sql: 'SELECT name FROM t ', clause: 'LIMIT 1', start: 19 };
  it('a LIMIT that drops differing rows names them; one that drops nothing, or only copies, is fine', () => {
    expect(checkLimitCut(0, plan, rows(['name'], ['a']), rows(['name'], ['a'], ['b'], ['c']))).toEqual({
      kind: 'limit_without_order_by',
      goldIndex: 0,
      message: 'LIMIT 1 without ORDER BY keeps 1 of 3 rows in no defined order',
      rows: [
        { label: 'kept', columns: ['name'], rows: [['a']], count: 1 },
        { label: 'left out', columns: ['name'], rows: [['b'], ['c']], count: 2 },
      ],
    });
    expect(checkLimitCut(0, plan, rows(['name'], ['a']), rows(['name'], ['a']))).toBeUndefined();
    expect(checkLimitCut(0, plan, rows(['name'], ['a']), rows(['name'], ['a'], ['a']))).toBeUndefined();
  });

  it('same rows on every snapshot (multisets unless order matters)', () => {
    const a = rows(['n'], [1], [2]);
    const b = rows(['n'], [2], [1]);
    expect(checkSameOnEverySnapshot(0, ['base', 'edge'], [a, b], false)?.message).toBe('returns the same 2 rows on base, edge: the extra snapshots add nothing for it');
    expect(checkSameOnEverySnapshot(0, ['base', 'edge'], [a, b], true)).toBeUndefined();
    expect(checkSameOnEverySnapshot(0, ['base'], [a], false)).toBeUndefined();
    expect(checkSameOnEverySnapshot(0, ['base', 'edge'], [a, rows(['n'], [1], [2.5])], false)).toBeUndefined();
  });
});

describe('GOLD_CHECK_KINDS', () => {
  it('gives every kind a severity; the verdict flags', () => {
    expect(Object.fromEntries(Object.entries(GOLD_CHECK_KINDS).map(([kind, info]) => [kind, [info.severity, info.flag ?? null]]))).toEqual({
      clock_dependent_gold: ['error', 'clock_dependent_gold'],
      random_dependent_gold: ['error', 'random_dependent_gold'],
      timezone_dependent_gold: ['error', 'timezone_dependent_gold'],
      limit_without_order_by: ['warning', 'limit_without_order_by'],
      gold_error: ['error', 'gold_error'],
      gold_timeout: ['error', 'gold_error'],
      tie_at_limit: ['warning', 'nondeterministic_gold'],
      ties_in_result: ['warning', null],
      null_sort_key: ['warning', 'null_sort_key'],
      all_null_row: ['warning', 'all_null_gold_row'],
      ties_unchecked: ['info', null],
      golds_disagree: ['error', null],
      same_on_every_snapshot: ['info', null],
    });
  });
});

describe('checkGoldRun and checkGoldsAgree', () => {
  it('a timeout is gold_timeout, any other failure gold_error with its code; a run is no finding', () => {
    expect(checkGoldRun(1, { ok: false, error: { code: 'timeout', message: 'deadline of 500 ms passed' } })).toEqual({ kind: 'gold_timeout', goldIndex: 1, message: 'gold 1 ran past its deadline: deadline of 500 ms passed', rows: [] });
    expect(checkGoldRun(0, { ok: false, error: { code: 'unknown_column', message: 'no such column: x' } })?.message).toBe('gold 0 fails (unknown_column): no such column: x');
    expect(checkGoldRun(0, { ok: true, result: { columns: ['a'], rows: [], doubleQuoteFallback: false, executedSql: 'SELECT 1', elapsedMs: 1 } })).toBeUndefined();
  });

  it('disagreeing golds name the rows only each returns', () => {
    const verdict = { match: false, reason: '1 missing row, 1 extra row', missingRows: { count: 1, rows: [[7]] }, extraRows: { count: 1, rows: [[6]] } } as never;
    expect(checkGoldsAgree(1, 0, verdict, { gold: ['n'], predicted: ['m'] })).toEqual({
      kind: 'golds_disagree',
      goldIndex: 1,
      message: 'gold 1 differs from gold 0: 1 missing row, 1 extra row',
      rows: [
        { label: 'only gold 0 returns', columns: ['n'], rows: [[7]], count: 1 },
        { label: 'only gold 1 returns', columns: ['m'], rows: [[6]], count: 1 },
      ],
    });
    expect(checkGoldsAgree(1, 0, { match: true } as never, { gold: [], predicted: [] })).toBeUndefined();
  });
});
