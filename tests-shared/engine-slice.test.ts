/**
 * The SQLite engine on the shared Spider dev slice: every gold
 * in both double-quote modes, every predicted statement, fixture bytes unchanged; and the legacy
 * fallback checked against a stock SQLite build (Python's sqlite3, double-quoted strings on) when
 * python3 is available.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell, ExecutionOutcome } from '../src/engine/engine.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { sha256 } from '../tests/engine/sqlite/test-db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const slice = path.resolve(here, '../../shared/data/spider-dev-slice');
/** Codes of the statement's own failures as the engine reports them (any other code is a fault of the engine). */
const ENGINE_REPORTED = new Set(['syntax_error', 'unknown_table', 'unknown_column', 'ambiguous_column', 'unknown_function', 'query_error']);
const DB_IDS = ['car_1', 'cre_Doc_Template_Mgt', 'flight_2', 'tvshow', 'concert_singer', 'pets_1', 'employee_hire_evaluation', 'course_teach', 'museum_visit', 'battle_death'];

interface Item {
  readonly sql: string;
  readonly db: string;
}

function dbFile(dbId: string): string {
  return path.join(slice, 'database', dbId, `${dbId}.sqlite`);
}

function lines(file: string): string[] {
  return readFileSync(path.join(slice, file), 'utf8').split('\n').filter((line) => line !== '');
}

const golds: Item[] = lines('dev_gold.sql').map((line) => {
  const [sql, dbId] = line.split('\t') as [string, string];
  return { sql, db: dbFile(dbId) };
});
const predictions = (model: string): Item[] => lines(`predictions/${model}.sql`).map((sql, i) => ({ sql, db: golds[i]!.db }));

let engine: SqliteEngine;
const checksums = new Map<string, string>();

beforeAll(() => {
  for (const dbId of DB_IDS) checksums.set(dbId, sha256(dbFile(dbId)));
  engine = createSqliteEngine();
});

afterAll(async () => {
  await engine.close();
  for (const dbId of DB_IDS) expect(sha256(dbFile(dbId)), dbId).toBe(checksums.get(dbId));
});

function runAll(items: readonly Item[], doubleQuotes: 'legacy' | 'strict'): Promise<ExecutionOutcome[]> {
  return Promise.all(items.map((item) => engine.execute({ db: item.db, sql: item.sql, doubleQuotes })));
}

describe('the Spider dev slice', () => {
  it('has 507 golds and two aligned prediction files', () => {
    expect(golds).toHaveLength(507);
    expect(predictions('DINSQL')).toHaveLength(507);
    expect(predictions('C3_SQL')).toHaveLength(507);
  });

  let legacy: ExecutionOutcome[] = [];

  it('legacy mode executes every gold; exactly 106 need the double-quote fallback', async () => {
    legacy = await runAll(golds, 'legacy');
    expect(legacy.filter((outcome) => !outcome.ok).map((outcome) => !outcome.ok && outcome.error)).toEqual([]);
    expect(legacy.filter((outcome) => outcome.ok && outcome.result.doubleQuoteFallback)).toHaveLength(106);
  });

  it('strict mode fails exactly those 106 golds, each with no such column, and agrees on the rest', async () => {
    const strict = await runAll(golds, 'strict');
    const failed = strict.flatMap((outcome, i) => (outcome.ok ? [] : [{ i, error: outcome.error }]));
    expect(failed).toHaveLength(106);
    for (const { error } of failed) {
      expect(error.code).toBe('unknown_column');
      expect(error.message).toMatch(/^no such column: ".+" - should this be a string literal in single-quotes\?$/);
    }
    const fallbackIndices = legacy.flatMap((outcome, i) => (outcome.ok && outcome.result.doubleQuoteFallback ? [i] : []));
    expect(failed.map(({ i }) => i)).toEqual(fallbackIndices);
    strict.forEach((outcome, i) => {
      if (outcome.ok) expect(outcome.result.rows, `gold ${i}`).toEqual(legacy[i]!.ok ? legacy[i]!.result.rows : undefined);
    });
  });

  it.each([
    ['DINSQL', 504],
    ['C3_SQL', 507],
  ])('runs every %s prediction to an outcome (%i execute)', async (model, executed) => {
    const outcomes = await runAll(predictions(model), 'legacy');
    const codes = outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.error.code));
    expect(codes.filter((code) => code !== 'ok' && !ENGINE_REPORTED.has(code))).toEqual([]);
    expect(codes.filter((code) => code === 'ok')).toHaveLength(executed);
  });

  it.skipIf(spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' }).status !== 0)(
    'gives the 106 fallback golds the same rows as stock SQLite (Python sqlite3, double-quoted strings on)',
    async () => {
      const indices = legacy.flatMap((outcome, i) => (outcome.ok && outcome.result.doubleQuoteFallback ? [i] : []));
      expect(indices).toHaveLength(106);
      const script = [
        'import json, sqlite3, sys',
        'items = json.load(sys.stdin)',
        'out = []',
        'for db, sql in items:',
        "    con = sqlite3.connect('file:' + db + '?mode=ro', uri=True)",
        '    out.append([list(row) for row in con.execute(sql).fetchall()])',
        '    con.close()',
        'print(json.dumps(out))',
      ].join('\n');
      const input = JSON.stringify(indices.map((i) => [golds[i]!.db, golds[i]!.sql]));
      const python = spawnSync('python3', ['-c', script], { input, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
      expect(python.status, python.stderr).toBe(0);
      const stock = (JSON.parse(python.stdout) as unknown[][][]).map((rows) => rows.map((row) => JSON.stringify(row)).sort());
      const ours = indices.map((i) => {
        const outcome = legacy[i]!;
        return (outcome.ok ? outcome.result.rows : []).map((row) => JSON.stringify(row.map(toJson))).sort();
      });
      expect(ours).toEqual(stock);
    },
  );
});

/** JSON.stringify cannot render bigint; the slice holds none beyond 2^53, so Number is exact here. */
function toJson(cell: Cell): unknown {
  if (typeof cell === 'bigint') return Number(cell);
  return cell;
}

it('keeps every slice database present', () => {
  expect(DB_IDS.every((dbId) => existsSync(dbFile(dbId)))).toBe(true);
});
