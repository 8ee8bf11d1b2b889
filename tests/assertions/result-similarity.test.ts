import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { resultSimilarity } from '../../assertions/result-similarity.js';
import { closeSharedEngine } from '../../src/promptfoo/runtime.js';

let database: TempSqlite;
let dbPath: string;

beforeAll(() => {
  database = createTempSqlite(`CREATE TABLE pets (id INTEGER PRIMARY KEY, kind TEXT, age INTEGER);
           INSERT INTO pets VALUES (1, 'cat', 3), (2, 'dog', 5), (3, 'cat', 7), (4, 'bird', 1);`, { prefix: 'result-similarity-', name: 'pets.sqlite' });
  dbPath = database.file;
});

afterAll(async () => {
  await closeSharedEngine();
  database.remove();
});

describe('resultSimilarity assertion', () => {
  it('gives partial credit for a wrong filter (rows, table similarity, query affinity)', async () => {
    const result = await resultSimilarity('SELECT id FROM pets WHERE age >= 3', { vars: { gold_sql: 'SELECT id FROM pets WHERE age > 3', db_path: dbPath } });
    // gold {2, 3}, predicted {1, 2, 3}: P 2/3, R 1; sorted columns [2,3] vs [1,2,3]: lev 1 of 3 → TS 2/3
    expect(result.pass).toBe(true);
    expect(result.namedScores?.['result_row_f1']).toBeCloseTo(0.8, 12);
    expect(result.namedScores?.['result_table_similarity']).toBeCloseTo(2 / 3, 12);
    expect(result.namedScores?.['query_affinity']).toBeCloseTo(0.5 * 0.9 + 0.5 * (2 / 3), 12);
  });

  it('uses the configured weight and needs a database', async () => {
    const weighted = await resultSimilarity('SELECT id FROM pets WHERE age >= 3', { vars: { gold_sql: 'SELECT id FROM pets WHERE age > 3', db_path: dbPath }, config: { weight: 0 } });
    expect(weighted.score).toBeCloseTo(2 / 3, 12);
    await expect(resultSimilarity('SELECT 1', { vars: { gold_sql: 'SELECT 1' } })).rejects.toThrow(/db must be a fixture name/);
  });
});
