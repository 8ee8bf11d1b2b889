import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSpiderCommand, type SpiderCommandOptions } from '../../src/cli/spider.js';
import { makeDb, tempDir } from '../compare/helpers.js';
import { SHOP_SCHEMA } from '../semantic/shop-fixture.js';
import { capture } from './capture-io.js';

let dir: string;

beforeAll(() => {
  dir = tempDir('ladder-spider-ts-');
  vi.stubEnv('TEXT2SQL_LADDER_CACHE_DIR', path.join(dir, 'cache'));
  mkdirSync(path.join(dir, 'database', 'shop'), { recursive: true });
  // Every order of the shop is paid: dropping the status filter passes EX.
  makeDb(path.join(dir, 'database', 'shop', 'shop.sqlite'), SHOP_SCHEMA);
  writeFileSync(
    path.join(dir, 'gold.sql'),
    ["SELECT COUNT(*) FROM orders WHERE status = 'paid'\tshop", "SELECT COUNT(*) FROM orders WHERE status = 'paid'\tshop", 'SELECT COUNT(*) FROM customers\tshop'].join('\n') + '\n',
  );
  writeFileSync(path.join(dir, 'pred.sql'), ['SELECT COUNT(*) FROM orders', "SELECT COUNT(*) FROM orders WHERE 'paid' = status", 'SELECT COUNT(*) FROM orders'].join('\n') + '\n');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const options = (overrides: Partial<SpiderCommandOptions> = {}): SpiderCommandOptions => ({
  gold: path.join(dir, 'gold.sql'),
  pred: path.join(dir, 'pred.sql'),
  db: path.join(dir, 'database'),
  preset: 'default',
  keepDistinct: false,
  testSuite: true,
  suiteMaxSeconds: 600,
  searchMaxSeconds: 600,
  ...overrides,
});

describe('text2sql-ladder spider --test-suite', () => {
  it('prints test-suite accuracy next to EX per level, and lists the EX match L5 rejects with its witness', async () => {
    const out = path.join(dir, 'ts.jsonl');
    const { io, out: stdout } = capture();
    expect(await runSpiderCommand(options({ out }), io)).toBe(0);
    const text = stdout();
    expect(text.slice(text.indexOf('\n=====================   TEST-SUITE'))).toBe(
      [
        '',
        '=====================   TEST-SUITE ACCURACY    =====================',
        'execution            0.667                n/a                  n/a                  n/a                  0.667',
        'test-suite           0.333                n/a                  n/a                  n/a                  0.333',
        'EX yes, L5 no        1                    0                    0                    0                    1',
        'refuted              1                    0                    0                    0                    1',
        '',
        'L5 (distilled test suite + counterexample search; --nulls observed) on 2 EX matches: 1 rejected, 1 refuted by the search (1 with ≤ 3 rows per table)',
        '',
        'EX accepted, L5 rejected (1):',
        "  item 0 (shop, easy): refuted on generated database gen-1 (customers 6, orders 10): gold [6] vs predicted [10]; refuted on a 2-row database: gold returns [0], prediction [1]; INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', 'a'); INSERT INTO orders (order_id, customer_id, amount, status) VALUES (1, 1, 1.0, 'open');",
        '',
      ].join('\n'),
    );
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { exec: number; ts: number; semantic: { status: string; rejectedBy: string | null; witnessMaxRows: number | null } | null });
    expect(lines.map((l) => [l.exec, l.ts, l.semantic?.status ?? null, l.semantic?.rejectedBy ?? null, l.semantic?.witnessMaxRows ?? null])).toEqual([
      [1, 0, 'fail', 'suite', 1],
      [1, 1, 'pass', null, null],
      [0, 0, null, null, null],
    ]);
  });

  it('generates NULLs only where the snapshots hold one unless --nulls allowed: COUNT(city) for COUNT(*) passes, as on Spider', async () => {
    // No customer of the shop lacks a city, though the schema allows it.
    const goldFile = path.join(dir, 'gold-count.sql');
    const predFile = path.join(dir, 'pred-count.sql');
    writeFileSync(goldFile, 'SELECT COUNT(*) FROM customers\tshop\n');
    writeFileSync(predFile, 'SELECT COUNT(city) FROM customers\n');
    const l5Line = (text: string): string => text.split('\n').find((line) => line.startsWith('L5 (')) ?? '';
    const observed = capture();
    expect(await runSpiderCommand(options({ gold: goldFile, pred: predFile }), observed.io)).toBe(0);
    expect(l5Line(observed.out())).toBe('L5 (distilled test suite + counterexample search; --nulls observed) on 1 EX matches: 0 rejected, 0 refuted by the search (0 with ≤ 3 rows per table)');
    const allowed = capture();
    expect(await runSpiderCommand(options({ gold: goldFile, pred: predFile, nulls: 'allowed' }), allowed.io)).toBe(0);
    expect(l5Line(allowed.out())).toBe('L5 (distilled test suite + counterexample search; --nulls allowed) on 1 EX matches: 1 rejected, 1 refuted by the search (1 with ≤ 3 rows per table)');
    expect(allowed.out().split('\n').find((line) => line.startsWith('  item 0 '))).toBe("  item 0 (shop, easy): refuted on a 1-row database: gold returns [1], prediction [0]; INSERT INTO customers (customer_id, name, city) VALUES (1, 'a', NULL);");
  });

  it('--no-search keeps only the suite; L5 flags without --test-suite are misuse', async () => {
    const { io, out: stdout } = capture();
    expect(await runSpiderCommand(options({ search: false }), io)).toBe(0);
    expect(stdout()).toContain('L5 (distilled test suite; --nulls observed) on 2 EX matches: 1 rejected\n');
    expect(stdout()).not.toContain('-row database');
    const misuse = capture();
    expect(await runSpiderCommand(options({ testSuite: false, suiteMaxSeconds: undefined, searchMaxSeconds: 3 }), misuse.io)).toBe(2);
    expect(misuse.err()).toBe('error: --search-max-seconds needs --test-suite\n');
  });
});
