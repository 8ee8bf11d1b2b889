/**
 * A database that cannot be used is the machine's fault, never the statement's: the SQLite engine
 * reports `db_unavailable`, the ladder throws LadderError('db_unavailable') instead of grading any
 * rung on it (0.2.0 failed L1 with "file is not a database"), and the matchers throw rather than
 * fail the assertion.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { sqliteErrorCode } from '../../src/engine/sqlite/sqlite-errors.js';
import { throwingOnUnavailable } from '../../src/engine/unavailable-database.js';
import { LadderError } from '../../src/errors.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { makeDb, tempDir } from '../compare/helpers.js';

let engine: SqliteEngine;
let corrupt: string;
let good: string;

beforeAll(() => {
  engine = createSqliteEngine({ poolSize: 1 });
  const dir = tempDir('ladder-unavailable-');
  good = makeDb(path.join(dir, 'good.sqlite'), 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
  corrupt = path.join(dir, 'corrupt.sqlite');
  // The SQLite header, then pages SQLite cannot read.
  writeFileSync(corrupt, Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(4080, 0xff)]));
});
afterAll(() => engine.close());

describe('db_unavailable', () => {
  it.each([
    ['file is not a database', 'db_unavailable'],
    ['database disk image is malformed', 'db_unavailable'],
    ['unable to open database file', 'db_unavailable'],
    ['disk I/O error', 'db_unavailable'],
    ['no such table: t', 'unknown_table'],
    ['misuse of aggregate: count()', 'query_error'],
  ])('sqliteErrorCode(%j) = %s', (message, code) => {
    expect(sqliteErrorCode(message)).toBe(code);
  });

  it('the engine reports it as the outcome; the checked view throws it', async () => {
    expect(await engine.execute({ db: corrupt, sql: 'SELECT 1' })).toEqual({ ok: false, error: { code: 'db_unavailable', message: `cannot open ${corrupt}: file is not a database` } });
    await expect(throwingOnUnavailable(engine).execute({ db: corrupt, sql: 'SELECT 1' })).rejects.toThrow(new LadderError('db_unavailable', `cannot open ${corrupt}: file is not a database`));
    // A statement's own error is still an outcome.
    expect(await throwingOnUnavailable(engine).execute({ db: good, sql: 'SELECT nope FROM t' })).toMatchObject({ ok: false, error: { code: 'unknown_column' } });
    // Wrapping a view again returns it unchanged.
    const view = throwingOnUnavailable(engine);
    expect(throwingOnUnavailable(view)).toBe(view);
  });

  it('the ladder throws instead of grading the model on it', async () => {
    const input = { sql: 'SELECT COUNT(*) FROM t', expectedBehavior: 'answer' as const, golds: ['SELECT COUNT(*) FROM t'], dialect: 'sqlite' as const, engine };
    await expect(runLadder({ ...input, snapshots: [{ name: 'corrupt', path: corrupt }] })).rejects.toMatchObject({ code: 'db_unavailable', message: `cannot open ${corrupt}: file is not a database` });
    expect((await runLadder({ ...input, snapshots: [{ name: 'good', path: good }] })).verdict).toBe('pass');
  });

  it('a matcher throws (the test fails with the machine\'s fault), never fails the assertion with a verdict', async () => {
    await expect(expect('SELECT COUNT(*) FROM t').toMatchGoldResult('SELECT COUNT(*) FROM t', { db: corrupt })).rejects.toMatchObject({ code: 'db_unavailable' });
  });
});
