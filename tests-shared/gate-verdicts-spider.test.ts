/**
 * One gate rule everywhere, on real predictions: `runGates`, the ladder and `text2sql-ladder check`
 * give the same L1 / L2 / L3 verdicts and the same "gates open" decision on every prediction of
 * both published models in the shared Spider dev slice (507 items
 * each, checked against the item's own database). The red-team slice gets the same comparison,
 * with the red-team harness, in tests/rungs/gate-verdicts.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand, type CheckReport } from '../src/cli/check.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { runGates } from '../src/rungs/gates.js';
import { runLadder } from '../src/rungs/ladder.js';
import { createLadderRungs } from '../src/rungs/ladder-rungs.js';
import type { LadderRungTable } from '../src/rungs/ladder-rungs.js';
import { createRungResult } from '../src/rungs/rung-result.js';
import type { RungStatus } from '../src/rungs/rung-result.js';

const SLICE = path.resolve(import.meta.dirname, '../../shared/data/spider-dev-slice');
const items = JSON.parse(readFileSync(path.join(SLICE, 'dev.json'), 'utf8')) as Array<{ readonly db_id: string }>;
const MODELS = ['DINSQL', 'C3_SQL'] as const;
const predictions = Object.fromEntries(MODELS.map((model) => [model, readFileSync(path.join(SLICE, 'predictions', `${model}.sql`), 'utf8').split('\n').slice(0, items.length)]));
const dbPath = (dbId: string): string => path.join(SLICE, 'database', dbId, `${dbId}.sqlite`);

const verdict = (syntax: RungStatus, schema: RungStatus, safety: RungStatus, open: boolean): string => `${syntax}/${schema}/${safety} ${open ? 'open' : 'closed'}`;

/** The ladder with its executing rungs stubbed: only its gate wiring is under test. */
const GATES_ONLY: LadderRungTable = {
  ...createLadderRungs(),
  execution: { listed: () => true, endToEnd: true, run: async () => createRungResult({ rung: 'execution', status: 'pass', reason: 'stub', details: null }) },
};

let engine: SqliteEngine;
const fromGates: Record<string, string> = {};
const fromLadder: Record<string, string> = {};
const fromCheck: Record<string, string> = {};

beforeAll(async () => {
  engine = createSqliteEngine({ poolSize: 2 });
  for (const model of MODELS) {
    for (const [index, item] of items.entries()) {
      const sql = predictions[model]![index]!;
      const key = `${model} ${index}`;
      const db = dbPath(item.db_id);
      const gates = await runGates({ sql, dialect: 'sqlite', engine, db });
      fromGates[key] = verdict(gates.syntax.status, gates.schema.status, gates.safety.status, gates.open);

      const ladder = await runLadder({ output: sql, expectedBehavior: 'answer', golds: ['SELECT 1'], snapshots: [{ name: item.db_id, path: db }], dialect: 'sqlite', engine }, GATES_ONLY);
      const { syntax, schema, safety, execution } = ladder.results;
      fromLadder[key] = verdict(syntax!.status, schema!.status, safety!.status, execution!.status !== 'skipped');

      let out = '';
      await runCheckCommand({ db, dialect: 'sqlite', json: true }, { stdin: async () => sql, stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true }, engine });
      const report = JSON.parse(out) as CheckReport;
      const [l1, l2, l3] = report.rungs.map((rung) => rung.status);
      fromCheck[key] = verdict(l1!, l2!, l3!, report.rungs.every((rung) => rung.status === 'pass'));
    }
  }
}, 600_000);

afterAll(() => engine.close());

describe('gate verdicts on the Spider slice predictions (DIN-SQL, C3)', () => {
  it('the ladder and check give exactly the gate runner\'s verdicts on all 1014 predictions', () => {
    expect(Object.keys(fromGates)).toHaveLength(1014);
    expect(fromLadder).toEqual(fromGates);
    expect(fromCheck).toEqual(fromGates);
  });

  it('the verdicts', () => {
    const counts: Record<string, number> = {};
    for (const value of Object.values(fromGates)) counts[value] = (counts[value] ?? 0) + 1;
    expect(counts).toEqual({ 'pass/pass/pass open': 1011, 'fail/skipped/pass closed': 2, 'pass/fail/pass closed': 1 });
  });
});
