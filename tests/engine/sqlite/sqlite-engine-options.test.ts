import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LadderError } from '../../../src/errors.js';
import { resolveRequest, resolveSqliteEngineOptions } from '../../../src/engine/sqlite/sqlite-engine-options.js';

describe('resolveSqliteEngineOptions', () => {
  it('applies the defaults', () => {
    expect(resolveSqliteEngineOptions(undefined)).toEqual({
      poolSize: os.availableParallelism(),
      timeoutMs: 10_000,
      maxRows: 100_000,
      maxMemoryBytes: 536_870_912,
      maxResultBytes: 67_108_864,
      doubleQuotes: 'legacy',
    });
  });

  it('keeps given values', () => {
    expect(resolveSqliteEngineOptions({ poolSize: 3, timeoutMs: 500, maxRows: 7, maxMemoryBytes: 2 ** 27, maxResultBytes: 4096, doubleQuotes: 'strict' })).toEqual({
      poolSize: 3,
      timeoutMs: 500,
      maxRows: 7,
      maxMemoryBytes: 134_217_728,
      maxResultBytes: 4096,
      doubleQuotes: 'strict',
    });
  });

  it.each([
    ['a string', 'fast', 'createSqliteEngine options must be an object; received a string ("fast")'],
    ['null', null, 'createSqliteEngine options must be an object; received null'],
    ['an array', [], 'createSqliteEngine options must be an object; received an array ([])'],
    ['an unknown name', { poolsize: 2 }, 'poolsize is not a createSqliteEngine option (did you mean poolSize?); known createSqliteEngine options: poolSize, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes'],
    ['a misspelt name', { timeout: 5 }, 'timeout is not a createSqliteEngine option (did you mean timeoutMs?); known createSqliteEngine options: poolSize, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes'],
    ['a foreign name', { readonly: false }, 'readonly is not a createSqliteEngine option (did you mean (nothing: databases are always opened read-only)?); known createSqliteEngine options: poolSize, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes'],
    ['zero timeoutMs', { timeoutMs: 0 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (0)'],
    ['zero maxResultBytes', { maxResultBytes: 0 }, 'maxResultBytes must be an integer from 1 to 9007199254740991 (bytes); received a number (0)'],
    ['a misspelt maxResultBytes', { maxBytes: 10 }, 'maxBytes is not a createSqliteEngine option (did you mean maxResultBytes?); known createSqliteEngine options: poolSize, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes'],
    ['negative timeoutMs', { timeoutMs: -1 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (-1)'],
    ['fractional timeoutMs', { timeoutMs: 1.5 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (1.5)'],
    ['timeoutMs as text', { timeoutMs: '10s' }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a string ("10s")'],
    ['timeoutMs beyond setTimeout', { timeoutMs: 2 ** 31 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (2147483648)'],
    ['zero poolSize', { poolSize: 0 }, 'poolSize must be an integer from 1 to 256; received a number (0)'],
    ['NaN poolSize', { poolSize: Number.NaN }, 'poolSize must be an integer from 1 to 256; received a number (NaN)'],
    ['zero maxRows', { maxRows: 0 }, 'maxRows must be an integer from 1 to 9007199254740991 (rows); received a number (0)'],
    ['bigint maxRows', { maxRows: 10n }, 'maxRows must be an integer from 1 to 9007199254740991 (rows); received a bigint (10n)'],
    ['tiny maxMemoryBytes', { maxMemoryBytes: 1024 }, 'maxMemoryBytes must be an integer from 67108864 to 9007199254740991 (bytes); received a number (1024)'],
    ['unknown doubleQuotes', { doubleQuotes: 'on' }, "doubleQuotes must be 'legacy' or 'strict'; received a string (\"on\")"],
    ['null doubleQuotes', { doubleQuotes: null }, "doubleQuotes must be 'legacy' or 'strict'; received null"],
  ])('rejects %s', (_what, options, message) => {
    const error = (() => {
      try {
        resolveSqliteEngineOptions(options);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(LadderError);
    expect(error).toMatchObject({ code: 'invalid_option', message });
  });
});

describe('resolveRequest', () => {
  const defaults = resolveSqliteEngineOptions({ poolSize: 1 });

  it('fills limits from the engine and makes db absolute', () => {
    expect(resolveRequest({ db: 'x.sqlite', sql: 'SELECT 1' }, defaults)).toEqual({
      db: path.resolve('x.sqlite'),
      sql: 'SELECT 1',
      timeoutMs: 10_000,
      maxRows: 100_000,
      doubleQuotes: 'legacy',
    });
    expect(resolveRequest({ db: '/a.sqlite', sql: '', timeoutMs: 5, maxRows: 2, doubleQuotes: 'strict' }, defaults)).toEqual({
      db: '/a.sqlite',
      sql: '',
      timeoutMs: 5,
      maxRows: 2,
      doubleQuotes: 'strict',
    });
  });

  it.each([
    ['no request', undefined, 'request must be an object { db, sql, timeoutMs?, maxRows?, doubleQuotes? }; received undefined'],
    ['a missing db', { sql: 'SELECT 1' }, 'request.db must be a non-empty path to a SQLite file; received undefined'],
    ['an empty db', { db: ' ', sql: 'SELECT 1' }, 'request.db must be a non-empty path to a SQLite file; received a string (" ")'],
    ['an in-memory db', { db: ':memory:', sql: 'SELECT 1' }, 'request.db must be a path to a database file (in-memory and URI databases are not supported); received a string (":memory:")'],
    ['a URI db', { db: 'file:x.db?mode=rwc', sql: 'SELECT 1' }, 'request.db must be a path to a database file (in-memory and URI databases are not supported); received a string ("file:x.db?mode=rwc")'],
    ['sql that is not text', { db: 'x', sql: 42 }, 'request.sql must be a string; received a number (42)'],
    ['an unknown field', { db: 'x', sql: 'SELECT 1', timeout: 3 }, 'timeout is not a request field (did you mean timeoutMs?); known request fields: db, sql, timeoutMs, maxRows, doubleQuotes'],
    ['a negative timeoutMs', { db: 'x', sql: 'SELECT 1', timeoutMs: -5 }, 'request.timeoutMs must be an integer from 1 to 2147483647 (ms); received a number (-5)'],
    ['a zero maxRows', { db: 'x', sql: 'SELECT 1', maxRows: 0 }, 'request.maxRows must be an integer from 1 to 9007199254740991 (rows); received a number (0)'],
    ['a bad doubleQuotes', { db: 'x', sql: 'SELECT 1', doubleQuotes: 'loose' }, "request.doubleQuotes must be 'legacy' or 'strict'; received a string (\"loose\")"],
  ])('rejects %s', (_what, request, message) => {
    expect(() => resolveRequest(request, defaults)).toThrow(expect.objectContaining({ code: 'invalid_option', message }));
  });
});
