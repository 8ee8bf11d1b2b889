import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { executionAssertionRef, spiderTests } from '../../src/promptfoo/spider-tests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'spider-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
for (const file of ['db1/db1.sqlite', 'db1/db1_b.sqlite']) {
  mkdirSync(path.join(dir, 'database', path.dirname(file)), { recursive: true });
  const db = new Database(path.join(dir, 'database', file));
  db.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);');
  db.close();
}
writeFileSync(path.join(dir, 'dev_gold.sql'), 'SELECT count(*) FROM t\tdb1\n\nSELECT a FROM t\tnowhere\n');
writeFileSync(path.join(dir, 'dev.json'), JSON.stringify([{ db_id: 'db1', question: 'How many?', query: 'SELECT count(*) FROM t' }, { db_id: 'nowhere', question: 'Which?', query: 'SELECT a FROM t' }]));

afterEach(() => {
  for (const name of ['SPIDER_DIR', 'SPIDER_PRESET', 'SPIDER_LIMIT', 'SPIDER_KEEP_DISTINCT']) delete process.env[name];
});

describe('spiderTests', () => {
  it('one test per gold item, keyed by index, on every snapshot of its database folder, main file first', async () => {
    const tests = await spiderTests({ dir, keepDistinct: true });
    expect(tests[0]).toEqual({
      description: 'spider-0 (db1): How many?',
      vars: {
        id: 'spider-0',
        index: 0,
        question: 'How many?',
        db_id: 'db1',
        gold_sql: 'SELECT count(*) FROM t',
        db_path: [path.join(dir, 'database/db1/db1.sqlite'), path.join(dir, 'database/db1/db1_b.sqlite')],
      },
      metadata: { id: 'spider-0', index: 0, db_id: 'db1', source: `${path.join(dir, 'dev_gold.sql')}:1`, tags: ['db:db1'] },
      options: { disableVarExpansion: true },
      assert: [{ type: 'javascript', value: executionAssertionRef(), config: { policy: { preset: 'spider', keepDistinct: true } } }],
    });
    // The blank gold line is skipped (as the Spider CLI does); the unknown database gets no db_path.
    expect(tests[1]?.vars).toEqual({ id: 'spider-1', index: 1, question: 'Which?', db_id: 'nowhere', gold_sql: 'SELECT a FROM t' });
    expect(tests[1]?.metadata['source']).toBe(`${path.join(dir, 'dev_gold.sql')}:3`);
  });

  it('reads the environment: SPIDER_DIR, SPIDER_PRESET, SPIDER_LIMIT', async () => {
    Object.assign(process.env, { SPIDER_DIR: dir, SPIDER_PRESET: 'bird', SPIDER_LIMIT: '1' });
    const tests = await spiderTests();
    expect(tests.map((test) => test.assert[0]?.config)).toEqual([{ policy: 'bird' }]);
  });

  it.each([
    [{}, 'tests: spiderTests: config.dir (or SPIDER_DIR) must name a Spider-format folder (dev.json or dev_gold.sql, tables.json, database/)'],
    [{ dir: path.join(dir, 'nope') }, `tests: spiderTests: config.dir (or SPIDER_DIR): no folder ${path.join(dir, 'nope')}`],
    [{ dir, preset: 'spyder' }, 'tests: spiderTests: config.preset must be one of "default", "spider", "bird"; received a string ("spyder")'],
    [{ dir, limit: 0 }, 'tests: spiderTests: config.limit must be a positive integer; received a number (0)'],
    [{ dir, pred: 'x' }, 'tests: spiderTests: config.pred is not an option; known options: dir, gold, databases, preset, keepDistinct, timeoutMs, limit'],
  ])('misuse %j names the option', async (config, message) => {
    await expect(spiderTests(config as never)).rejects.toThrow(message);
  });
});
