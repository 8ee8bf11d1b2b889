/**
 * One gate rule everywhere: `runGates`, the ladder, `text2sql-ladder check` and the red-team harness
 * give the same L1 / L2 / L3 verdicts (and the same "gates open" decision) on every prediction of
 * the bundled red-team slice (datasets/redteam.yaml, both recordings). The Spider slice's
 * predictions get the same comparison in tests-shared/gate-verdicts-spider.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand, type CheckReport } from '../../src/cli/check.js';
import { loadDataset } from '../../src/dataset/load.js';
import type { DatasetItem } from '../../src/dataset/item.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { runGates } from '../../src/rungs/gates.js';
import { runLadder } from '../../src/rungs/ladder.js';
import { createLadderRungs } from '../../src/rungs/ladder-rungs.js';
import type { LadderRungTable } from '../../src/rungs/ladder-rungs.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import type { RungStatus } from '../../src/rungs/rung-result.js';
import { blockedBy, readRecording, runRedTeam, type RecordedPrediction, type RedTeamReport } from '../../src/harness/redteam.js';
import { parseProviderOutput } from '../../src/sql/provider-output.js';

const TIMEOUT_MS = 500;
let engine: SqliteEngine;
let items: DatasetItem[];
let recordings: Record<string, RecordedPrediction[]>;
let scratch: string;

/** `L1/L2/L3 → open|closed`, e.g. `fail/skipped/fail closed`. */
type GateVerdict = string;
const verdict = (syntax: RungStatus, schema: RungStatus, safety: RungStatus, open: boolean): GateVerdict => `${syntax}/${schema}/${safety} ${open ? 'open' : 'closed'}`;

/** The ladder with its executing rungs stubbed: only its gate wiring is under test here. */
const GATES_ONLY: LadderRungTable = {
  ...createLadderRungs(),
  execution: { listed: () => true, endToEnd: true, run: async () => createRungResult({ rung: 'execution', status: 'pass', reason: 'stub', details: null }) },
};

interface Case {
  readonly key: string;
  readonly item: DatasetItem;
  readonly output: unknown;
  readonly sql: string;
}

const cases: Case[] = [];
const fromGates = new Map<string, GateVerdict>();
const blockedDetail = new Map<string, string | undefined>();
const fromLadder = new Map<string, GateVerdict>();
const fromCheck = new Map<string, GateVerdict>();
let harness: RedTeamReport;

beforeAll(async () => {
  engine = createSqliteEngine({ poolSize: 1, timeoutMs: TIMEOUT_MS, maxRows: 1000 });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'gate-verdicts-'));
  items = (await loadDataset('datasets/redteam.yaml')).items;
  recordings = {
    compliant: readRecording('providers/recordings/redteam-compliant.jsonl'),
    guarded: readRecording('providers/recordings/redteam-guarded.jsonl'),
  };
  for (const [recording, predictions] of Object.entries(recordings)) {
    for (const prediction of predictions) {
      const answer = parseProviderOutput(prediction.output);
      if (answer.kind !== 'sql') continue;
      cases.push({ key: `${recording} ${prediction.id}`, item: items.find((item) => item.id === prediction.id)!, output: prediction.output, sql: answer.sql });
    }
  }
  for (const { key, item, output, sql } of cases) {
    const fixture = await resolveFixture(item.db, { role: item.role! });
    const db = fixture.snapshots[0]!.path;
    const tables = fixture.roles[item.role!]!.tables;
    const limited = item.tags['policy'] === 'limit';
    const safetyPolicy = { allowedTables: tables, ...(limited ? { maxLimit: 1000 } : {}) };

    const gates = await runGates({ sql, dialect: 'sqlite', engine, db, safetyPolicy });
    fromGates.set(key, verdict(gates.syntax.status, gates.schema.status, gates.safety.status, gates.open));
    blockedDetail.set(key, blockedBy(gates));

    const ladder = await runLadder({ output, expectedBehavior: 'answer', golds: ['SELECT 1'], snapshots: fixture.snapshots, dialect: 'sqlite', engine, safetyPolicy }, GATES_ONLY);
    const { syntax, schema, safety, execution } = ladder.results;
    fromLadder.set(key, verdict(syntax!.status, schema!.status, safety!.status, execution!.status !== 'skipped'));

    let out = '';
    const code = await runCheckCommand(
      { db: item.db, role: item.role!, dialect: 'sqlite', allowedTables: tables, ...(limited ? { maxLimit: 1000 } : {}), json: true },
      { stdin: async () => (typeof output === 'string' ? output : JSON.stringify(output)), stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true }, engine },
    );
    const report = JSON.parse(out) as CheckReport;
    const [l1, l2, l3] = report.rungs.map((rung) => rung.status);
    fromCheck.set(key, verdict(l1!, l2!, l3!, report.rungs.every((rung) => rung.status === 'pass')));
    expect(code, key).toBe(report.pass ? 0 : 1);
  }
  harness = await runRedTeam({ items, recordings, staticChecks: true, engine, sentinelDir: path.join(scratch, 'sentinel'), timeoutMs: TIMEOUT_MS });
}, 300_000);

afterAll(async () => {
  await engine.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('gate verdicts on the red-team slice (both recordings)', () => {
  it('covers every prediction that holds SQL', () => {
    expect(cases.length).toBe(87);
  });

  it('the ladder and check give exactly the gate runner\'s verdicts', () => {
    expect(Object.fromEntries(fromLadder)).toEqual(Object.fromEntries(fromGates));
    expect(Object.fromEntries(fromCheck)).toEqual(Object.fromEntries(fromGates));
  });

  it('the red-team harness blocks exactly the predictions whose gates are closed, naming the same gate', () => {
    const byKey = new Map(harness.results.map((result) => [`${result.recording} ${result.id}`, result]));
    for (const { key } of cases) {
      const result = byKey.get(key)!;
      const blocked = blockedDetail.get(key);
      expect([key, result.outcome === 'static_blocked', result.outcome === 'static_blocked' ? result.detail : undefined]).toEqual([key, blocked !== undefined, blocked]);
    }
  });

  it('the verdicts (L1/L2/L3, gates): L3 judges every text, also after a failed L1', () => {
    const counts: Record<string, number> = {};
    for (const value of fromGates.values()) counts[value] = (counts[value] ?? 0) + 1;
    expect(counts).toEqual({
      'fail/skipped/fail closed': 44,
      'pass/fail/fail closed': 19,
      'pass/pass/fail closed': 9,
      'pass/pass/pass open': 15,
    });
  });
});
