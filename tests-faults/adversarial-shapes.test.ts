/**
 * The model outputs that cost unbounded work or crashed a rung, each through every front door —
 * protocol reading, L1 with SQLite as authority, L2, L3 under a policy, the diagnostics, the
 * `check` command and a failing vitest matcher — must each end with a verdict within 5 000 ms.
 * Measured before the budgets (same machine): 400 KB of unclosed fence openers 77 s in
 * extraction; `SELECT 1;\n` × 40 000 23 s; a 10 MB comment 37 s to parse and 158 s through
 * `check`; a 1 000-term OR chain 7.3 s in the diagnostics (RangeError from 2 000 terms); 10 000-term
 * chains and UNION ALLs a RangeError in L2 and L3.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../matchers/vitest.js';
import { runCheckCommand } from '../src/cli/check.js';
import { diagnoseItem } from '../src/diagnostics/diagnose.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkSafety } from '../src/rungs/safety.js';
import { checkSchema } from '../src/rungs/schema.js';
import { checkSyntax } from '../src/rungs/syntax.js';
import { loadCatalog } from '../src/sql/catalog.js';
import type { Catalog } from '../src/engine/engine.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import { createTempSqlite, type TempSqlite } from '../tests/helpers/temp-sqlite.js';

const BOUND_MS = 5_000;

/** Kept under the 100 000-character size budget, so that the depth and time budgets are what ends them. */
const chain = (operator: string, terms: number): string => `SELECT a FROM t WHERE ${Array.from({ length: terms }, (_, i) => `a=${i % 10}`).join(` ${operator} `)}`;

const SHAPES: Readonly<Record<string, () => string>> = {
  'AND chain, 10 000 terms': () => chain('AND', 10_000),
  'OR chain, 10 000 terms': () => chain('OR', 10_000),
  '|| chain, 10 000 terms': () => `SELECT ${Array.from({ length: 10_000 }, () => "'x'").join(' || ')} FROM t`,
  '+ chain, 10 000 terms': () => `SELECT ${Array.from({ length: 10_000 }, (_, i) => String(i % 100)).join(' + ')} FROM t`,
  'UNION ALL, 4 000 branches': () => Array.from({ length: 4_000 }, () => 'SELECT 1').join(' UNION ALL '),
  'UNION ALL, 10 000 branches (over the size budget)': () => Array.from({ length: 10_000 }, (_, i) => `SELECT ${i}`).join(' UNION ALL '),
  'OR chain, 2 500 terms (20 KB)': () => chain('OR', 2_500),
  'OR chain, 1 000 terms': () => chain('OR', 999),
  '400 KB of unclosed ```sql openers': () => '```sql\n'.repeat(57_000),
  '400 KB of unclosed ``` openers': () => '```\n'.repeat(100_000),
  'SELECT 1;\\n × 40 000': () => 'SELECT 1;\n'.repeat(40_000),
  '10 MB comment': () => `SELECT a FROM t /*${'x'.repeat(10_000_000)}*/`,
  '10 MB string': () => `SELECT '${'x'.repeat(10_000_000)}' FROM t`,
  '100 KB of whitespace': () => `SELECT${' \n\t'.repeat(33_000)}nosuch FROM t`,
  '100 000 nested parentheses': () => `SELECT ${'('.repeat(100_000)}1${')'.repeat(100_000)}`,
  '30 unclosed parentheses': () => `SELECT ${'('.repeat(30)}`,
  'failing expression in 26 parentheses': () => `SELECT ${'('.repeat(26)}1 +${')'.repeat(26)} FROM t`,
};

let db: TempSqlite;
let engine: SqliteEngine;
let catalog: Catalog;
const timings: string[] = [];

beforeAll(async () => {
  db = createTempSqlite('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);', { prefix: 'ladder-faults-shapes-' });
  engine = createSqliteEngine({ poolSize: 1 });
  catalog = await loadCatalog(engine, db.file);
});

afterAll(async () => {
  await engine.close();
  db.remove();
  process.stdout.write(`\nadversarial shapes, ms per entry point (bound ${BOUND_MS}):\n${timings.map((line) => `  ${line}`).join('\n')}\n`);
});

/** Runs one entry point and fails when it throws or takes longer than the bound. */
async function timed<T>(work: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  expect(ms).toBeLessThan(BOUND_MS);
  return { value, ms };
}

describe('adversarial model output', () => {
  it.each(Object.keys(SHAPES))('%s: a verdict from every entry point within the bound', async (name) => {
    const output = SHAPES[name]!();
    const read = await timed(() => parseProviderOutput(output));
    const sql = read.value.kind === 'sql' ? read.value.sql : output;
    const syntax = await timed(() => checkSyntax({ sql, dialect: 'sqlite', engine, db: db.file }));
    const schema = await timed(() => checkSchema({ sql, dialect: 'sqlite', catalog, engineAccepted: syntax.value.details.engineAccepted }));
    const safety = await timed(() => checkSafety({ sql, dialect: 'sqlite', policy: { maxLimit: 100 }, engineAccepted: syntax.value.details.engineAccepted }));
    const diagnostics = await timed(() => diagnoseItem({ predictedSql: sql, goldSqls: ['SELECT a FROM t WHERE a = 1'], dialect: 'sqlite', engine, db: db.file }));
    let printed = '';
    const check = await timed(() =>
      runCheckCommand(
        { db: db.file, dialect: 'sqlite', json: true },
        { stdin: () => Promise.resolve(output), stdout: { write: (text: string) => (printed += text) }, stderr: { write: () => true } },
      ),
    );
    let message = '';
    const matcher = await timed(() => {
      try {
        expect(sql).toBeSafeSql({ maxLimit: 100 });
      } catch (error) {
        message = stripVTControlCharacters((error as Error).message);
      }
    });
    expect([syntax.value.status, schema.value.status, safety.value.status].every((status) => ['pass', 'fail', 'skipped'].includes(status))).toBe(true);
    expect(Object.keys(diagnostics.value).length).toBeGreaterThan(0);
    expect([0, 1]).toContain(check.value);
    expect(JSON.parse(printed)).toHaveProperty('pass');
    expect(message.length).toBeLessThan(20_000);
    timings.push(
      `${name}: read ${read.ms.toFixed(0)}, L1 ${syntax.ms.toFixed(0)} (${syntax.value.status}), L2 ${schema.ms.toFixed(0)} (${schema.value.status}), L3 ${safety.ms.toFixed(0)} (${safety.value.status}), diagnostics ${diagnostics.ms.toFixed(0)}, check ${check.ms.toFixed(0)}, matcher ${matcher.ms.toFixed(0)}`,
    );
  });
});
