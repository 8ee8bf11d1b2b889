/** `text2sql-ladder check` on the static test database (tests/rungs/static-test-db.ts). */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand, type CheckCommandOptions, type CheckReport } from '../../src/cli/check.js';
import { buildStaticTestDb, type StaticTestDb } from '../rungs/static-test-db.js';

let fixture: StaticTestDb;
const ROOT = path.resolve(import.meta.dirname, '../..');

beforeAll(() => {
  fixture = buildStaticTestDb();
});

afterAll(() => {
  fixture.remove();
});

async function run(stdin: string, options: Partial<CheckCommandOptions> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCheckCommand(
    { db: fixture.file, dialect: 'sqlite', json: false, ...options },
    { stdin: async () => stdin, stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) } },
  );
  return { code, out, err };
}

describe('runCheckCommand', () => {
  it('all pass: exit 0 and one line per rung', async () => {
    const { code, out } = await run('SELECT name FROM customers');
    expect(code).toBe(0);
    expect(out.split('\n').map((line) => line.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'L1 syntax pass',
      'L2 schema pass',
      'L3 safety pass',
      'all static checks',
      '',
    ]);
  });

  it('an unknown column: exit 1 with its position and did-you-mean', async () => {
    const { code, out } = await run('```sql\nSELECT amont FROM orders\n```');
    expect(code).toBe(1);
    expect(out).toContain('L2 schema  fail    no such column: amont; did you mean amount? at 1:8\n');
    expect(out).toContain('  1:8     unknown_column       no such column: amont; did you mean amount?\n');
  });

  it("an agent's steps: every SQL step through L3, an unsafe one named by its step; a malformed step is misuse", async () => {
    const steps = JSON.stringify({ sql: 'SELECT name FROM customers', steps: [{ kind: 'schema' }, { kind: 'sql', sql: 'SELECT 1' }, { kind: 'sql', sql: 'DELETE FROM orders' }] });
    const { code, out } = await run(steps);
    expect(code).toBe(1);
    expect(out).toContain('L3 safety  fail    step 3, probe 2 of 2: write_statement: DELETE is not a read-only query at 1:1 in (DELETE FROM orders)\n');
    expect(await run('{"sql": "SELECT 1", "steps": [{"kind": "sql"}]}')).toEqual({ code: 2, out: '', err: 'error: stdin: trajectory: step 1 (sql): "sql" must be a non-empty string; received undefined\n' });
  });

  it('a chained write: L1 fails, L2 is skipped, L3 names both violations', async () => {
    const { code, out } = await run('SELECT 1; DROP TABLE orders', { json: true });
    expect(code).toBe(1);
    const report = JSON.parse(out) as CheckReport;
    expect(report.rungs.map((rung) => rung.status)).toEqual(['fail', 'skipped', 'fail']);
    expect(report.rungs[2]!.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`)).toEqual(['multiple_statements@1:11', 'ddl_statement@1:11']);
  });

  it.each<[string, string, Partial<CheckCommandOptions>, number, string[]]>([
    ['LIMIT policy met', 'SELECT * FROM orders LIMIT 10', { maxLimit: 100 }, 0, []],
    ['LIMIT policy broken', 'SELECT * FROM orders LIMIT 1000', { maxLimit: 100 }, 1, ['limit_out_of_range@1:28']],
    ['allowed tables met', 'SELECT * FROM orders', { allowedTables: ['orders'] }, 0, []],
    ['allowed tables broken in a subquery', 'SELECT * FROM orders WHERE amount > (SELECT max(amount) FROM salaries)', { allowedTables: ['orders'] }, 1, ['table_not_allowed@1:62']],
  ])('policies: %s', async (_name, sql, options, code, issues) => {
    const result = await run(sql, { ...options, json: true });
    expect(result.code).toBe(code);
    const report = JSON.parse(result.out) as CheckReport;
    expect(report.rungs[2]!.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`)).toEqual(issues);
  });

  it('model output without SQL: exit 1, nothing checked', async () => {
    const { code, out } = await run('{"action": "refuse", "message": "I cannot delete data."}', { json: true });
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({ pass: false, sql: null, declined: 'I cannot delete data.', db: fixture.file, engine: 'sqlite', rungs: [], warnings: [] });
  });

  it('empty input: exit 1, "input is empty"', async () => {
    expect(await run('  \n')).toEqual({ code: 1, out: 'no SQL to check: input is empty\n', err: '' });
    const json = await run('', { json: true });
    expect([json.code, JSON.parse(json.out)]).toEqual([1, { pass: false, sql: null, declined: 'input is empty', db: fixture.file, engine: 'sqlite', rungs: [], warnings: [] }]);
  });

  it('DELETE: L1 and L3 fail it, L2 is skipped (never "no such column: orders")', async () => {
    const { code, out } = await run('DELETE FROM orders', { json: true });
    expect(code).toBe(1);
    const report = JSON.parse(out) as CheckReport;
    expect(report.rungs.map((rung) => `${rung.rung} ${rung.status}`)).toEqual(['syntax fail', 'schema skipped', 'safety fail']);
    expect(out).not.toContain('no such column');
  });

  it('an unknown column with no close match lists the columns of the tables in scope', async () => {
    const { code, out } = await run('SELECT total FROM orders');
    expect(code).toBe(1);
    expect(out).toContain('L2 schema  fail    no such column: total; columns of orders: order_id, customer_id, amount, region at 1:8\n');
  });

  it('the pass reason says "1 table" and "1 column reference"', async () => {
    const { out } = await run('SELECT name FROM customers');
    expect(out).toContain('L2 schema  pass    every name resolves (1 table, 1 column reference)\n');
  });

  it.each<[string, string, string[]]>([
    ['JOIN without ON', 'SELECT c.name, sum(o.amount) FROM customers c JOIN orders o GROUP BY c.name', ['cross_product@1:47 JOIN without ON or USING: SQLite pairs every row of one side with every row of the other (write CROSS JOIN if that is meant)']],
    ['LEFT JOIN without ON, in a subquery', 'SELECT * FROM (SELECT 1 FROM orders o LEFT JOIN salaries s) t', ['cross_product@1:39 LEFT JOIN without ON or USING: SQLite pairs every row of one side with every row of the other (write CROSS JOIN if that is meant)']],
    ['comma join without WHERE', 'SELECT c.name FROM customers c /* , */ , orders o GROUP BY c.name', ['cross_product@1:40 comma join in a query without WHERE: SQLite pairs every row of one side with every row of the other']],
    ['comma join with WHERE', 'SELECT c.name FROM customers c, orders o WHERE o.customer_id = c.customer_id', []],
    ['JOIN ON, JOIN USING, CROSS JOIN, NATURAL JOIN', 'SELECT 1 FROM customers c JOIN orders o ON o.customer_id = c.customer_id JOIN customers d USING (customer_id) CROSS JOIN salaries NATURAL JOIN big_orders', []],
  ])('a cross product without CROSS JOIN is a warning, not a failure: %s', async (_name, sql, warnings) => {
    const { code, out } = await run(sql, { json: true });
    expect(code).toBe(0);
    const report = JSON.parse(out) as CheckReport;
    expect(report.warnings.map((w) => `${w.kind}@${w.line}:${w.column} ${w.message}`)).toEqual(warnings);
  });

  it('prints a warning line before the verdict line', async () => {
    const { code, out } = await run('SELECT 1 FROM customers JOIN orders');
    expect(code).toBe(0);
    expect(out.split('\n').slice(-3)).toEqual([
      'warning    1:25    cross_product        JOIN without ON or USING: SQLite pairs every row of one side with every row of the other (write CROSS JOIN if that is meant)',
      'all static checks passed',
      '',
    ]);
  });

  it('no cross-product warning when L1 fails, and none in PostgreSQL, where L1 fails the JOIN itself', async () => {
    const ddl = path.join(path.dirname(fixture.file), 'schema-pg.sql');
    writeFileSync(ddl, 'CREATE TABLE orders (order_id int, amount numeric); CREATE TABLE customers (customer_id int);');
    const { code, out } = await run('SELECT 1 FROM orders JOIN customers', { dialect: 'postgres', db: ddl, json: true });
    expect(code).toBe(1);
    const report = JSON.parse(out) as CheckReport;
    expect([report.rungs[0]!.issues.map((i) => `${i.kind}@${i.line}:${i.column}`), report.warnings]).toEqual([['syntax_error@1:22'], []]);
  });

  it('a table SQLite accepts but the AST layer cannot read passes every rung', async () => {
    const { code } = await run('SELECT winner FROM Match WHERE winner IN ()');
    expect(code).toBe(0);
  });

  it('a non-SQLite dialect reads its catalog from a DDL file', async () => {
    const ddl = path.join(path.dirname(fixture.file), 'schema.sql');
    writeFileSync(ddl, 'CREATE TABLE orders (order_id int, amount numeric);');
    expect((await run('SELECT amount FROM orders', { dialect: 'postgres', db: ddl })).code).toBe(0);
    expect((await run('SELECT amont FROM orders', { dialect: 'postgres', db: ddl })).code).toBe(1);
  });

  it.each<[string, Partial<CheckCommandOptions>, string]>([
    ['a missing database file', { db: '/nonexistent/shop.sqlite' }, 'error: --db: database /nonexistent/shop.sqlite does not exist (it is never created)\n'],
    ['--role with a database file', { role: 'analyst' }, `error: --role needs --db to name a fixture (e.g. warehouse), not a database file: ${'FILE'}\n`],
    ['a SQLite fixture with --dialect postgres', { dialect: 'postgres', db: 'warehouse' }, 'error: --dialect postgres, but fixture warehouse is a SQLite fixture (drop --dialect or give sqlite)\n'],
    ['a fixture name with a dialect that has no fixtures', { dialect: 'mysql', db: 'warehouse' }, 'error: --db: DDL file warehouse does not exist (fixture names such as warehouse are for SQLite and PostgreSQL; dialect mysql takes a DDL file)\n'],
    ['a postgres:// URL with --dialect sqlite', { dialect: 'sqlite', db: 'postgres://me:secret@127.0.0.1:1/shop' }, 'error: --dialect sqlite with a postgres:// --db: the database is PostgreSQL (drop --dialect or give postgres)\n'],
    ['a postgres:// URL that names no database', { dialect: undefined, db: 'postgres://me:secret@127.0.0.1:1' }, 'error: --db must be a postgres:// URL that names a database (postgres://user@host/shop); received a string ("postgres://me@127.0.0.1:1")\n'],
    ['--postgres-url that is no URL', { postgresUrl: 'localhost:5432' }, 'error: --postgres-url must be a postgres:// or postgresql:// URL; received a string ("localhost:5432")\n'],
    ['a missing DDL file', { dialect: 'mysql', db: '/nonexistent/schema.sql' }, 'error: --db: DDL file /nonexistent/schema.sql does not exist\n'],
  ])('bad usage is exit 2: %s', async (_name, options, message) => {
    const { code, err } = await run('SELECT 1', options);
    expect(code).toBe(2);
    expect(err).toBe(message.replace('FILE', fixture.file));
  });

  it('a DDL file with the default sqlite dialect: exit 2 with the --dialect hint', async () => {
    const ddl = path.join(path.dirname(fixture.file), 'ddl-for-sqlite.sql');
    writeFileSync(ddl, 'CREATE TABLE orders (order_id int, amount numeric);');
    const { code, out, err } = await run('SELECT 1', { db: ddl });
    expect([code, out]).toEqual([2, '']);
    expect(err).toBe(`error: --db: ${ddl} is not a SQLite database (it does not start with "SQLite format 3") (for SQLite, --db is a database file or a fixture name; a DDL file goes with --dialect postgres|mysql|bigquery|snowflake)\n`);
  });

  it('an empty --db file is not a database: exit 2 (SQLite would open it as one with no tables)', async () => {
    const empty = path.join(path.dirname(fixture.file), 'empty.sqlite');
    writeFileSync(empty, '');
    const { code, err } = await run('SELECT 1', { db: empty });
    expect([code, err]).toEqual([2, `error: --db: ${empty} is empty (0 bytes), not a SQLite database (for SQLite, --db is a database file or a fixture name; a DDL file goes with --dialect postgres|mysql|bigquery|snowflake)\n`]);
  });
});

describe('runCheckCommand with a fixture and a role', () => {
  it('a table outside the role fails L2 on the role-scoped snapshot; the full fixture has it', async () => {
    const scoped = await run('SELECT email FROM users', { db: 'warehouse', role: 'analyst', json: true });
    expect(scoped.code).toBe(1);
    const report = JSON.parse(scoped.out) as CheckReport;
    expect([report.fixture, report.db]).toEqual(['warehouse', expect.stringMatching(/base@analyst\.sqlite$/)]);
    expect(report.rungs[1]!.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`)).toEqual(['unknown_table@1:19']);
    expect((await run('SELECT email FROM users', { db: 'warehouse' })).code).toBe(0);
  });

  it.each<[string, Partial<CheckCommandOptions>, RegExp]>([
    ['an unknown role', { db: 'warehouse', role: 'janitor' }, /^error: .*janitor/],
    ['an unknown fixture', { db: 'nowhere' }, /^error: .*nowhere/],
  ])('bad usage is exit 2: %s', async (_name, options, message) => {
    const { code, err } = await run('SELECT 1', options);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});

describe('check --allowed-functions', () => {
  it("a function off the dialect's list fails L3, and passes once listed", async () => {
    const sql = 'SELECT fiscal_quarter(order_date) FROM orders';
    const blocked = await run(sql, { db: undefined, dialect: 'postgres', json: true });
    const allowed = await run(sql, { db: undefined, dialect: 'postgres', json: true, allowedFunctions: ['fiscal_quarter'] });
    const safety = (out: string) => (JSON.parse(out) as CheckReport).rungs[2]!;
    expect([blocked.code, safety(blocked.out).status, safety(blocked.out).issues.map((issue) => `${issue.kind}: ${issue.message}`)]).toEqual([
      1,
      'fail',
      ['unknown_function: fiscal_quarter(): not on the postgres allow-list of pure functions'],
    ]);
    expect([allowed.code, safety(allowed.out).status]).toEqual([0, 'pass']);
  });
});

describe('check without --db, and Snowflake', () => {
  it('another dialect without --db: L1 and L3 run, L2 is skipped for want of a catalog', async () => {
    const { code, out } = await run('SELECT a FROM t', { db: undefined, dialect: 'postgres', json: true });
    const report = JSON.parse(out) as CheckReport;
    expect([code, report.db, report.rungs.map((rung) => `${rung.rung} ${rung.status}: ${rung.reason}`)]).toEqual([
      0,
      undefined,
      ['syntax pass: one query; parses in the dialect', 'schema skipped: no catalog: pass --db with a DDL file (CREATE TABLE …) to check names', 'safety pass: one read-only query; no unsafe construct'],
    ]);
  });

  it('Snowflake with a DDL file: the file is not read (L2 is skipped for Snowflake), so types its grammar lacks do not stop the check', async () => {
    const ddl = path.join(path.dirname(fixture.file), 'snowflake.sql');
    writeFileSync(ddl, 'CREATE TABLE t (a INT, ts TIMESTAMP_NTZ, v VARIANT);\n');
    const { code, out } = await run('SELECT a FROM t', { db: ddl, dialect: 'snowflake', json: true });
    const report = JSON.parse(out) as CheckReport;
    expect([code, report.db, report.rungs.map((rung) => `${rung.rung} ${rung.status}`), report.rungs[1]!.reason]).toEqual([
      0,
      ddl,
      ['syntax pass', 'schema skipped', 'safety pass'],
      `Snowflake names are not checked (no scope resolution for its trees yet), so ${ddl} is not read`,
    ]);
  });

  it('SQLite without --db: exit 2 naming the flag', async () => {
    const { code, out, err } = await run('SELECT 1', { db: undefined });
    expect([code, out, err]).toEqual([2, '', 'error: --db is required with --dialect sqlite: a database file or a fixture name (e.g. warehouse); other dialects run without it (L2 is then skipped)\n']);
  });
});

describe('the check command through the binary', () => {
  const cli = (args: string[], input: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/text2sql-ladder.ts'), 'check', ...args], { input, encoding: 'utf8', cwd: ROOT });

  it('--help describes --db without tying fixture names to --role', () => {
    const help = cli(['--help'], '').stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--db <path> a database file, a fixture name (e.g. warehouse, warehouse_pg; --role needs a fixture) or a postgres:// URL; other dialects (optional, for L2): a DDL .sql file');
    expect(help).toContain("--dialect <name> SQL dialect: sqlite, postgres, mysql, bigquery, snowflake (default: the database's, else sqlite)");
  });

  it('no prompt when stdin is not a terminal', () => {
    expect(cli(['--db', fixture.file], 'SELECT name FROM customers').stderr).toBe('');
  });

  it('--version prints the version of package.json', () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/text2sql-ladder.ts'), '--version'], { encoding: 'utf8', cwd: ROOT });
    expect([result.status, result.stdout]).toEqual([0, `${version}\n`]);
  });

  it('reads stdin and exits 0 / 1', () => {
    expect(cli(['--db', fixture.file], 'SELECT name FROM customers').status).toBe(0);
    expect(cli(['--db', fixture.file], 'PRAGMA query_only = 0').status).toBe(1);
  });

  it.each<[string, string[]]>([
    ['missing --db', []],
    ['unknown flag', ['--db', 'x.sqlite', '--frobnicate']],
    ['bad --max-limit', ['--db', 'x.sqlite', '--max-limit', '1e9']],
    ['bad --dialect', ['--db', 'x.sqlite', '--dialect', 'tsql']],
  ])('bad usage exits 2: %s', (_name, args) => {
    const result = cli(args, 'SELECT 1');
    expect([result.status, result.stderr.startsWith('error:')]).toEqual([2, true]);
  });
});
