/** `text2sql-ladder fixtures strength` on a small fixture folder (tests/semantic/shop-fixture.ts). */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixturesStrength, type FixtureStrengthReport, type FixturesStrengthOptions } from '../../src/cli/fixtures-strength.js';
import { SHOP_GOLDS, SHOP_SCHEMA } from '../semantic/shop-fixture.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-strength-cli-'));
  mkdirSync(path.join(dir, 'fixtures', 'shop'), { recursive: true });
  writeFileSync(path.join(dir, 'fixtures', 'shop', 'shop.sql'), SHOP_SCHEMA);
  writeFileSync(
    path.join(dir, 'fixtures', 'shop', 'fixture.yaml'),
    'name: shop\nsnapshots:\n  base: { scripts: [shop.sql] }\ninvariants:\n  - kind: values\n    column: orders.status\n    values: [paid, open, void]\n',
  );
  writeFileSync(
    path.join(dir, 'dataset.yaml'),
    `defaults:\n  db: shop\nitems:\n${SHOP_GOLDS.map((sql, i) => `  - id: shop-${i + 1}\n    question: q${i + 1}\n    gold_sql: "${sql}"\n`).join('')}`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(options: Partial<FixturesStrengthOptions>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFixturesStrength(
    { dataset: path.join(dir, 'dataset.yaml'), withSuite: false, survivors: 0, seed: '1', preset: 'default', fixturesDir: path.join(dir, 'fixtures'), cacheDir: path.join(dir, 'cache'), ...options },
    { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
  );
  return { code, out, err };
}

describe('runFixturesStrength', () => {
  it('reports each gold and the dataset on the snapshots alone', async () => {
    const { code, out, err } = await run({});
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toBe(
      [
        'fixture shop: snapshots base',
        'gold    neighbours   snapshots    survivors',
        'shop-1          25       84.0%    4',
        'shop-2          34       85.3%    5',
        'dataset: 59 neighbours of 2 golds; the snapshots distinguish 50 (84.7%; mean per gold 84.6%)',
        '',
      ].join('\n'),
    );
  });

  it('adds the distilled suite with --with-suite, lists survivors and writes JSON', async () => {
    const json = path.join(dir, 'report.json');
    const { code, out } = await run({ withSuite: true, survivors: 1, maxDatabases: 40, patience: 20, json });
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'fixture shop: snapshots base + 3 generated databases (25 drawn)',
        'gold    neighbours   snapshots     + suite    survivors',
        'shop-1          25       84.0%      100.0%    0',
        'shop-2          34       85.3%       97.1%    1',
        '          swap_join: `JOIN` → `LEFT JOIN`',
        'dataset: 59 neighbours of 2 golds; the snapshots distinguish 50 (84.7%; mean per gold 84.6%); with the suite 58 (98.3%; mean per gold 98.5%)',
        '',
      ].join('\n'),
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as FixtureStrengthReport[];
    expect(report.map((r) => [r.fixture, r.before.distinguished, r.after?.distinguished, r.suite?.databases])).toEqual([['shop', 50, 58, 3]]);
  });

  it('exits 2 with a message for an unknown fixture', async () => {
    writeFileSync(path.join(dir, 'other.yaml'), 'items:\n  - id: x\n    question: q\n    db: nowhere\n    gold_sql: SELECT 1\n');
    const { code, err } = await run({ dataset: path.join(dir, 'other.yaml') });
    expect(code).toBe(2);
    expect(err).toBe(`error: unknown fixture "nowhere" in ${path.join(dir, 'fixtures')}; known fixtures: shop\n`);
  });
});
