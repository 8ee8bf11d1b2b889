/**
 * The suite step judges a generated database as the counterexample search does: under the item's
 * `emptyVsNullRow`, only through a database that keeps the contract of generated databases, and
 * only by a difference that survives every reordering of the rows; and a snapshot that already
 * shows the difference is named as such (`rejectedBy: 'snapshot'`).
 *
 * The suites here are built for real, then given a hand-made database in place of their generated
 * ones, so that each rule meets exactly the database that tests it.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/compare/policy.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { checkSemantic } from '../../src/semantic/check-semantic.js';
import { fileChecksum } from '../../src/semantic/suite/suite-cache.js';
import { readSemanticOptions } from '../../src/semantic/semantic-options.js';
import { createSemanticService, type SemanticService } from '../../src/semantic/semantic-service.js';
import { buildTestSuite, evaluateOnSuite, type TestSuite } from '../../src/semantic/suite/test-suite.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

/** Scores of players; every player has a team (team_id holds no NULL, though the schema allows it). */
const SCHEMA = `
CREATE TABLE team (team_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE player (player_id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team(team_id), name TEXT NOT NULL, score INTEGER NOT NULL);
`;
const ROWS = "INSERT INTO team VALUES (1, 'Reds'), (2, 'Blues'); INSERT INTO player VALUES (1, 1, 'Ann', 7), (2, 1, 'Bo', 9), (3, 2, 'Cy', 4);";

const MAX = 'SELECT MAX(score) FROM player';
const TOP = 'SELECT score FROM player ORDER BY score DESC LIMIT 1';
const COUNT_ALL = 'SELECT COUNT(*) FROM player';
const COUNT_TEAM = 'SELECT COUNT(team_id) FROM player';

let temp: TempSqlite;
let engine: SqliteEngine;
let service: SemanticService;
const policy = resolvePolicy('default');

beforeAll(() => {
  temp = createTempSqlite(SCHEMA + ROWS, { prefix: 'ladder-suite-judge-', name: 'base.sqlite' });
  engine = createSqliteEngine({ poolSize: 2 });
  service = createSemanticService();
});
afterAll(async () => {
  service.close();
  await engine.close();
  temp.remove();
});

/** A database with the schema and these rows, in the test's folder. */
function database(name: string, rows: string): string {
  const file = path.join(temp.dir, `${name}.sqlite`);
  const db = new Database(file);
  try {
    db.exec(SCHEMA);
    db.pragma('foreign_keys = OFF');
    db.exec(rows);
  } finally {
    db.close();
  }
  return file;
}

/** A suite built for `gold` whose only generated database is `file` (kept for the gold as gen-90). */
async function suiteWith(gold: string, file: string, nulls: 'allowed' | 'observed'): Promise<TestSuite> {
  const built = await buildTestSuite({ engine, schemaDb: temp.file, golds: [gold], nulls, seed: 3, cacheDir: path.join(temp.dir, 'cache'), budget: { maxDatabases: 1, maxSeconds: 3600 } });
  const kept = path.join(temp.dir, `gen-90-${path.basename(file)}`);
  copyFileSync(file, kept);
  return {
    ...built,
    golds: built.golds.map((g) => ({ ...g, keptIndices: [90] })),
    databases: [{ index: 90, name: 'gen-90', path: kept, checksum: fileChecksum(kept), rowCounts: { team: 0, player: 0 }, tier: 'given' }],
  };
}

describe('the suite step judges generated databases as the search does', () => {
  it('emptyVsNullRow: an empty table (MAX gives one NULL row, ORDER BY … LIMIT 1 none) refutes only under different', async () => {
    const suite = await suiteWith(MAX, database('empty', ''), 'allowed');
    const same = await evaluateOnSuite({ engine, suite, golds: [MAX], predictedSql: TOP, policy });
    expect({ status: same.status, reason: same.reason }).toEqual({ status: 'pass', reason: 'matches on all 2 databases of the test suite (1 snapshot, 1 generated)' });
    const different = await evaluateOnSuite({ engine, suite, golds: [MAX], predictedSql: TOP, policy, emptyVsNullRow: 'different' });
    expect({ status: different.status, reason: different.reason, failing: different.failing?.database }).toEqual({ status: 'fail', reason: 'generated database gen-90: prediction has 0 rows, gold has 1; 1 missing row: gold [NULL]', failing: 'gen-90' });
  });

  it('the option reaches the suite step through checkSemantic (search off): same by default, different when asked', async () => {
    const suite = await suiteWith(MAX, database('empty-rung', ''), 'allowed');
    // A service that hands out the prepared suite, so that the rung meets the empty database.
    const stub: SemanticService = { prepareSuite: async () => suite, announceSuite: async () => undefined, suiteFor: async () => suite, searcherFor: () => Promise.reject(new Error('search is off')), close: () => undefined };
    const run = async (emptyVsNullRow: 'same' | 'different'): Promise<[string, string | null]> => {
      const result = await checkSemantic({ predictedSql: TOP, golds: [MAX], snapshots: suite.snapshots, engine, policy, options: readSemanticOptions({ search: false, emptyVsNullRow }), service: stub });
      return [result.status, result.details.rejectedBy];
    };
    expect([await run('same'), await run('different')]).toEqual([['pass', null], ['fail', 'suite']]);
  });

  it('a database that breaks the contract refutes nothing and is counted: a NULL team under nulls: observed', async () => {
    const file = database('null-team', "INSERT INTO team VALUES (1, 'Reds'); INSERT INTO player VALUES (1, NULL, 'Ann', 7), (2, 1, 'Bo', 9);");
    const observed = await evaluateOnSuite({ engine, suite: await suiteWith(COUNT_ALL, file, 'observed'), golds: [COUNT_ALL], predictedSql: COUNT_TEAM, policy });
    expect({ status: observed.status, rejected: observed.rejectedDatabases }).toEqual({ status: 'pass', rejected: { nullsObserved: 1 } });
    // The same database keeps the contract under nulls: allowed, and there it refutes.
    const allowed = await evaluateOnSuite({ engine, suite: await suiteWith(COUNT_ALL, file, 'allowed'), golds: [COUNT_ALL], predictedSql: COUNT_TEAM, policy });
    expect({ status: allowed.status, reason: allowed.reason, rejected: allowed.rejectedDatabases }).toEqual({ status: 'fail', reason: 'generated database gen-90: gold [2] vs predicted [1]', rejected: {} });
  });

});

describe('checkSemantic names the database that refutes', () => {
  it('a snapshot that already shows the difference: rejectedBy snapshot, nothing generated', async () => {
    const result = await checkSemantic({
      predictedSql: 'SELECT COUNT(*) FROM team',
      golds: [COUNT_ALL],
      snapshots: [{ name: 'jan', path: temp.file }],
      engine,
      policy,
      options: readSemanticOptions({ cacheDir: path.join(temp.dir, 'cache'), suite: { maxSeconds: 600 }, search: { maxSeconds: 600 } }),
      service,
    });
    expect({ status: result.status, reason: result.reason, rejectedBy: result.details.rejectedBy, suite: result.details.suite, search: result.details.search }).toEqual({
      status: 'fail',
      reason: 'refuted on snapshot jan: gold [3] vs predicted [2]',
      rejectedBy: 'snapshot',
      suite: null,
      search: null,
    });
  });
});
