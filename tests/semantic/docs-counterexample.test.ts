/**
 * The worked example of the counterexample search in docs/test-suites.md ("Counterexample search"):
 * the bundled warehouse, item wh-024 and the strong recorded run's prediction, which passes all
 * three snapshots. The docs must show exactly this output.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { findPackageRoot } from '../../src/fixtures/package-root.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { searchCounterexample } from '../../src/semantic/search/counterexample-search.js';
import { readFixtureInvariants } from '../../src/semantic/model/invariants.js';
import { renderWitness } from '../../src/semantic/search/witness-format.js';

const ROOT = findPackageRoot();
let engine: SqliteEngine;
beforeAll(() => {
  engine = createSqliteEngine();
});
afterAll(async () => {
  await engine.close();
});

const PREDICTED = "SELECT o.user_id, COUNT(*) AS orders FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Fabrikam Inc' AND o.order_date >= '2025-01-01' AND o.status <> 'CANCELLED' AND o.deleted_at IS NULL GROUP BY o.user_id";

describe('docs/test-suites.md: the counterexample search on wh-024', () => {
  it('passes L4 on the snapshots, is refuted by a 4-row database, and the docs show the output', async () => {
    const dataset = await loadDataset(path.join(ROOT, 'datasets', 'warehouse.yaml'));
    const item = dataset.items.find((i) => i.id === 'wh-024')!;
    const { snapshots } = await resolveFixture('warehouse');
    expect((await checkExecution({ engine, golds: item.gold_sql, predictedSql: PREDICTED, snapshots })).status).toBe('pass');
    // As in the docs:
    const outcome = await searchCounterexample({
      engine,
      schemaDb: snapshots[0]!.path,
      snapshots,
      invariants: readFixtureInvariants(path.join(ROOT, 'fixtures', 'warehouse', 'fixture.yaml')),
      golds: item.gold_sql,
      predictedSql: PREDICTED,
      budget: { maxSeconds: 60 },
    });
    expect(outcome.verdict).toBe('refuted');
    if (outcome.verdict !== 'refuted') return;
    const printed = `${outcome.reason}\n\n${renderWitness(outcome.witness, item.gold_sql.length)}`;
    const readme = readFileSync(path.join(ROOT, 'docs', 'test-suites.md'), 'utf8');
    expect(readme).toContain(printed);
  });
});
