/**
 * The worked example of docs/semantic.md: a vitest test on the shop (every order of its snapshot
 * is paid) whose prediction drops the status filter. The docs must show exactly this output.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../matchers/vitest.js';
import { runSpiderCommand } from '../../src/cli/spider.js';
import { findPackageRoot } from '../../src/fixtures/package-root.js';
import { failureOf } from '../matchers/helpers.js';
import { makeDb, tempDir } from '../compare/helpers.js';
import { SHOP_SCHEMA } from './shop-fixture.js';

const DOCS = readFileSync(path.join(findPackageRoot(), 'docs', 'semantic.md'), 'utf8');
let dir: string;
let shop: string;

beforeAll(() => {
  dir = tempDir('ladder-docs-l5-');
  vi.stubEnv('TEXT2SQL_LADDER_CACHE_DIR', path.join(dir, 'cache'));
  shop = path.join(dir, 'database', 'shop', 'shop.sqlite');
  mkdirSync(path.dirname(shop), { recursive: true });
  makeDb(shop, SHOP_SCHEMA);
});
afterAll(() => {
  vi.unstubAllEnvs();
});

/** The docs' text of a fenced block that follows `marker`. */
function blockAfter(marker: string): string {
  const start = DOCS.indexOf(marker);
  expect(start, `docs/semantic.md holds ${marker}`).toBeGreaterThan(-1);
  const open = DOCS.indexOf('```', start);
  const body = DOCS.indexOf('\n', open) + 1;
  return DOCS.slice(body, DOCS.indexOf('```', body)).trimEnd();
}

describe('docs/semantic.md worked example', () => {
  it('the matcher fails the lucky match and prints the witness as the docs show', async () => {
    // As in the docs:
    const gold = "SELECT COUNT(*) FROM orders WHERE status = 'paid'";
    const message = await failureOf(() => expect('SELECT COUNT(*) FROM orders').toMatchGoldResult(gold, { db: shop, semantic: true }));
    const shown = message
      .split(shop).join('db/shop.sqlite')
      .split(path.join(dir, 'cache', 'suites')).join('~/.cache/text2sql-ladder/suites')
      .replace(/suites\/[0-9a-f]{32}\//g, 'suites/<key>/');
    expect(shown.trimEnd()).toBe(blockAfter('<!-- output: matcher -->'));
    await expect("SELECT COUNT(*) FROM orders WHERE 'paid' = status").toMatchGoldResult(gold, { db: shop, semantic: true });
  });

  it('spider --test-suite prints what the docs show', async () => {
    const goldFile = path.join(dir, 'gold.sql');
    const predFile = path.join(dir, 'pred.sql');
    writeFileSync(goldFile, ["SELECT COUNT(*) FROM orders WHERE status = 'paid'\tshop", "SELECT COUNT(*) FROM orders WHERE status = 'paid'\tshop", 'SELECT COUNT(*) FROM customers\tshop'].join('\n') + '\n');
    writeFileSync(predFile, ['SELECT COUNT(*) FROM orders', "SELECT COUNT(*) FROM orders WHERE 'paid' = status", 'SELECT COUNT(*) FROM orders'].join('\n') + '\n');
    let out = '';
    const io = { stdout: { write: (t: string) => ((out += t), true) }, stderr: { write: () => true } };
    expect(await runSpiderCommand({ gold: goldFile, pred: predFile, db: path.join(dir, 'database'), preset: 'default', keepDistinct: false, testSuite: true }, io)).toBe(0);
    expect(out.trimEnd()).toBe(blockAfter('<!-- output: spider -->'));
  });
});
