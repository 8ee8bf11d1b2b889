/**
 * Command-line misuse, every command: exit status 2, exactly one line on stderr (`error: …` naming
 * the flag, the file or `file:line`), nothing on stdout, no stack. In-process through `runCli` (the
 * binary's own entry), plus a few cases through the binary itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, type CapturedRun } from '../helpers/run-cli.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
let dbDir: string;
let gold: string;
let pred: string;

beforeAll(() => {
  dir = tempDir('ladder-cli-misuse-');
  dbDir = path.join(dir, 'database');
  mkdirSync(path.join(dbDir, 'shop'), { recursive: true });
  makeDb(path.join(dbDir, 'shop', 'shop.sqlite'), 'CREATE TABLE items (id INTEGER); INSERT INTO items VALUES (1);');
  gold = path.join(dir, 'gold.sql');
  pred = path.join(dir, 'pred.sql');
  writeFileSync(gold, 'SELECT count(*) FROM items\tshop\nSELECT id FROM items\tshop\n');
  writeFileSync(pred, 'SELECT count(*) FROM items\nSELECT id FROM items\n');
  // Whole-file problems.
  writeFileSync(path.join(dir, 'no-tab.sql'), 'SELECT count(*) FROM items\nSELECT id FROM items\n');
  writeFileSync(path.join(dir, 'dev.json'), JSON.stringify([{ db_id: 'shop', question: 'How many?', query: 'SELECT count(*) FROM items' }], null, 1));
  writeFileSync(path.join(dir, 'empty.sql'), '\n\n');
  // concert_singer is a known db_id (a --db folder): a line naming it against a shop item is misaligned.
  mkdirSync(path.join(dbDir, 'concert_singer'));
  writeFileSync(path.join(dir, 'misaligned.sql'), 'SELECT count(*) FROM items\tshop\nSELECT id FROM items\tconcert_singer\n');
  for (const [folder, content] of [['not-sqlite', 'CREATE TABLE items (id INTEGER);\n'], ['zero-bytes', '']] as const) {
    mkdirSync(path.join(dir, folder, 'shop'), { recursive: true });
    writeFileSync(path.join(dir, folder, 'shop', 'shop.sqlite'), content);
  }
});

function cli(args: readonly string[]): Promise<CapturedRun> {
  return runCliCaptured(args, dir);
}

const spider = (...extra: string[]): string[] => ['spider', '--gold', gold, '--pred', pred, '--db', dbDir, ...extra];
const HELP = '(text2sql-ladder spider --help lists the options)';

describe('misuse exits 2 with one line and no stack', () => {
  it.each<[string, () => string[], string]>([
    ['spider: a bad --preset', () => spider('--preset', 'bogus'), `error: option '--preset <name>' argument 'bogus' is invalid. expected one of default, spider, bird ${HELP}`],
    ['spider: --timeout-ms 0', () => spider('--timeout-ms', '0'), `error: option '--timeout-ms <n>' argument '0' is invalid. expected an integer >= 1 ${HELP}`],
    ['spider: --concurrency 0', () => spider('--concurrency', '0'), `error: option '--concurrency <n>' argument '0' is invalid. expected an integer >= 1 ${HELP}`],
    ['spider: an unknown flag', () => spider('--frobnicate'), `error: unknown option '--frobnicate' ${HELP}`],
    ['spider: a misspelt flag', () => spider('--prest', 'spider'), `error: unknown option '--prest' (Did you mean --preset?) ${HELP}`],
    ['spider: a missing --db', () => ['spider', '--gold', gold, '--pred', pred], `error: required option '--db <dir>' not specified ${HELP}`],
    ['spider: --out in a missing folder', () => spider('--out', path.join(dir, 'nowhere', 'v.jsonl')), 'error: --out: the folder <dir>/nowhere does not exist (the file is created, its folder is not); received <dir>/nowhere/v.jsonl'],
    ['spider: a gold file with no tab', () => ['spider', '--gold', path.join(dir, 'no-tab.sql'), '--pred', pred, '--db', dbDir], 'error: --gold: no line of <dir>/no-tab.sql is "sql<TAB>db_id" (<dir>/no-tab.sql:1: expected "sql<TAB>db_id"); expected one "sql<TAB>db_id" per line (Spider\'s dev_gold.sql)'],
    ["spider: Spider's dev.json as --gold", () => ['spider', '--gold', path.join(dir, 'dev.json'), '--pred', pred, '--db', dbDir], 'error: --gold: <dir>/dev.json is JSON (Spider\'s dev.json?); expected one "sql<TAB>db_id" per line (Spider\'s dev_gold.sql)'],
    ['spider: an empty gold file', () => ['spider', '--gold', path.join(dir, 'empty.sql'), '--pred', pred, '--db', dbDir], 'error: --gold: <dir>/empty.sql holds no item (no non-blank line); expected one "sql<TAB>db_id" per line (Spider\'s dev_gold.sql)'],
    ['spider: a database that is not SQLite', () => ['spider', '--gold', gold, '--pred', pred, '--db', path.join(dir, 'not-sqlite')], 'error: --db: <dir>/not-sqlite/shop/shop.sqlite is not a SQLite database (it does not start with "SQLite format 3")'],
    ['spider: a database of 0 bytes', () => ['spider', '--gold', gold, '--pred', pred, '--db', path.join(dir, 'zero-bytes')], 'error: --db: <dir>/zero-bytes/shop/shop.sqlite is empty (0 bytes), not a SQLite database'],
    ['spider: a db_id mismatch (misaligned files)', () => ['spider', '--gold', gold, '--pred', path.join(dir, 'misaligned.sql'), '--db', dbDir], 'error: --pred: <dir>/misaligned.sql:2 names db_id "concert_singer" but gold item 1 (<dir>/gold.sql:2) is on "shop": the files are not aligned'],
    ['spider: an unreadable gold file', () => ['spider', '--gold', path.join(dir, 'missing.sql'), '--pred', pred, '--db', dbDir], 'error: cannot read gold file <dir>/missing.sql: no such file'],
    ['an unknown command', () => ['frobnicate'], "error: unknown command 'frobnicate' (text2sql-ladder --help lists the options)"],
    ['compare: a missing argument', () => ['compare'], "error: missing required argument 'base' (text2sql-ladder compare --help lists the options)"],
    ['compare: an unknown flag', () => ['compare', 'a.json', 'b.json', '--frobnicate'], "error: unknown option '--frobnicate' (text2sql-ladder compare --help lists the options)"],
    ['check: a missing --db', () => ['check'], 'error: --db is required with --dialect sqlite: a database file or a fixture name (e.g. warehouse); other dialects run without it (L2 is then skipped)'],
    ['check: an unknown flag', () => ['check', '--db', 'x.sqlite', '--frobnicate'], "error: unknown option '--frobnicate' (text2sql-ladder check --help lists the options)"],
    ['check: a bad --max-limit', () => ['check', '--db', 'x.sqlite', '--max-limit', '1e9'], "error: option '--max-limit <n>' argument '1e9' is invalid. expected an integer >= 1 (text2sql-ladder check --help lists the options)"],
    ['check: a bad --dialect', () => ['check', '--db', 'x.sqlite', '--dialect', 'tsql'], "error: option '--dialect <name>' argument 'tsql' is invalid. expected one of sqlite, postgres, mysql, bigquery, snowflake (text2sql-ladder check --help lists the options)"],
    ['check: a database that does not exist', () => ['check', '--db', path.join(dir, 'nope.sqlite')], 'error: --db: database <dir>/nope.sqlite does not exist (it is never created)'],
  ])('%s', async (_name, args, message) => {
    const { code, out, err } = await cli(args());
    expect({ code, out, err }).toEqual({ code: 2, out: '', err: `${message}\n` });
  });

  it('help and version exit 0', async () => {
    expect((await cli(['--version'])).code).toBe(0);
    const help = await cli(['spider', '--help']);
    expect([help.code, help.out.startsWith('Usage: text2sql-ladder spider')]).toEqual([0, true]);
  });

  it('a malformed line among good ones is a per-item problem, not misuse', async () => {
    const mixed = path.join(dir, 'mixed.sql');
    writeFileSync(mixed, 'SELECT count(*) FROM items\tshop\nSELECT id FROM items\n');
    const { code, err } = await cli(['spider', '--gold', mixed, '--pred', pred, '--db', dbDir]);
    expect([code, err]).toEqual([0, 'item 1: malformed gold line <dir>/mixed.sql:2: expected "sql<TAB>db_id"\n']);
  });
});

describe('through the binary: the same line, no stack', () => {
  const bin = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/text2sql-ladder.ts'), ...args], { encoding: 'utf8', cwd: ROOT });

  it.each<[string, () => string[], RegExp]>([
    ['a bad --preset', () => spider('--preset', 'bogus'), /^error: option '--preset <name>' argument 'bogus' is invalid\. .*\n$/],
    ['--out in a missing folder', () => spider('--out', path.join(dir, 'nowhere', 'v.jsonl')), /^error: --out: the folder .*nowhere does not exist .*\n$/],
    ['a database of 0 bytes', () => ['spider', '--gold', gold, '--pred', pred, '--db', path.join(dir, 'zero-bytes')], /^error: --db: .*shop\.sqlite is empty \(0 bytes\), not a SQLite database\n$/],
  ])('%s', (_name, args, message) => {
    const result = bin(args());
    expect([result.status, result.stdout]).toEqual([2, '']);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
