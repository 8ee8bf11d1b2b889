/**
 * `text2sql-ladder audit` on the command line: a user dataset with its own fixtures folder, a
 * Spider-format folder with earlier runs, the formats and files, exit statuses 0 / 1 / 2 and the
 * one-line misuse errors. In-process through `runCli`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, type CapturedRun } from '../helpers/run-cli.js';
import { makeDb, tempDir } from '../compare/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(ROOT, 'tests/audit/fixtures');
let dir: string;

function cli(args: readonly string[]): Promise<CapturedRun> {
  return runCliCaptured(args, dir);
}

beforeAll(() => {
  dir = tempDir('ladder-audit-cli-');
  writeFileSync(
    path.join(dir, 'app.yaml'),
    [
      'defaults: {db: seeded}',
      'items:',
      '  - id: people',
      '    question: How many people?',
      '    gold_sql: SELECT COUNT(*) FROM people',
      '  - id: broken',
      '    question: Nicknames?',
      '    gold_sql: SELECT nickname FROM people',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'tie.yaml'), ['defaults: {db: seeded}', 'items:', '  - id: oldest', '    question: Oldest?', '    gold_sql: SELECT name FROM people ORDER BY age DESC LIMIT 1'].join('\n'));
  // A Spider-format folder: two snapshots of one database, three gold lines, two prediction files.
  const spider = path.join(dir, 'spider');
  mkdirSync(path.join(spider, 'database', 'shop'), { recursive: true });
  const schema = 'CREATE TABLE items (id INTEGER, name TEXT, price REAL);';
  makeDb(path.join(spider, 'database', 'shop', 'shop.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5),(2,'ink',3),(3,'cup',3);`);
  makeDb(path.join(spider, 'database', 'shop', 'shop_edge.sqlite'), `${schema} INSERT INTO items VALUES (1,'pen',1.5),(2,'ink',3),(3,'cup',3),(4,'mug',2);`);
  writeFileSync(path.join(spider, 'dev_gold.sql'), ['SELECT count(*) FROM items\tshop', 'SELECT name FROM items ORDER BY price DESC LIMIT 1\tshop', 'SELECT name FROM items WHERE price > 2\tshop'].join('\n') + '\n');
  writeFileSync(path.join(spider, 'dev.json'), JSON.stringify([{ db_id: 'shop', question: 'How many items?', query: 'SELECT count(*) FROM items' }]));
  writeFileSync(path.join(spider, 'a.sql'), ['SELECT count(*) FROM items', 'SELECT name FROM items ORDER BY price DESC LIMIT 1', 'SELECT name FROM items WHERE price >= 2'].join('\n') + '\n');
  writeFileSync(path.join(spider, 'b.sql'), ['SELECT count(id) FROM items', 'SELECT name FROM items ORDER BY price LIMIT 1', "SELECT name FROM items WHERE NOT price < 2"].join('\n') + '\n');
});

describe('text2sql-ladder audit', () => {
  it('a user dataset with one broken gold: the table names item, snapshot and error; exit 1', async () => {
    const { code, out, err } = await cli(['audit', path.join(dir, 'app.yaml'), '--fixtures', FIXTURES]);
    expect([code, err]).toEqual([1, '']);
    // The item cell names the gold's own line (gold_sql: on line 8), under the item id; the column
    // is as wide as the real path, which the output shows as <dir>.
    const width = `${path.join(dir, 'app.yaml')}:8`.length;
    const bar = '─'.repeat(width + 2);
    const cell = (text: string): string => text.padEnd(width - (text.startsWith('<dir>') ? dir.length - '<dir>'.length : 0));
    expect(out).toBe(
      [
        'gold audit of <dir>/app.yaml (dataset)',
        '2 items loaded, 2 with gold: 2 golds, 4 gold runs (every gold on every snapshot of its item); policy default',
        '2 errors, 0 warnings, 0 notes',
        '┌────────────┬──────────┬──────────┬───────┐',
        '│ kind       │ severity │ findings │ items │',
        '├────────────┼──────────┼──────────┼───────┤',
        '│ gold_error │ error    │ 2        │ 1     │',
        '└────────────┴──────────┴──────────┴───────┘',
        `┌──────────┬────────────┬${bar}┬──────────┬──────┬────────────────────────────────────────────────────────────────────────────────────────┐`,
        `│ severity │ kind       │ ${cell('item')} │ snapshot │ gold │ finding                                                                                │`,
        `├──────────┼────────────┼${bar}┼──────────┼──────┼────────────────────────────────────────────────────────────────────────────────────────┤`,
        `│ error    │ gold_error │ ${cell('broken')} │ base     │ 0    │ gold 0 fails (unknown_column): no such column: nickname                                │`,
        `│          │            │ ${cell('<dir>/app.yaml:8')} │          │      │                                                                                        │`,
        `├──────────┼────────────┼${bar}┼──────────┼──────┼────────────────────────────────────────────────────────────────────────────────────────┤`,
        `│ error    │ gold_error │ ${cell('broken')} │ edge     │ 0    │ gold 0 fails (unknown_column): no such column: nickname                                │`,
        `│          │            │ ${cell('<dir>/app.yaml:8')} │          │      │                                                                                        │`,
        `└──────────┴────────────┴${bar}┴──────────┴──────┴────────────────────────────────────────────────────────────────────────────────────────┘`,
        '',
      ].join('\n'),
    );
  });

  it('--items lists every item with its row counts per snapshot; --json and --markdown write files', async () => {
    const json = path.join(dir, 'audit.json');
    const markdown = path.join(dir, 'audit.md');
    const { code, out } = await cli(['audit', path.join(dir, 'app.yaml'), '--fixtures', FIXTURES, '--items', '--json', json, '--markdown', markdown]);
    expect(code).toBe(1);
    expect(out.split('\n').slice(-3)).toEqual(['people  base=1 edge=1', 'broken  base=ERR edge=ERR', '']);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { counts: unknown; items: { id: string; snapshots: { name: string; results: unknown[] }[] }[] };
    expect(report.counts).toEqual({ loaded: 2, audited: 2, withoutGold: 0, golds: 2, goldRuns: 4, error: 2, warning: 0, info: 0 });
    expect(report.items[1]!.snapshots.map((s) => [s.name, s.results])).toEqual([
      ['base', [{ error: 'unknown_column: no such column: nickname' }]],
      ['edge', [{ error: 'unknown_column: no such column: nickname' }]],
    ]);
    expect(readFileSync(markdown, 'utf8')).toBe(
      [
        `## Gold audit: \`${path.join(dir, 'app.yaml')}\``,
        '',
        '**2 errors, 0 warnings, 0 notes** — 2 items loaded, 2 with gold: 2 golds, 4 gold runs (every gold on every snapshot of its item); policy default.',
        '',
        '| kind | severity | findings | items | what it means |',
        '|---|---|---:|---:|---|',
        '| `gold_error` | error | 2 | 1 | the gold fails on the snapshot |',
        '',
        '| severity | kind | item | snapshot | gold | finding |',
        '|---|---|---|---|---:|---|',
        `| error | \`gold_error\` | broken<br>${path.join(dir, 'app.yaml')}:8 | base | 0 | gold 0 fails (unknown_column): no such column: nickname |`,
        `| error | \`gold_error\` | broken<br>${path.join(dir, 'app.yaml')}:8 | edge | 0 | gold 0 fails (unknown_column): no such column: nickname |`,
        '',
      ].join('\n'),
    );
  });

  it('warnings only exit 0; --fail-on warning makes them fail; --severity hides notes from the list, not the counts', async () => {
    const tie = path.join(dir, 'tie.yaml');
    expect((await cli(['audit', tie, '--fixtures', FIXTURES])).code).toBe(0);
    expect((await cli(['audit', tie, '--fixtures', FIXTURES, '--fail-on', 'warning'])).code).toBe(1);
    const { out } = await cli(['audit', tie, '--fixtures', FIXTURES, '--severity', 'warning', '--format', 'markdown']);
    expect(out).toContain('**0 errors, 1 warning, 1 note**');
    expect(out).toContain('| warning | `tie_at_limit` | oldest<br><dir>/tie.yaml:5 | edge | 0 | LIMIT cuts a tie of 2 rows on age = 40: keeps 1, leaves out 1<br>*kept at the cut (1): (\'dan\')*<br>*left out (1): (\'fay\')* |');
    expect(out).not.toContain('| info | `same_on_every_snapshot` |');
  });

  it('a Spider folder with earlier runs (prediction files): every db file is a snapshot; both runs against a gold', async () => {
    const spider = path.join(dir, 'spider');
    const { code, out } = await cli(['audit', spider, '--runs', path.join(spider, 'a.sql'), path.join(spider, 'b.sql'), '--format', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as { input: unknown; counts: unknown; findings: { kind: string; item: string; source: string; snapshot: string | null; message: string }[] };
    expect(report.input).toEqual({ kind: 'spider', path: '<dir>/spider' });
    // Item 1 (0-based) is line 2 of dev_gold.sql; item 2 is line 3.
    expect(report.findings.map((f) => `${f.item} ${f.source}`)).toEqual(['1 <dir>/spider/dev_gold.sql:2', '1 <dir>/spider/dev_gold.sql:2', '1 <dir>/spider/dev_gold.sql:2', '2 <dir>/spider/dev_gold.sql:3', '2 <dir>/spider/dev_gold.sql:3']);
    expect(report.counts).toEqual({ loaded: 3, audited: 3, withoutGold: 0, golds: 3, goldRuns: 6, error: 0, warning: 3, info: 2 });
    expect(report.findings.map((f) => [f.kind, f.item, f.snapshot, f.message])).toEqual([
      ['tie_at_limit', '1', 'shop', 'LIMIT cuts a tie of 2 rows on price = 3: keeps 1, leaves out 1'],
      ['tie_at_limit', '1', 'shop_edge', 'LIMIT cuts a tie of 2 rows on price = 3: keeps 1, leaves out 1'],
      ['same_on_every_snapshot', '1', null, 'returns the same 1 row on shop, shop_edge: the extra snapshots add nothing for it'],
      ['runs_agree_against_gold', '2', 'shop_edge', '2 of 2 runs (a, b) return the same result, and L4 fails it against the gold: snapshot shop_edge: prediction has 3 rows, gold has 2; 1 extra row: predicted [\'mug\']'],
      ['same_on_every_snapshot', '2', null, 'returns the same 2 rows on shop, shop_edge: the extra snapshots add nothing for it'],
    ]);
  });

  it.each<[string, () => string[], string]>([
    ['an input that does not exist', () => ['audit', path.join(dir, 'nope.yaml')], 'error: <dir>/nope.yaml: no such file or folder; expected a dataset file (.yaml, .yml, .json, .jsonl, .ndjson) or a Spider folder (dev_gold.sql and database/)\n'],
    ['a folder that is not Spider-format', () => ['audit', FIXTURES.replace(dir, '')], `error: ${FIXTURES}: a folder without dev_gold.sql; expected a Spider folder (dev_gold.sql, database/) or a dataset file\n`],
    ['a Spider dev.json', () => ['audit', path.join(dir, 'spider', 'dev.json')], 'error: <dir>/spider/dev.json is a Spider dev.json; audit its folder (with dev_gold.sql and database/) or its gold file dev_gold.sql\n'],
    ['a --fixtures folder that does not exist', () => ['audit', path.join(dir, 'app.yaml'), '--fixtures', path.join(dir, 'fixtures')], 'error: --fixtures: expected a folder; received <dir>/fixtures, which does not exist\n'],
    ['a --runs file that does not exist', () => ['audit', path.join(dir, 'app.yaml'), '--runs', path.join(dir, 'run.jsonl')], 'error: --runs: cannot read run file <dir>/run.jsonl: no such file\n'],
    ['a bad --severity', () => ['audit', path.join(dir, 'app.yaml'), '--severity', 'loud'], "error: option '--severity <level>' argument 'loud' is invalid. expected one of error, warning, info (text2sql-ladder audit --help lists the options)\n"],
    ['no input', () => ['audit'], "error: missing required argument 'input' (text2sql-ladder audit --help lists the options)\n"],
  ])('misuse: %s exits 2 with one line', async (_name, args, message) => {
    const { code, out, err } = await cli(args());
    expect([code, out, err]).toEqual([2, '', message]);
  });
});
