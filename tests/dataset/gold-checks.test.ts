import { describe, expect, it } from 'vitest';
import { findClockReads, findRandomness, findTimezoneReads, GOLD_CHECKS, runGoldChecks } from '../../src/dataset/gold-checks.js';

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

describe('runGoldChecks', () => {
  it('checks every gold, in check order; as_of_date silences the clock, not randomness', () => {
    const golds = ["SELECT count(*) FROM o WHERE d > date('now', '-7 days')", 'SELECT * FROM o ORDER BY random()'];
    expect(runGoldChecks({ golds }).map((found) => [found.kind, found.goldIndex])).toEqual([
      ['clock_dependent_gold', 0],
      ['random_dependent_gold', 1],
    ]);
    expect(runGoldChecks({ golds, asOfDate: '2024-06-30' }).map((found) => found.kind)).toEqual(['random_dependent_gold']);
  });

  it('a clean gold has no findings; checks are a list callers can replace', () => {
    expect(runGoldChecks({ golds: ['SELECT a FROM t'] })).toEqual([]);
    expect(GOLD_CHECKS.map((check) => check.id)).toEqual(['clock_dependent_gold', 'random_dependent_gold', 'timezone_dependent_gold']);
    expect(runGoldChecks({ golds: ['SELECT random()'] }, GOLD_CHECKS.slice(0, 1))).toEqual([]);
  });
});
