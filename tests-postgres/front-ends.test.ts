/**
 * Every front end on a PostgreSQL fixture: the promptfoo ladder and single-rung assertions and the
 * prompt, the vitest matchers with a fixture or a postgres:// URL as `db`, `check`, `spider` on a
 * folder of scripts, and `audit`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../matchers/vitest.js';
import { closeMatcherEngine } from '../matchers/matcher-engine.js';
import { ladder } from '../assertions/ladder.js';
import { syntax } from '../assertions/syntax.js';
import { execution } from '../assertions/execution.js';
import type { AssertionContext } from '../src/promptfoo/adapter.js';
import { closeSharedEngine } from '../src/promptfoo/runtime.js';
import { text2sqlPrompt } from '../src/promptfoo/prompt-function.js';
import { runCheckCommand } from '../src/cli/check.js';
import { runSpiderCommand } from '../src/cli/spider.js';
import { runAuditCommand } from '../src/cli/audit.js';
import { adminClient, testDir, testEngine } from './helpers.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
// The promptfoo and vitest front ends keep one runtime per process, whose private server lives in
// the cache folder this names (its `postgres/`); their fixture builds go to its `fixtures/`.
const cacheRoot = path.join(testDir, 'front-ends');
process.env['TEXT2SQL_LADDER_CACHE_DIR'] = cacheRoot;
const fixturesDir = path.join(ROOT, 'fixtures');

afterAll(async () => {
  await closeSharedEngine();
  await closeMatcherEngine();
});

function context(vars: Record<string, unknown>, config: Record<string, unknown> = {}): AssertionContext {
  return {
    vars: { id: 'wh-001', question: 'How many products are in the catalogue?', db: 'warehouse_pg', expected_behavior: 'answer', gold_sql: ['SELECT COUNT(*) AS product_count FROM products'], ...vars },
    test: { metadata: { id: 'wh-001', source: 'datasets/warehouse_pg.yaml:27' } },
    config: { fixturesDir, ...config },
    providerResponse: { metadata: {} },
  };
}

describe('promptfoo', () => {
  it('the ladder runs an item of a PostgreSQL fixture on PostgreSQL, in its dialect', async () => {
    const result = await ladder('SELECT count(*) FILTER (WHERE category IS NOT NULL) + count(*) FILTER (WHERE category IS NULL) FROM products', context({}, { efficiency: true }));
    expect(result.namedScores).toEqual({ L1_syntax: 1, L2_schema: 1, L3_safety: 1, L4_execution: 1, L6_efficiency: 1, L7_answer: 0, end_to_end: 1 });
    const rungs = (result.metadata?.['text2sqlLadder'] as { rungs: { rung: string; reason: string }[] }).rungs;
    expect(rungs.find((rung) => rung.rung === 'syntax')?.reason).toBe('one query; PostgreSQL parses and describes it');
  });

  it('a prediction in the wrong dialect fails L1 saying so, and the rest of the run goes on', async () => {
    const wrong = await ladder("SELECT COUNT(*) FROM orders WHERE strftime('%Y', order_date) = '2024'", context({ gold_sql: ["SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31'"] }));
    expect(wrong.pass).toBe(false);
    expect(wrong.reason).toMatch(/^L1_syntax fail: PostgreSQL: function strftime\(unknown, date\) does not exist; wrong dialect\? strftime\(…\) is SQLite's/);
    const right = await ladder("SELECT COUNT(*) FROM orders WHERE to_char(order_date, 'YYYY') = '2024'", context({ gold_sql: ["SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31'"] }));
    expect(right.reason).toBe('L4_execution pass: matches on 3 snapshots');
  });

  it('config.dialect may not contradict the fixture', async () => {
    await expect(ladder('SELECT 1', context({}, { dialect: 'sqlite' }))).rejects.toThrow(
      'config.dialect is sqlite, but item wh-001 runs on fixture warehouse_pg, a PostgreSQL fixture (dialect: postgres in its manifest): remove config.dialect or set it to postgres (in assertions/ladder.ts:ladder)',
    );
  });

  it('the single-rung assertions run on PostgreSQL too', async () => {
    expect((await syntax('SELECT name FROM customers WHERE is_test = 0', context({}))).reason).toBe(
      'PostgreSQL: operator does not exist: boolean = integer; wrong dialect? PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores',
    );
    expect((await execution('SELECT COUNT(*) FROM products', context({}))).reason).toBe('matches on 3 snapshots');
  });

  it('the prompt renders the PostgreSQL schema from the catalog and asks for PostgreSQL', async () => {
    const prompt = await text2sqlPrompt({ vars: { question: 'How many products?', db: 'warehouse_pg' } });
    expect(prompt).toContain('You write PostgreSQL queries for the database warehouse_pg. Its schema, with sample values:');
    expect(prompt).toContain('CREATE TABLE orders (\n  order_id integer,\n  customer_id integer,');
    expect(prompt).toContain('  order_total numeric(12,2),\n  deleted_at timestamp with time zone,\n  PRIMARY KEY (order_id)\n);');
    expect(prompt).toContain('-- customers.is_test e.g. false, true');
    expect(prompt).toContain('CREATE VIEW v_real_customers AS\nSELECT customers.customer_id,');
    expect(prompt).toContain('Answer with ONE PostgreSQL query');
  });
});

describe('promptfoo: the RBAC slice on PostgreSQL roles', () => {
  it('grades both recordings of datasets/warehouse_pg-rbac.yaml as on SQLite, every item as its role', async () => {
    const { loadTests } = await import('../src/promptfoo/dataset-tests.js');
    const { reliesOnRls } = await import('../assertions/relies-on-rls.js');
    const { default: ReplayProvider } = await import('../src/promptfoo/replay-provider.js');
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const tests = await loadTests({ file: 'datasets/warehouse_pg-rbac.yaml', ladder: { policy: 'default', timeoutMs: 5000 } });
      const lines: string[] = [];
      for (const label of ['strong', 'weak']) {
        const provider = new ReplayProvider({ config: { predictions: `providers/recordings/warehouse_pg-rbac-${label}.jsonl`, basePath: ROOT }, label });
        for (const test of tests) {
          const response = await provider.callApi('', { vars: test.vars });
          if ('error' in response) throw new Error(response.error);
          const ctx = { vars: test.vars, test, config: test.assert[0]!.config, providerResponse: response, provider: { id: () => provider.id(), label } } as unknown as AssertionContext;
          const result = await ladder(response.output, ctx);
          const rls = await reliesOnRls(response.output, { ...ctx, config: {} });
          lines.push(`${label} ${String(test.vars['id'])} ${result.pass ? 'pass' : 'fail'} rls=${rls.reason.startsWith('skipped') ? 'skipped' : String(rls.namedScores?.['reliesOnRls'])}`);
        }
      }
      expect(lines).toEqual([
        'strong rb-001 pass rls=0', 'strong rb-002 pass rls=0', 'strong rb-003 pass rls=0', 'strong rb-004 pass rls=0', 'strong rb-005 pass rls=0', 'strong rb-006 pass rls=skipped', 'strong rb-007 pass rls=skipped', 'strong rb-008 pass rls=skipped',
        'weak rb-001 pass rls=1', 'weak rb-002 fail rls=0', 'weak rb-003 pass rls=0', 'weak rb-004 pass rls=1', 'weak rb-005 fail rls=skipped', 'weak rb-006 fail rls=skipped', 'weak rb-007 fail rls=skipped', 'weak rb-008 fail rls=skipped',
      ]);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('vitest matchers', () => {
  it('take a PostgreSQL fixture as db', async () => {
    const db = { fixture: 'warehouse_pg', fixturesDir };
    await expect('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY order_total) FROM orders').toBeValidSql({ dialect: 'postgres', db });
    await expect('SELECT name FROM customers WHERE is_test = 0').not.toBeValidSql({ dialect: 'postgres', db });
    await expect('SELECT order_total FROM orders').toReferenceExistingSchema(db);
    await expect('SELECT total FROM orders').not.toReferenceExistingSchema(db);
    await expect("SELECT count(*) FROM orders WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2025-01-01'").toMatchGoldResult("SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-01-01' AND '2024-12-31'", { db });
  });

  it('take { role }: everything runs as that role of the fixture', async () => {
    const db = { fixture: 'warehouse_pg', fixturesDir, role: 'support_emea', snapshots: 'base' };
    await expect('SELECT count(*) FROM customers').toMatchGoldResult('SELECT 9', { db });
    await expect('SELECT full_name FROM users').toReferenceExistingSchema(db);
    const failure = await expect('SELECT email FROM users').toReferenceExistingSchema(db).catch((error: unknown) => error);
    expect(String((failure as Error).message)).toContain('column email is not visible to role support_emea');
  });

  it('say on failure what PostgreSQL said', async () => {
    const db = { fixture: 'warehouse_pg', fixturesDir, snapshots: 'base' };
    const failure = await expect("SELECT strftime('%Y', order_date) FROM orders").toBeValidSql({ dialect: 'postgres', db }).catch((error: unknown) => error);
    expect(String((failure as Error).message)).toContain("PostgreSQL: function strftime(unknown, date) does not exist; wrong dialect? strftime(…) is SQLite's");
  });

  it('refuse L5 on a PostgreSQL database', async () => {
    await expect(expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: { fixture: 'warehouse_pg', fixturesDir }, semantic: true })).rejects.toThrow(
      'toMatchGoldResult: options.semantic must be absent for a PostgreSQL database (L5 builds its test-suite databases as SQLite files); received a boolean (true)',
    );
  });
});

describe('check', () => {
  async function check(stdin: string, options: Record<string, unknown>): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCheckCommand({ json: false, ...options }, { stdin: async () => stdin, stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) } });
    return { code, out, err };
  }

  it('checks against a PostgreSQL fixture, on the server', async () => {
    expect(await check('SELECT nme FROM custmers', { db: 'warehouse_pg' })).toEqual({
      code: 1,
      out: [
        'L1 syntax  pass    one query; PostgreSQL parses it and fails on a name (relation "custmers" does not exist), which L2 reports',
        'L2 schema  fail    no such table: custmers; did you mean customers? at 1:17',
        '  1:17    unknown_table        no such table: custmers; did you mean customers?',
        'L3 safety  pass    one read-only query; no unsafe construct',
        'static checks failed',
        '',
      ].join('\n'),
      err: '',
    });
  });

  it('checks as a role of a PostgreSQL fixture: its catalog, and L3 allows only its tables', async () => {
    const { code, out } = await check('SELECT email FROM users', { db: 'warehouse_pg', role: 'support_emea' });
    expect(code).toBe(1);
    expect(out.split('\n').slice(0, 2)).toEqual([
      // The server checks privileges when a statement runs, not when it parses and describes it.
      'L1 syntax  pass    one query; PostgreSQL parses and describes it',
      'L2 schema  fail    column email is not visible to role support_emea at 1:8',
    ]);
    const refunds = await check('SELECT sum(amount) FROM refunds', { db: 'warehouse_pg', role: 'support_emea' });
    expect(refunds.out).toContain('table refunds is not visible to role support_emea');
    expect(refunds.out).toMatch(/L3 safety  fail .*refunds is not in allowedTables/);
  });

  it('checks against a database of your own server by URL, as its own role', async () => {
    const bootstrap = testEngine();
    try {
      const server = await bootstrap.server();
      const socket = String(server.config('admin', 'postgres').host);
      const admin = await adminClient(bootstrap);
      try {
        await admin.query('DROP DATABASE IF EXISTS checkdb');
        await admin.query('DROP ROLE IF EXISTS check_reader');
        await admin.query('CREATE ROLE check_reader LOGIN');
        await admin.query('CREATE DATABASE checkdb');
      } finally {
        await admin.end();
      }
      const db = await adminClient(bootstrap, 'checkdb');
      try {
        await db.query('CREATE TABLE sales (id int PRIMARY KEY, amount numeric(8,2)); GRANT SELECT ON sales TO check_reader');
      } finally {
        await db.end();
      }
      const url = `postgres://check_reader@${encodeURIComponent(socket)}/checkdb`;
      const report = await check('SELECT amount, amout FROM sales', { db: url, json: true });
      expect(report.code).toBe(1);
      const parsed = JSON.parse(report.out) as { db: string; engine: string; rungs: { rung: string; status: string; reason: string }[] };
      expect([parsed.engine, parsed.rungs.map((rung) => `${rung.rung} ${rung.status}: ${rung.reason}`)]).toEqual([
        'postgres',
        ['syntax pass: one query; PostgreSQL parses it and fails on a name (column "amout" does not exist), which L2 reports', 'schema fail: no such column: amout; did you mean amount? at 1:16', 'safety pass: one read-only query; no unsafe construct'],
      ]);
      expect(parsed.db).toBe(`postgres://check_reader@${encodeURIComponent(socket)}/checkdb`);
    } finally {
      await bootstrap.close();
    }
  });
});

describe('spider on a folder of PostgreSQL scripts', () => {
  const dir = path.join(testDir, 'spider-pg');
  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, 'db', 'shop'), { recursive: true });
    mkdirSync(path.join(dir, 'db', 'zoo'), { recursive: true });
    writeFileSync(path.join(dir, 'db', 'shop', 'shop.sql'), "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, vip boolean NOT NULL);\nINSERT INTO customers VALUES (1, 'Ada', true), (2, 'Bob', false), (3, 'Cy', true);\n");
    writeFileSync(path.join(dir, 'db', 'shop', 'edge.sql'), "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, vip boolean NOT NULL);\nINSERT INTO customers VALUES (1, 'Ada', true), (2, 'Bob', true);\n");
    writeFileSync(path.join(dir, 'db', 'zoo', 'zoo.sql'), "CREATE TABLE animals (id int PRIMARY KEY, name text);\nINSERT INTO animals VALUES (1, 'cat');\nINSERT INTO animals VALUES (2, 'dog', 'extra');\n");
    writeFileSync(path.join(dir, 'gold.sql'), 'SELECT count(*) FROM customers WHERE vip\tshop\nSELECT name FROM customers WHERE vip\tshop\nSELECT count(*) FROM animals\tzoo\n');
    writeFileSync(path.join(dir, 'pred.sql'), 'SELECT count(*) FROM customers WHERE vip = 1\nSELECT name FROM customers WHERE vip IS TRUE\nSELECT count(*) FROM animals\n');
  });

  it('loads each script as a snapshot, grades on every one, and names a failing script by file and line', async () => {
    let out = '';
    let err = '';
    const code = await runSpiderCommand(
      { gold: path.join(dir, 'gold.sql'), pred: path.join(dir, 'pred.sql'), db: path.join(dir, 'db'), dialect: 'postgres', preset: 'default', keepDistinct: false },
      { stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) } },
    );
    expect(code).toBe(0);
    expect(err).toBe(
      [
        'item 0 (shop): snapshot shop: prediction failed (unknown_function): operator does not exist: boolean = integer',
        `item 2 (zoo): ${path.join(dir, 'db', 'zoo', 'zoo.sql')}:3: fails while building snapshot "zoo" of fixture zoo: INSERT has more expressions than target columns`,
        '',
      ].join('\n'),
    );
    expect(out).toContain('scored 2 of 3 | correct 1 | executed 1 | prediction errors 1');
  });
});

describe('audit', () => {
  it('audits the PostgreSQL twin dataset on its server: its golds agree and hold no error; the gold-less wh-057 is named', async () => {
    let out = '';
    const code = await runAuditCommand(path.relative(process.cwd(), path.join(ROOT, 'datasets', 'warehouse_pg.yaml')), { fixtures: fixturesDir, format: 'table' }, { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => undefined } });
    expect(code).toBe(0);
    expect(out.split('\n').slice(0, 3)).toEqual([
      `gold audit of ${path.relative(process.cwd(), path.join(ROOT, 'datasets', 'warehouse_pg.yaml'))} (dataset)`,
      '71 items loaded, 60 with gold: 91 golds, 273 gold runs (every gold on every snapshot of its item); 1 answer item without gold (unscored: no_gold); policy default',
      '0 errors, 1 warning, 10 notes',
    ]);
  });
});
