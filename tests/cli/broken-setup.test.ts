/**
 * A broken setup never reads green on the command line: an app's fixtures found by name
 * (`check --fixtures`, `$TEXT2SQL_LADDER_FIXTURES`), an empty prediction file (misuse, 2), a run
 * with errored items or lost prediction lines (incomplete, 3), a database that cannot be read
 * (never charged to the model), and `compare` reading the ladder summary's column labels.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCheckCommand, type CheckCommandOptions } from '../../src/cli/check.js';
import { exitCodeForError } from '../../src/cli/cli-io.js';
import { incompleteRunMessage } from '../../src/cli/spider.js';
import { LadderError } from '../../src/errors.js';
import { runCliCaptured } from '../helpers/run-cli.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = tempDir('ladder-broken-setup-');
  cpSync(path.join(ROOT, 'templates/app/fixtures'), path.join(dir, 'fixtures'), { recursive: true });
  mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
  makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), 'CREATE TABLE items (id INTEGER); INSERT INTO items VALUES (1), (2);');
  mkdirSync(path.join(dir, 'database', 'broken'), { recursive: true });
  // The header is right (it passes the misuse check); the pages are not: SQLite refuses to read it.
  writeFileSync(path.join(dir, 'database', 'broken', 'broken.sqlite'), Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(4080, 0xff)]));
  writeFileSync(path.join(dir, 'gold.sql'), 'SELECT count(*) FROM items\tshop\nSELECT 1\tbroken\nSELECT id FROM items\tshop\n');
});

afterEach(() => vi.unstubAllEnvs());

function check(options: Partial<CheckCommandOptions>, input: string) {
  let out = '';
  let err = '';
  const io = { stdin: async () => input, stdout: { write: (t: string) => ((out += t), true) }, stderr: { write: (t: string) => ((err += t), true) } };
  return { run: runCheckCommand({ dialect: 'sqlite', json: false, ...options }, io), out: () => out, err: () => err };
}

describe('check finds an app\'s own fixtures by name', () => {
  it('--fixtures <dir>', async () => {
    const run = check({ db: 'shop', fixtures: path.join(dir, 'fixtures') }, 'SELECT COUNT(*) FROM orders');
    expect(await run.run).toBe(0);
    expect(run.err()).toBe('');
  });

  it('$TEXT2SQL_LADDER_FIXTURES, with a role', async () => {
    vi.stubEnv('TEXT2SQL_LADDER_FIXTURES', path.join(dir, 'fixtures'));
    const run = check({ db: 'shop', role: 'reporting' }, 'SELECT COUNT(*) FROM orders');
    expect(await run.run).toBe(0);
  });

  it('an unknown name under the bundled fixtures says how to name an app\'s own', async () => {
    vi.stubEnv('TEXT2SQL_LADDER_FIXTURES', '');
    const run = check({ db: 'shop' }, 'SELECT 1');
    expect(await run.run).toBe(2);
    expect(run.err()).toMatch(/^error: unknown fixture "shop" in .*fixtures; known fixtures: .*warehouse.* \(looked in the bundled fixtures; an app's own: --fixtures <dir> or \$TEXT2SQL_LADDER_FIXTURES\)\n$/);
  });

  it('a --fixtures folder that does not exist is misuse naming the flag', async () => {
    const run = check({ db: 'shop', fixtures: path.join(dir, 'nowhere') }, 'SELECT 1');
    expect(await run.run).toBe(2);
    expect(run.err()).toBe(`error: --fixtures: expected a folder; received ${path.join(dir, 'nowhere')}, which does not exist\n`);
  });
});

describe('spider: lost and errored items are an incomplete run', () => {
  it('an empty prediction file is misuse (2), never 0.000', async () => {
    writeFileSync(path.join(dir, 'empty.sql'), '');
    const run = await runCliCaptured(['spider', '--gold', path.join(dir, 'gold.sql'), '--pred', path.join(dir, 'empty.sql'), '--db', path.join(dir, 'database')], dir);
    expect(run.code).toBe(2);
    expect(run.err).toBe('error: --pred: <dir>/empty.sql is empty: no prediction line for the 3 gold items of <dir>/gold.sql (a model that answered nothing has one blank line per item)\n');
    expect(run.out).toBe('');
  });

  it('a database that cannot be read errors its item (in no rate) and a short prediction file loses one: exit 3, both named', async () => {
    writeFileSync(path.join(dir, 'short.sql'), 'SELECT count(*) FROM items\nSELECT 1\n');
    const run = await runCliCaptured(['spider', '--gold', path.join(dir, 'gold.sql'), '--pred', path.join(dir, 'short.sql'), '--db', path.join(dir, 'database')], dir);
    expect(run.code).toBe(3);
    expect(run.err.split('\n').filter((line) => line.startsWith('error: '))).toEqual([
      'error: incomplete run: 1 of 3 items errored (not graded, in no rate; listed above); 1 of 3 gold items have no prediction line (scored 0); the prediction file is shorter than the gold',
    ]);
    expect(run.err).toContain('item 1 (broken): not graded, the machine failed: cannot open <dir>/database/broken/broken.sqlite: file is not a database\n');
    // The errored item is in no rate: 2 of 3 scored, execution accuracy 1 of 2.
    expect(run.out).toContain('scored 2 of 3 | correct 1 | executed 1 | prediction errors 1 | gold errors 0 | empty-gold matches 0 | undecided 0 | errored 1 |');
    expect(run.out).toMatch(/^execution +0\.500 /m);
  });

  it('incompleteRunMessage', () => {
    expect(incompleteRunMessage({ internalErrors: 0, missingPredictions: 0 }, 5)).toBeUndefined();
    expect(incompleteRunMessage({ internalErrors: 2, missingPredictions: 0 }, 5)).toBe('incomplete run: 2 of 5 items errored (not graded, in no rate; listed above)');
  });
});

describe('exitCodeForError: one rule', () => {
  it.each([
    [new LadderError('invalid_option', '--x: bad'), 2, 'error: --x: bad\n'],
    [new LadderError('db_unavailable', 'cannot open a.sqlite: file is not a database'), 3, 'error: cannot open a.sqlite: file is not a database\n'],
    [new LadderError('engine_failure', 'the engine child cannot start'), 3, 'error: the engine child cannot start\n'],
  ])('%s → %i', (error, code, message) => {
    let err = '';
    expect(exitCodeForError(error, { stdout: { write: () => true }, stderr: { write: (t: string) => ((err += t), true) } })).toBe(code);
    expect(err).toBe(message);
  });

  it('a bug is rethrown (its stack is the report)', () => {
    expect(() => exitCodeForError(new TypeError('x is undefined'), { stdout: { write: () => true }, stderr: { write: () => true } })).toThrow(TypeError);
  });
});
