/**
 * The parent's memory with results just under `maxResultBytes`, every one held at once by the
 * caller (the shape of the attack that took 0.2.0's parent to 1 082 MiB for 8 results of 15 000
 * rows × 2 000 characters, against a documented 512 MiB). docs/engine.md states the bound this
 * checks: what the rows keep alive is at most `poolSize` × `maxResultBytes`, and the parent's
 * resident peak, which also holds the transfer's garbage until V8 collects it, stays under twice
 * that. A process of its own per case (the compiled package), its peak RSS (`VmHWM`) over its
 * baseline after every child has started.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const POOL = 4;
const CAP = 64 * 2 ** 20;

const PARENT = `
import { readFileSync } from 'node:fs';
const [db, table, poolSize, cap] = process.argv.slice(2);
const { createSqliteEngine } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/engine/sqlite/sqlite-engine.js'))});
const peak = () => Number(/^VmHWM:\\s+(\\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const engine = createSqliteEngine({ poolSize: Number(poolSize), maxResultBytes: Number(cap), timeoutMs: 600000 });
await Promise.all(Array.from({ length: Number(poolSize) }, () => engine.execute({ db, sql: 'SELECT 1' })));
const baseline = peak();
const results = await Promise.all(Array.from({ length: Number(poolSize) }, () => engine.execute({ db, sql: 'SELECT * FROM ' + table })));
const growth = peak() - baseline;
process.stdout.write(JSON.stringify({ rows: results.map((r) => (r.ok ? r.result.rows.length : r.error.code)), growth }) + '\\n');
await engine.close();
`;

let work: string;
const measured: string[] = [];
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-memory-'));
  writeFileSync(path.join(work, 'parent.mjs'), PARENT);
  const db = new Database(path.join(work, 'results.sqlite'));
  // Each table's full result costs just under 64 MiB as counted (result-bytes.ts): text 16 000 ×
  // (56 + 32 + 2 × 2 000) = 65 408 000; blobs 15 000 × (56 + 320 + 4 000) = 65 640 000.
  db.exec("CREATE TABLE text (a TEXT); CREATE TABLE blobs (a BLOB);");
  db.exec("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 16000) INSERT INTO text SELECT printf('%.1999c', 'x') || (i % 10) FROM c");
  db.exec('WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 15000) INSERT INTO blobs SELECT randomblob(4000) FROM c');
  db.close();
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\nparent peak RSS over its baseline, ${POOL} results just under ${CAP} bytes held at once:\n${measured.map((line) => `  ${line}`).join('\n')}\n`);
});

describe(`the parent with ${POOL} results just under maxResultBytes held at once`, () => {
  it.each([
    ['text', 16_000],
    ['blobs', 15_000],
  ] as const)('%s: every result returns, and the peak stays under twice poolSize × maxResultBytes', (table, rows) => {
    const run = spawnSync(process.execPath, [path.join(work, 'parent.mjs'), path.join(work, 'results.sqlite'), table, String(POOL), String(CAP)], { encoding: 'utf8', timeout: 180_000 });
    expect(run.status, run.stderr).toBe(0);
    const { rows: got, growth } = JSON.parse(run.stdout) as { rows: unknown[]; growth: number };
    measured.push(`${table}: ${(growth / 2 ** 20).toFixed(0)} MiB (bound ${(2 * POOL * CAP) / 2 ** 20} MiB)`);
    expect(got).toEqual(Array.from({ length: POOL }, () => rows));
    expect(growth).toBeLessThan(2 * POOL * CAP);
  });
});
