/**
 * L2 precision and recall, and AST coverage, on the shared Spider dev slice
 * (catalog of each question read from its own database).
 *
 * - Precision: no gold query is flagged by L2.
 * - Recall: for every gold query, a copy with one identifier misspelt is flagged. The identifier is
 *   chosen deterministically (the i-th resolved table or column reference of gold i, cycling), and
 *   misspelt by dropping a character, or by doubling one when dropping gives a known name.
 * - Agreement with SQLite on the predictions: where SQLite's prepare fails on a name
 *   (`no such table/column`), L2 flags the prediction; where SQLite prepares it, L2 passes.
 * - AST coverage: how many golds and predictions the AST layer reads; none of the texts SQLite
 *   accepts but the AST layer cannot read fails L2 or L3.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../src/engine/engine.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkSafety } from '../src/rungs/safety.js';
import { checkSchema } from '../src/rungs/schema.js';
import { parseSql } from '../src/sql/parse.js';
import { collectReferences } from '../src/sql/references.js';

const SLICE = path.resolve(import.meta.dirname, '../../shared/data/spider-dev-slice');

interface Item {
  readonly db_id: string;
  readonly query: string;
}

const items: Item[] = JSON.parse(readFileSync(path.join(SLICE, 'dev.json'), 'utf8')) as Item[];
const predictions: Record<string, string[]> = {
  DINSQL: readFileSync(path.join(SLICE, 'predictions/DINSQL.sql'), 'utf8').split('\n').slice(0, items.length),
  C3_SQL: readFileSync(path.join(SLICE, 'predictions/C3_SQL.sql'), 'utf8').split('\n').slice(0, items.length),
};
const dbPath = (dbId: string): string => path.join(SLICE, 'database', dbId, `${dbId}.sqlite`);

let engine: SqliteEngine;
const catalogs = new Map<string, Catalog>();

beforeAll(async () => {
  engine = createSqliteEngine({ poolSize: 2 });
  for (const dbId of new Set(items.map((item) => item.db_id))) catalogs.set(dbId, await engine.catalog(dbPath(dbId)));
});

afterAll(async () => {
  await engine.close();
});

/** Misspells the `pick`-th resolved unquoted identifier; `undefined` when the gold has none. */
function misspell(sql: string, catalog: Catalog, pick: number): { sql: string; name: string } | undefined {
  const references = collectReferences({ sql, dialect: 'sqlite', catalog });
  if (!references.ok) return undefined;
  const known = new Set(catalog.tables.flatMap((table) => [table.name, ...table.columns.map((column) => column.name)]).map((name) => name.toLowerCase()));
  const targets = [
    ...references.tables.filter((table) => table.table !== undefined).map((table) => ({ start: table.end - table.name.length, name: table.name })),
    ...references.columns
      .filter((column) => column.resolution.kind === 'table' && column.name !== '*')
      .map((column) => ({ start: column.end - column.name.length, name: column.name })),
  ].filter((target) => sql.slice(target.start, target.start + target.name.length) === target.name && target.name.length > 1);
  if (targets.length === 0) return undefined;
  const target = targets[pick % targets.length]!;
  const candidates = [target.name.slice(0, -1), target.name.slice(0, 1) + target.name.slice(2), `${target.name}${target.name.slice(-1)}`];
  const typo = candidates.find((candidate) => !known.has(candidate.toLowerCase()) && /^[A-Za-z_]/.test(candidate))!;
  return { sql: sql.slice(0, target.start) + typo + sql.slice(target.start + target.name.length), name: `${target.name}→${typo}` };
}

describe('L2 on the Spider dev slice', () => {
  it('precision: no gold query is flagged (507 of 507 pass)', () => {
    const flagged = items
      .map((item, index) => ({ index, item, result: checkSchema({ sql: item.query, dialect: 'sqlite', catalog: catalogs.get(item.db_id)! }) }))
      .filter(({ result }) => result.status !== 'pass')
      .map(({ index, result }) => `${index}: ${result.reason}`);
    console.log(`L2 precision on golds: ${items.length - flagged.length}/${items.length} not flagged`);
    expect(flagged).toEqual([]);
  });

  it('recall: every gold with one identifier misspelt is flagged (507 of 507)', async () => {
    const missed: string[] = [];
    let mutated = 0;
    for (const [index, item] of items.entries()) {
      const catalog = catalogs.get(item.db_id)!;
      const mutation = misspell(item.query, catalog, index);
      if (!mutation) {
        missed.push(`${index}: no identifier to misspell`);
        continue;
      }
      mutated += 1;
      const result = checkSchema({ sql: mutation.sql, dialect: 'sqlite', catalog });
      if (result.status !== 'fail') missed.push(`${index} (${mutation.name}): ${mutation.sql}`);
    }
    console.log(`L2 recall on misspelt golds: ${mutated - missed.length}/${items.length} flagged`);
    expect(missed).toEqual([]);
    expect(mutated).toBe(items.length);
  });

  it('agrees with SQLite on the predictions: name errors flagged, prepared statements pass', async () => {
    const disagreements: string[] = [];
    let nameErrors = 0;
    let prepared = 0;
    for (const [model, lines] of Object.entries(predictions)) {
      for (const [index, sql] of lines.entries()) {
        const item = items[index]!;
        const outcome = await engine.prepare({ db: dbPath(item.db_id), sql });
        const nameError = !outcome.ok && /^(no such table|no such column|ambiguous column name): /.test(outcome.error.message);
        if (!outcome.ok && !nameError) continue;
        const result = checkSchema({ sql, dialect: 'sqlite', catalog: catalogs.get(item.db_id)!, engineAccepted: outcome.ok });
        if (nameError) nameErrors += 1;
        else prepared += 1;
        const expected = nameError ? 'fail' : 'pass';
        if (result.status !== expected) disagreements.push(`${model} ${index}: L2 ${result.status}, SQLite ${outcome.ok ? 'ok' : outcome.error.message}: ${sql}`);
      }
    }
    console.log(`L2 vs SQLite on predictions: ${prepared} prepared, ${nameErrors} name errors, ${disagreements.length} disagreements`);
    expect(disagreements).toEqual([]);
  });
});

describe('AST coverage on the Spider dev slice', () => {
  it('the AST layer reads every gold and prediction; none SQLite accepts fails L2 or L3', async () => {
    const files: Record<string, string[]> = { gold: items.map((item) => item.query), ...predictions };
    const coverage: Record<string, string> = {};
    const failures: string[] = [];
    for (const [name, lines] of Object.entries(files)) {
      let read = 0;
      for (const [index, sql] of lines.entries()) {
        if (parseSql(sql, 'sqlite').ok) {
          read += 1;
          continue;
        }
        const item = items[index]!;
        const outcome = await engine.prepare({ db: dbPath(item.db_id), sql });
        if (!outcome.ok) continue;
        const schema = checkSchema({ sql, dialect: 'sqlite', catalog: catalogs.get(item.db_id)!, engineAccepted: true });
        const safety = checkSafety({ sql, dialect: 'sqlite', engineAccepted: true });
        if (schema.status !== 'pass' || safety.status !== 'pass') failures.push(`${name} ${index}: ${sql}`);
      }
      coverage[name] = `${read}/${lines.length}`;
    }
    console.log(`AST coverage: ${JSON.stringify(coverage)}`);
    expect(coverage).toEqual({ gold: '507/507', DINSQL: '507/507', C3_SQL: '507/507' });
    expect(failures).toEqual([]);
  });

  it('L3 (no policy) passes every gold and every prediction: no false alarm on benign queries', () => {
    const files: Record<string, string[]> = { gold: items.map((item) => item.query), ...predictions };
    const flagged: string[] = [];
    for (const [name, lines] of Object.entries(files)) {
      for (const [index, sql] of lines.entries()) {
        const result = checkSafety({ sql, dialect: 'sqlite' });
        if (result.status !== 'pass') flagged.push(`${name} ${index}: ${result.reason}`);
      }
    }
    console.log(`L3 false alarms on golds and predictions: ${flagged.length} of ${Object.values(files).flat().length}`);
    expect(flagged).toEqual([]);
  });
});
