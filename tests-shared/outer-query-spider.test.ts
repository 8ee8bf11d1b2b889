/**
 * The token reader of the outermost query against the parse tree on the Spider dev slice: every
 * distinct gold (dev_gold.sql and dev.json's `query`) and every prediction of the two recorded
 * models is decided by its tokens with the tree's exact answer, or left to the parse (counted).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasOrderByTokens } from '../src/compare/gold-ordering.js';
import { readOuterQueryFromTree } from '../src/compare/outer-query-tree.js';
import { readOuterQueryFromTokens } from '../src/sql/outer-query.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');

/** The SQL column of a Spider `.sql` file (`SQL<TAB>db_id` per line, or SQL alone). */
function sqlLines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => line.split('\t')[0]!);
}

function compareReaders(texts: readonly string[]): { distinct: number; withOrderBy: number; decided: number; deferred: number; disagreements: string[] } {
  const distinct = [...new Set(texts)];
  let decided = 0;
  const disagreements: string[] = [];
  for (const sql of distinct) {
    const tokens = readOuterQueryFromTokens(sql);
    if (tokens === undefined) continue;
    decided += 1;
    const tree = readOuterQueryFromTree(sql);
    if (tree.kind !== 'query' || JSON.stringify(tree.query) !== JSON.stringify(tokens)) disagreements.push(sql);
  }
  return { distinct: distinct.length, withOrderBy: distinct.filter((sql) => hasOrderByTokens(sql)).length, decided, deferred: distinct.length - decided, disagreements };
}

describe('outer query on the Spider dev slice: tokens against the tree', () => {
  it('dev_gold.sql', () => {
    expect(compareReaders(sqlLines(path.join(slice, 'dev_gold.sql')))).toEqual({ distinct: 282, withOrderBy: 56, decided: 282, deferred: 0, disagreements: [] });
  });

  it("dev.json's query", () => {
    const items = JSON.parse(readFileSync(path.join(slice, 'dev.json'), 'utf8')) as { query: string }[];
    expect(compareReaders(items.map((item) => item.query))).toEqual({ distinct: 282, withOrderBy: 56, decided: 282, deferred: 0, disagreements: [] });
  });

  const expected: Record<string, object> = {
    DINSQL: { distinct: 376, withOrderBy: 58, decided: 376, deferred: 0, disagreements: [] },
    C3_SQL: { distinct: 449, withOrderBy: 77, decided: 449, deferred: 0, disagreements: [] },
  };
  it.each([['DINSQL'], ['C3_SQL']])('predictions/%s.sql', (model) => {
    expect(compareReaders(sqlLines(path.join(slice, 'predictions', `${model}.sql`)))).toEqual(expected[model]!);
  });
});
