import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSpiderGold, parseSpiderPredictions, readPredictions, readSpiderGold } from '../../../src/benchmarks/spider/read-spider-files.js';
import { LadderError } from '../../../src/errors.js';
import { tempDir } from '../../compare/helpers.js';

describe('parseSpiderGold', () => {
  it('reads sql<TAB>db_id lines, skips blank lines, reports malformed ones', () => {
    expect(parseSpiderGold('SELECT 1\tdb\n\n  SELECT a\tb\tdb2  \nSELECT 2\n', 'gold.sql')).toEqual([
      { index: 0, line: 1, sql: 'SELECT 1', dbId: 'db' },
      { index: 1, line: 3, sql: 'SELECT a\tb', dbId: 'db2' },
      { index: 2, line: 4, sql: '', dbId: '', error: 'gold.sql:4: expected "sql<TAB>db_id"' },
    ]);
  });
});

describe('parseSpiderPredictions', () => {
  it('keeps blank lines as items with no SQL and reads the optional db_id', () => {
    expect(parseSpiderPredictions('SELECT 1;\r\n\nSELECT 2\tdb\n')).toEqual([
      { index: 0, line: 1, sql: 'SELECT 1;' },
      { index: 1, line: 2, sql: '' },
      { index: 2, line: 3, sql: 'SELECT 2', dbId: 'db' },
    ]);
  });
});

describe('parseSpiderPredictions with known db_ids', () => {
  it('reads a trailing <TAB>word as a db_id only when it is a known one', () => {
    expect(parseSpiderPredictions('SELECT count(*) FROM singer\tT1\nSELECT 2\tconcert_singer\n', { knownDbIds: new Set(['concert_singer']) })).toEqual([
      { index: 0, line: 1, sql: 'SELECT count(*) FROM singer\tT1' },
      { index: 1, line: 2, sql: 'SELECT 2', dbId: 'concert_singer' },
    ]);
  });
});

describe('file readers', () => {
  it('read files and throw input_invalid for a missing file', async () => {
    const dir = tempDir('ladder-spider-files-');
    writeFileSync(path.join(dir, 'g.sql'), 'SELECT 1\tdb\n');
    writeFileSync(path.join(dir, 'p.sql'), 'SELECT 1\n');
    expect(await readSpiderGold(path.join(dir, 'g.sql'))).toHaveLength(1);
    expect(await readPredictions(path.join(dir, 'p.sql'))).toHaveLength(1);
    await expect(readPredictions(path.join(dir, 'nope.sql'))).rejects.toThrow(LadderError);
  });
});
