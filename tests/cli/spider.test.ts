import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { runSpiderCommand, type SpiderCommandOptions } from '../../src/cli/spider.js';
import { makeDb, tempDir } from '../compare/helpers.js';
import { capture } from './capture-io.js';

let dir: string;
let dbDir: string;

/** Captures what the command writes. */
beforeAll(() => {
  dir = tempDir('ladder-spider-cli-');
  dbDir = path.join(dir, 'database');
  mkdirSync(path.join(dbDir, 'shop'), { recursive: true });
  const schema = 'CREATE TABLE items (id INTEGER, name TEXT, price REAL, kind TEXT);';
  makeDb(path.join(dbDir, 'shop', 'shop.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5,'office'),(2,'ink',3,'office'),(3,'cup',3,'kitchen');`);
  // A second snapshot: a prediction that only works on lucky data fails here.
  makeDb(path.join(dbDir, 'shop', 'shop_edge.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5,'office'),(2,'ink',3,'office'),(3,'cup',3,'kitchen'),(4,'mug',2,'garden');`);
  mkdirSync(path.join(dbDir, 'empty'));
  writeFileSync(
    path.join(dir, 'gold.sql'),
    [
      'SELECT count(*) FROM items\tshop',
      "SELECT name FROM items WHERE kind = 'office' OR kind = 'kitchen'\tshop",
      'SELECT DISTINCT kind FROM items ORDER BY kind\tshop',
      'SELECT name FROM items ORDER BY price DESC LIMIT 1\tshop',
      'SELECT 1\tnowhere',
      'SELECT count(*) FROM items\tshop',
      'SELECT id FROM items\tshop',
    ].join('\n') + '\n',
  );
  writeFileSync(
    path.join(dir, 'pred.sql'),
    [
      'SELECT COUNT(id) FROM items;',
      'SELECT name FROM items',
      'SELECT kind FROM items GROUP BY kind ORDER BY kind',
      'SELECT name FROM items ORDER BY price DESC, name LIMIT 1',
      'SELECT 1',
      '',
    ].join('\n') + '\n',
  );
});

const options = (overrides: Partial<SpiderCommandOptions> = {}): SpiderCommandOptions => ({
  gold: path.join(dir, 'gold.sql'),
  pred: path.join(dir, 'pred.sql'),
  db: dbDir,
  preset: 'default',
  keepDistinct: false,
  ...overrides,
});

describe('text2sql-ladder spider', () => {
  it('scores every item, writes JSONL, and reports bad input per item; a prediction file shorter than the gold makes the run incomplete (exit 3)', async () => {
    const out = path.join(dir, 'default.jsonl');
    const { io, out: stdout, err } = capture();
    expect(await runSpiderCommand(options({ out }), io)).toBe(3);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(items).toEqual([
      { i: 0, db_id: 'shop', hardness: 'easy', exec: 1, error: null, flags: [], goldIndex: 0 },
      { i: 1, db_id: 'shop', hardness: 'medium', exec: 0, error: "snapshot shop_edge: prediction has 4 rows, gold has 3; 1 extra row: predicted ['mug']", flags: [], goldIndex: 0 },
      { i: 2, db_id: 'shop', hardness: 'easy', exec: 1, error: null, flags: ['ordered'], goldIndex: 0 },
      { i: 3, db_id: 'shop', hardness: 'medium', exec: 1, error: null, flags: ['ordered', 'nondeterministic_gold'], goldIndex: 0 },
      { i: 4, db_id: 'nowhere', hardness: null, exec: null, error: `unknown db_id "nowhere": no folder ${path.join(dbDir, 'nowhere')}`, flags: ['gold_error', 'unknown_db'], goldIndex: null },
      { i: 5, db_id: 'shop', hardness: 'easy', exec: 0, error: 'no SQL', flags: ['prediction_error', 'no_sql'], goldIndex: null },
      { i: 6, db_id: 'shop', hardness: 'easy', exec: 0, error: 'no prediction line', flags: ['prediction_error', 'no_sql'], goldIndex: null },
    ]);
    expect(stdout()).toBe(
      [
        'preset: default',
        '                     easy                 medium               hard                 extra                all',
        'count                4                    2                    0                    0                    7',
        '=====================   EXECUTION ACCURACY     =====================',
        'execution            0.500                0.500                n/a                  n/a                  0.500',
        '',
        'scored 6 of 7 | correct 3 | executed 4 | prediction errors 2 | gold errors 1 | empty-gold matches 0 | undecided 0 | hardness unknown 1 (counted in all only)',
        '',
      ].join('\n'),
    );
    expect(err()).toBe(
      [
        'warning: prediction file has 6 lines, gold has 7 items: items 6…6 have no prediction and score 0',
        `item 4 (nowhere): unknown db_id "nowhere": no folder ${path.join(dbDir, 'nowhere')}`,
        'item 5 (shop): no SQL',
        'item 6 (shop): no prediction line',
        'error: incomplete run: 1 of 7 gold items have no prediction line (scored 0); the prediction file is shorter than the gold',
        '',
      ].join('\n'),
    );
  });

  it('--preset spider: DISTINCT removed from the gold, and no tie groups (items 2 and 3 fail)', async () => {
    const out = path.join(dir, 'spider.jsonl');
    const { io } = capture();
    await runSpiderCommand(options({ out, preset: 'spider' }), io);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { exec: number | null });
    expect(items.map((item) => item.exec)).toEqual([1, 0, 0, 0, null, 0, 0]);
  });

  it('a tab before a word that is no known db_id (an alias) stays SQL: the run goes on', async () => {
    writeFileSync(path.join(dir, 'alias-gold.sql'), 'SELECT count(*) FROM items\tshop\nSELECT T1.name FROM items AS T1 WHERE T1.id = 1\tshop\n');
    writeFileSync(path.join(dir, 'alias-pred.sql'), 'SELECT count(*) FROM items\tT1\nSELECT T1.name FROM items\tT1 WHERE T1.id = 1\n');
    const out = path.join(dir, 'alias.jsonl');
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ gold: path.join(dir, 'alias-gold.sql'), pred: path.join(dir, 'alias-pred.sql'), out }), io)).toBe(0);
    expect(err()).toBe('');
    const items = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { exec: number; flags: string[] });
    expect(items.map((item) => [item.exec, item.flags])).toEqual([
      [1, []],
      [1, []],
    ]);
  });

  it('a malformed gold line is named as one, on stderr and in the counts, not as a gold error', async () => {
    const goldFile = path.join(dir, 'malformed-gold.sql');
    writeFileSync(goldFile, 'SELECT count(*) FROM items\tshop\nSELECT count(*) FROM items\n');
    const out = path.join(dir, 'malformed.jsonl');
    const { io, out: stdout, err } = capture();
    expect(await runSpiderCommand(options({ gold: goldFile, pred: path.join(dir, 'pred.sql'), out }), io)).toBe(0);
    expect(err()).toBe(`warning: prediction file has 6 lines, gold has 2 items: the last 4 lines are ignored\nitem 1: malformed gold line ${goldFile}:2: expected "sql<TAB>db_id"\n`);
    expect(stdout().split('\n').at(-2)).toBe('scored 1 of 2 | correct 1 | executed 1 | prediction errors 0 | gold errors 0 | empty-gold matches 0 | undecided 0 | malformed gold lines 1 | hardness unknown 1 (counted in all only)');
    expect(JSON.parse(readFileSync(out, 'utf8').split('\n')[1]!)).toEqual({ i: 1, db_id: '', exec: null, error: `malformed gold line ${goldFile}:2: expected "sql<TAB>db_id"`, flags: ['malformed_gold_line'], goldIndex: null, hardness: null });
  });

  it('an unreadable gold file is misuse: exit code 2 and a message', async () => {
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ gold: path.join(dir, 'missing.sql') }), io)).toBe(2);
    expect(err()).toMatch(/^error: cannot read gold file .*missing\.sql: no such file\n$/);
  });

  it('--tables marks db_ids outside tables.json as unknown', async () => {
    writeFileSync(path.join(dir, 'tables.json'), JSON.stringify([{ db_id: 'other' }]));
    const out = path.join(dir, 'tables.jsonl');
    const { io, out: stdout } = capture();
    expect(await runSpiderCommand(options({ out, tables: path.join(dir, 'tables.json') }), io)).toBe(0);
    const first = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]!) as { exec: null; error: string };
    expect([first.exec, first.error]).toEqual([null, 'unknown db_id "shop": not in tables.json']);
    // Nothing scored: every accuracy is n/a, not 0.000.
    expect(stdout()).toBe(
      [
        'preset: default',
        '                     easy                 medium               hard                 extra                all',
        'count                4                    2                    0                    0                    7',
        '=====================   EXECUTION ACCURACY     =====================',
        'execution            n/a                  n/a                  n/a                  n/a                  n/a',
        '',
        'scored 0 of 7 | correct 0 | executed 0 | prediction errors 0 | gold errors 7 | empty-gold matches 0 | undecided 0 | hardness unknown 1 (counted in all only)',
        '',
      ].join('\n'),
    );
  });

  it('parses its flags through the program (createProgram)', async () => {
    const out = path.join(dir, 'program.jsonl');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const writeErr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await (await createProgram()).parseAsync(['node', 'text2sql-ladder', 'spider', '--gold', options().gold, '--pred', options().pred, '--db', dbDir, '--preset', 'spider', '--keep-distinct', '--timeout-ms', '5000', '--out', out]);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^preset: spider \(keep distinct\)\n/);
    } finally {
      write.mockRestore();
      writeErr.mockRestore();
    }
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(7);
  });

  it('rejects a bad --preset with commander’s error', async () => {
    const program = await createProgram();
    const spider = program.commands.find((command) => command.name() === 'spider')!;
    spider.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    await expect(program.parseAsync(['node', 'x', 'spider', '--gold', 'g', '--pred', 'p', '--db', 'd', '--preset', 'bogus'])).rejects.toThrow(
      "option '--preset <name>' argument 'bogus' is invalid. expected one of default, spider, bird",
    );
  });
});

describe('text2sql-ladder spider --db misuse (exit 2, nothing run)', () => {
  const layout = 'a database folder DBDIR with one sub-folder per db_id, DBDIR/<db_id>/*.sqlite';

  it('a --db folder that does not exist', async () => {
    const missing = path.join(dir, 'nodb');
    const { io, out, err } = capture();
    expect(await runSpiderCommand(options({ db: missing }), io)).toBe(2);
    expect(out()).toBe('');
    expect(err()).toBe(`error: --db: expected ${layout}; received ${missing}, which does not exist\n`);
  });

  it('a --db that is a file', async () => {
    const file = path.join(dir, 'gold.sql');
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ db: file }), io)).toBe(2);
    expect(err()).toBe(`error: --db: expected ${layout}; received ${file}, which is not a folder\n`);
  });

  it('a --db one level too deep (database/shop): no db_id resolves; lists the folder and hints at its parent', async () => {
    const deep = path.join(dbDir, 'shop');
    const { io, out, err } = capture();
    expect(await runSpiderCommand(options({ db: deep }), io)).toBe(2);
    expect(out()).toBe('');
    expect(err()).toBe(
      [
        `error: --db: none of the gold's 2 db_ids ("shop", …) has a snapshot in ${deep}`,
        `  expected ${layout}, e.g. ${path.join(deep, 'shop', 'shop.sqlite')}`,
        `  received ${deep}, which contains: shop.sqlite, shop_edge.sqlite`,
        `  hint: it holds .sqlite files itself; --db is probably its parent folder, ${dbDir}`,
        '',
      ].join('\n'),
    );
  });

  it('a --db folder one level too high (holding database/): hints at the sub-folder', async () => {
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ db: dir }), io)).toBe(2);
    expect(err()).toMatch(new RegExp(`\n  received ${dir}, which contains: [^\n]*database/, [^\n]*\n  hint: --db is probably its database/ sub-folder, ${path.join(dir, 'database')}\n$`));
  });

  it('an empty --db folder, with a gold naming one db_id', async () => {
    const gold = path.join(dir, 'gold-one-db.sql');
    writeFileSync(gold, 'SELECT count(*) FROM items\tshop\nSELECT 1\tshop\n');
    const empty = path.join(dbDir, 'empty');
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ gold, db: empty }), io)).toBe(2);
    expect(err()).toBe(
      [
        `error: --db: the gold's only db_id, "shop", has no snapshot in ${empty}`,
        `  expected ${layout}, e.g. ${path.join(empty, 'shop', 'shop.sqlite')}`,
        `  received ${empty}, which contains: nothing (empty folder)`,
        '',
      ].join('\n'),
    );
  });
});

describe('text2sql-ladder spider stderr problem list', () => {
  it('lists prediction execution errors (SQLite messages) with the other problems', async () => {
    const gold = path.join(dir, 'gold-errors.sql');
    const pred = path.join(dir, 'pred-errors.sql');
    writeFileSync(gold, ['SELECT count(*) FROM items\tshop', 'SELECT name FROM items\tshop', 'SELECT id FROM items\tshop', 'SELECT 1\tnowhere'].join('\n') + '\n');
    writeFileSync(pred, ['SELECT name FROM items WHERE count(*) > 1', 'SELECT nope FROM items', 'SELECT id FROM items', 'SELECT 1'].join('\n') + '\n');
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ gold, pred }), io)).toBe(0);
    expect(err()).toBe(
      [
        'item 0 (shop): snapshot shop: prediction failed (query_error): misuse of aggregate function count()',
        'item 1 (shop): snapshot shop: prediction failed (unknown_column): no such column: nope',
        `item 3 (nowhere): unknown db_id "nowhere": no folder ${path.join(dbDir, 'nowhere')}`,
        '',
      ].join('\n'),
    );
  });

  const manyProblems = (): { gold: string; pred: string } => {
    const gold = path.join(dir, 'gold-many.sql');
    const pred = path.join(dir, 'pred-many.sql');
    writeFileSync(gold, Array.from({ length: 23 }, () => 'SELECT id FROM items\tshop').join('\n') + '\n');
    writeFileSync(pred, Array.from({ length: 22 }, () => 'SELECT nope FROM items').join('\n') + '\n');
    return { gold, pred };
  };
  const first20 = Array.from({ length: 20 }, (_, i) => `item ${i} (shop): snapshot shop: prediction failed (unknown_column): no such column: nope`);

  it('caps the list at 20; without --out, says how to get the rest', async () => {
    const { io, err } = capture();
    expect(await runSpiderCommand(options(manyProblems()), io)).toBe(3);
    expect(err()).toBe(
      [
        'warning: prediction file has 22 lines, gold has 23 items: items 22…22 have no prediction and score 0',
        ...first20,
        '… and 3 more items with problems (rerun with --out verdicts.jsonl to get every item)',
        'error: incomplete run: 1 of 23 gold items have no prediction line (scored 0); the prediction file is shorter than the gold',
        '',
      ].join('\n'),
    );
  });

  it('caps the list at 20; with --out, names the file', async () => {
    const out = path.join(dir, 'many.jsonl');
    const { io, err } = capture();
    expect(await runSpiderCommand(options({ ...manyProblems(), out }), io)).toBe(3);
    expect(err().split('\n').slice(-3)).toEqual([`… and 3 more items with problems (every item is in --out ${out})`, 'error: incomplete run: 1 of 23 gold items have no prediction line (scored 0); the prediction file is shorter than the gold', '']);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(23);
  });
});

describe('text2sql-ladder spider --diagnostics', () => {
  it('adds a diagnostics row per scored item and averages in the summary', async () => {
    const out = path.join(dir, 'diagnostics.jsonl');
    const { io, out: stdout } = capture();
    await runSpiderCommand(options({ out, diagnostics: true }), io);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { diagnostics?: Record<string, unknown> | null });
    expect(items.map((item) => item.diagnostics === undefined ? 'none' : item.diagnostics === null ? 'null' : typeof item.diagnostics.exact_match_raw)).toEqual([
      'number', 'number', 'number', 'number', 'none', 'none', 'none',
    ]);
    expect(items[0]!.diagnostics!['exact_match_raw']).toBe(0);
    expect(stdout()).toMatch(/\ndiagnostics over 4 items \(macro mean \[items with a value\]; micro F1 for clause components\)\n/);
    expect(stdout()).toMatch(/\nexact_match_raw +0\.000 \[4\]\n/);
  });
});
