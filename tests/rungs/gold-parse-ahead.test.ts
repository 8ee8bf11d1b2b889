/** L4 in the ladder starts each gold's ORDER BY parse in the parser thread before the golds run. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/engine/engine.js';

const events = vi.hoisted(() => [] as string[]);
vi.mock('../../src/compare/gold-ordering.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/compare/gold-ordering.js')>();
  return { ...original, parseGoldAhead: (sql: string) => (events.push(`ahead: ${sql}`), original.parseGoldAhead(sql)) };
});

const { createSqliteEngine } = await import('../../src/engine/sqlite/sqlite-engine.js');
const { resolveFixture } = await import('../../src/fixtures/registry.js');
const { runLadder } = await import('../../src/rungs/ladder.js');

const GOLD = 'SELECT product_id FROM products ORDER BY product_id LIMIT 2';
const PREDICTED = 'SELECT product_id FROM products ORDER BY 1 LIMIT 2';

let engine: Engine;
let watching: Engine;
let snapshots: { name: string; path: string }[];

beforeAll(async () => {
  engine = createSqliteEngine();
  watching = { ...engine, dialect: 'sqlite', prepare: (r) => engine.prepare(r), execute: (r) => (events.push(`execute: ${r.sql}`), engine.execute(r)), explain: (r) => engine.explain(r), catalog: (db) => engine.catalog(db), close: async () => undefined };
  snapshots = (await resolveFixture('warehouse')).snapshots.map((s) => ({ name: s.name, path: s.path }));
});
afterAll(() => engine.close());

describe('L4: gold parses started ahead', () => {
  it("starts the gold's parse before any statement of L4 runs", async () => {
    events.length = 0;
    const result = await runLadder({ output: PREDICTED, expectedBehavior: 'answer', golds: [GOLD], snapshots, dialect: 'sqlite', engine: watching });
    expect(result.verdict).toBe('pass');
    const firstExecute = events.findIndex((event) => event.startsWith('execute: '));
    expect(firstExecute).toBeGreaterThan(0);
    expect(events.slice(0, firstExecute)).toEqual([`ahead: ${GOLD}`]);
  });

  it('starts none when the dataset fixes the row order (no parse is needed)', async () => {
    events.length = 0;
    await runLadder({ output: PREDICTED, expectedBehavior: 'answer', golds: [GOLD], snapshots, dialect: 'sqlite', engine: watching, goldOrdered: true });
    expect(events.filter((event) => event.startsWith('ahead: '))).toEqual([]);
  });
});
