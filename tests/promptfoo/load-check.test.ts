/**
 * The promptfoo setup checked once, when the test generator loads (src/promptfoo/load-check.ts):
 * a misspelt ladder option, a misspelt generator key, invalid items, an unknown fixture or
 * snapshot, a `db_path` that is no SQLite database. Each is one LadderError with a misuse code
 * (exit 2 in promptfoo's command line, tests-faults/promptfoo-exit-codes.test.ts), found before a
 * single row runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { readDatasetTests } from '../../src/promptfoo/dataset-tests.js';
import { checkLadderOptions, loadExitCode, namesLadderAssertion, runsInPromptfooCli } from '../../src/promptfoo/load-check.js';
import { LadderError } from '../../src/errors.js';
import { makeDb } from '../compare/helpers.js';

vi.mock('../../src/promptfoo/warm-up.js', () => ({ warmLadderRuntime: vi.fn() }));

const dir = mkdtempSync(path.join(tmpdir(), 'pf-load-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function dataset(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const good = makeDb(path.join(dir, 'good.sqlite'), 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2);');
writeFileSync(path.join(dir, 'notes.sqlite'), 'these are notes, not a database\n');

describe('checkLadderOptions', () => {
  it('a misspelt option of the ladder block, with the option it meant', () => {
    expect(() => checkLadderOptions({ ladder: { polcy: 'spider' } })).toThrow(
      new LadderError(
        'invalid_option',
        'config.ladder.polcy is not an option (did you mean config.ladder.policy?); known options: dialect, timeoutMs, doubleQuotes, fixturesDir, cacheDir, postgres, gold_sql, db, db_path, snapshots, role, expected_behavior, policy, safety, semantic, efficiency, answer, answerInEndToEnd, gold_result_ordered, judge',
      ),
    );
  });

  it('the judge block is checked at load, each key named', () => {
    expect(() => checkLadderOptions({ ladder: { judge: { provider: 'openai:chat:gpt-4.1', share: 'everything' } } })).toThrow('config.ladder.judge.share must be one of "sql", "schema", "rows"; received a string ("everything")');
    expect(() => checkLadderOptions({ ladder: { judge: true } })).toThrow(/^config\.ladder\.judge needs a provider/);
  });

  it('a wrong value of a known option', () => {
    expect(() => checkLadderOptions({ ladder: { policy: 'spyder' } })).toThrow(/^config\.ladder\.policy/);
    expect(() => checkLadderOptions({ ladder: { timeoutMs: -5 } })).toThrow(/^config\.ladder\.timeoutMs must be/);
  });

  it('the config of an `assert` entry naming the ladder assertion, by its index; other assertions are not read', () => {
    expect(() =>
      checkLadderOptions({ assert: [{ type: 'javascript', value: 'file://x.ts:y', config: { anything: 1 } }, { type: 'javascript', value: 'file://node_modules/text2sql-ladder/dist/assertions/ladder.js:ladder', config: { timeotMs: 5 } }] }),
    ).toThrow(/^config\.assert\[1\]\.config\.timeotMs is not an option \(did you mean config\.assert\[1\]\.config\.timeoutMs\?\)/);
  });

  it.each([
    ['file:///app/node_modules/text2sql-ladder/dist/assertions/ladder.js:ladder', true],
    ['file://assertions/ladder.ts:ladder', true],
    ['package:text2sql-ladder/assertions:ladder', true],
    ['package:text2sql-ladder/assertions:execution', false],
    ['file://assertions/ladder.ts:ladderLike', false],
    ['file://assertions/execution.ts:execution', false],
    [42, false],
  ])('namesLadderAssertion(%j) = %s', (value, expected) => {
    expect(namesLadderAssertion(value)).toBe(expected);
  });
});

describe('readDatasetTests: the whole setup before the first row', () => {
  it('a misspelt generator key (fixtureDir) names the key it meant', async () => {
    const file = dataset('one.yaml', `- id: q1\n  question: Rows?\n  db_path: good.sqlite\n  gold_sql: SELECT COUNT(*) FROM t\n`);
    await expect(readDatasetTests({ file, fixtureDir: 'fixtures' } as never)).rejects.toThrow(
      new LadderError('invalid_option', 'tests: loadTests: config.fixtureDir is not an option (did you mean config.fixturesDir?); known options: file, ladder, assert, ids, strict, fixturesDir, cacheDir'),
    );
  });

  it('invalid items stop the load, every one listed with file:line (strict is the default)', async () => {
    const file = dataset('two-bad.yaml', `- id: q1\n  question: Rows?\n  db: warehouse\n  expected_behavour: answer\n- id: q2\n  question: Rows?\n  db: warehouse\n  gold_sql: 7\n`);
    const error = await readDatasetTests({ file }).catch((thrown: unknown) => thrown as LadderError);
    expect(error).toBeInstanceOf(LadderError);
    expect((error as LadderError).code).toBe('dataset_invalid');
    const lines = (error as LadderError).message.split('\n');
    expect(lines[0]).toBe(`2 invalid items in ${file} (strict: false skips them):`);
    expect(lines.slice(1).map((line) => line.slice(0, line.indexOf(':', file.length + 1) + 1))).toEqual([`${file}:4:`, `${file}:8:`]);
    expect(lines).toHaveLength(3);
  });

  it('strict: false skips invalid items, each named on stderr, and loads the rest', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const file = dataset('one-bad.yaml', `- id: q1\n  question: Rows?\n  db_path: good.sqlite\n  gold_sql: SELECT COUNT(*) FROM t\n- id: q2\n  question: Rows?\n  db: warehouse\n  expected_behavour: answer\n`);
    const tests = await readDatasetTests({ file, strict: false });
    expect(tests.map((test) => test.vars['id'])).toEqual(['q1']);
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(String(stderr.mock.calls[0]?.[0])).toBe(`text2sql-ladder: skipped invalid item: ${file}:8: item "q2": expected_behavour is not a field (did you mean expected_behavior?); known fields: id, question, db, db_path, snapshots, role, as_of_date, gold_sql, gold_result_ordered, gold_tables, tags, expected_behavior, notes\n`);
  });

  it('an unknown fixture names the item and lists the known fixtures', async () => {
    const file = dataset('unknown-fixture.yaml', `- id: q1\n  question: Rows?\n  db: warehose\n  gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file })).rejects.toMatchObject({ code: 'unknown_fixture', message: expect.stringMatching(new RegExp(`^${escape(file)}:3: item "q1": unknown fixture "warehose" in .* \\(did you mean warehouse\\?\\); known fixtures: .*warehouse`)) });
  });

  it('a snapshot its fixture does not have names the item and the fixture\'s snapshots', async () => {
    const file = dataset('unknown-snapshot.yaml', `- id: q1\n  question: Rows?\n  db: warehouse\n  snapshots: [base, lastweek]\n  gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file })).rejects.toThrow(new LadderError('dataset_invalid', `${file}:4: item "q1": snapshots "lastweek" not in fixture warehouse (its snapshots: base, later, edge)`));
  });

  it('a db_path that is no SQLite database names the item and the file', async () => {
    const file = dataset('notes.yaml', `- id: q1\n  question: Rows?\n  db_path: notes.sqlite\n  gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file })).rejects.toMatchObject({ code: 'input_invalid', message: `${file}:3: item "q1": db_path: ${path.join(dir, 'notes.sqlite')} is not a SQLite database (it does not start with "SQLite format 3")` });
  });

  it('a wrong fixture or role inherited from `defaults:` is reported on the defaults line that names it', async () => {
    const fixture = dataset('defaults-fixture.yaml', `# shared\ndefaults:\n  db: warehose\nitems:\n  - id: q1\n    question: Rows?\n    gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file: fixture })).rejects.toMatchObject({ code: 'unknown_fixture', message: expect.stringMatching(new RegExp(`^${escape(fixture)}:3: item "q1": unknown fixture "warehose"`)) });
    const role = dataset('defaults-role.yaml', `defaults:\n  db: warehouse\n  role: nobody\nitems:\n  - id: q1\n    question: Rows?\n    gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file: role })).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^${escape(role)}:3: item "q1": role "nobody" is not declared by fixture warehouse`)) });
  });

  it('a db_path that does not exist is an invalid item', async () => {
    const file = dataset('missing.yaml', `- id: q1\n  question: Rows?\n  db_path: gone.sqlite\n  gold_sql: SELECT 1\n`);
    await expect(readDatasetTests({ file })).rejects.toMatchObject({ code: 'dataset_invalid', message: expect.stringContaining(`db_path: database gone.sqlite does not exist (paths are relative to ${dir})`) });
  });

  it('`db:` with no value beside db_path cancels a default db: the item loads (it was dropped)', async () => {
    const file = dataset('db-null.yaml', `defaults:\n  db: warehouse\nitems:\n  - id: q1\n    question: Rows?\n    db:\n    db_path: good.sqlite\n    gold_sql: SELECT COUNT(*) FROM t\n`);
    const tests = await readDatasetTests({ file });
    expect(tests.map((test) => [test.vars['id'], test.vars['db_path']])).toEqual([['q1', [good]]]);
  });
});

describe('exit codes at load', () => {
  it('misuse 2, infrastructure 3, anything else rethrown (undefined)', () => {
    expect(loadExitCode(new LadderError('invalid_option', 'x'))).toBe(2);
    expect(loadExitCode(new LadderError('dataset_invalid', 'x'))).toBe(2);
    expect(loadExitCode(new LadderError('db_unavailable', 'x'))).toBe(3);
    expect(loadExitCode(new LadderError('engine_failure', 'x'))).toBe(3);
    expect(loadExitCode(new Error('a bug'))).toBeUndefined();
  });

  it('only promptfoo\'s command line ends the process; tests and code get the throw', () => {
    expect(runsInPromptfooCli()).toBe(false);
    expect(runsInPromptfooCli(['node', path.resolve('node_modules/.bin/promptfoo'), 'eval'])).toBe(true);
    expect(runsInPromptfooCli(['node', '/nowhere/promptfoo/dist/src/main.js'])).toBe(false);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
