/**
 * The token reader of the outermost query against the parse tree on every gold of the bundled
 * datasets: each gold is either decided by its tokens with the tree's exact answer, or left to
 * the parse. The counts are exact, so a change in coverage is seen.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readOuterQueryFromTree } from '../../src/compare/outer-query-tree.js';
import { readOuterQueryFromTokens } from '../../src/sql/outer-query.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every string under a `gold_sql` key (a string or a list of them), anywhere in the document. */
function goldsOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((child) => goldsOf(child, found));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'gold_sql') found.push(...(Array.isArray(value) ? value : [value]).filter((sql): sql is string => typeof sql === 'string'));
      else goldsOf(value, found);
    }
  }
  return found;
}

/** Distinct golds decided (and equal to the tree), deferred, and any gold where the two disagree. */
function compareReaders(golds: readonly string[]): { decided: number; deferred: number; disagreements: string[] } {
  let decided = 0;
  let deferred = 0;
  const disagreements: string[] = [];
  for (const sql of new Set(golds)) {
    const tokens = readOuterQueryFromTokens(sql);
    if (tokens === undefined) {
      deferred += 1;
      continue;
    }
    decided += 1;
    const tree = readOuterQueryFromTree(sql);
    if (tree.kind !== 'query' || JSON.stringify(tree.query) !== JSON.stringify(tokens)) disagreements.push(sql);
  }
  return { decided, deferred, disagreements };
}

describe('outer query: tokens against the tree on the bundled datasets', () => {
  it.each([
    ['datasets/warehouse.yaml', 91, 0],
    ['datasets/redteam.yaml', 5, 0],
    ['examples/promptfoo-app/datasets/billing.yaml', 11, 0],
    ['templates/app/datasets/questions.yaml', 3, 0],
    ['tests/audit/seeded-dataset.yaml', 42, 0],
    ['tests/audit/strength-dataset.yaml', 4, 0],
  ])('%s: %i distinct golds decided by their tokens, %i left to the parse, no disagreement', (file, decided, deferred) => {
    const golds = goldsOf(parse(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(compareReaders(golds)).toEqual({ decided, deferred, disagreements: [] });
  });
});
