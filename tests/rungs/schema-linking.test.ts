import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/engine/engine.js';
import { bestLinking, schemaElementsOf, scoreSchemaLinking } from '../../src/rungs/schema-linking.js';

const RETRIEVED_8 = ['orders', 'order_items', 'products', 'regions', 'customers'];
const GOLD_8 = 'SELECT * FROM orders o JOIN customers c USING (customer_id)';

function elements(sql: string, catalog?: Catalog) {
  const result = schemaElementsOf(sql, 'sqlite', catalog);
  if (!result.ok) throw new Error(result.reason);
  return result.elements;
}

describe('Text-to-SQL Evals §8 worked example', () => {
  it('k=5: table_recall 1.0, all_tables_hit true, precision 0.4', () => {
    const result = scoreSchemaLinking({ goldSqls: [GOLD_8], dialect: 'sqlite', retrieved: RETRIEVED_8, k: 5 });
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 1, allTablesHit: true, precision: 0.4 });
    expect(result.namedScores).toMatchObject({ schema_table_recall: 1, schema_all_tables_hit: 1, schema_precision: 0.4 });
    expect(result.status).toBe('pass');
  });

  it('k=3: table_recall 0.5, all_tables_hit false', () => {
    const result = scoreSchemaLinking({ goldSqls: [GOLD_8], dialect: 'sqlite', retrieved: RETRIEVED_8, k: 3 });
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 0.5, allTablesHit: false, missingTables: ['customers'] });
    expect(result.details?.retrieval?.precision).toBeCloseTo(1 / 3, 12);
    expect(result.status).toBe('fail');
    expect(result.score).toBe(0.5);
  });

  it('a CTE named like a table is not a second table: precision 1.0 with one retrieved table', () => {
    const result = scoreSchemaLinking({ goldSqls: ['WITH orders AS (SELECT * FROM orders) SELECT * FROM orders'], dialect: 'sqlite', retrieved: ['orders'], k: 3 });
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 1, allTablesHit: true, precision: 1, goldTables: ['orders'] });
  });
});

describe('gold schema elements', () => {
  it('excludes CTE names and keeps the tables their bodies read', () => {
    expect(elements('WITH recent AS (SELECT id FROM orders) SELECT r.id FROM recent AS r JOIN customers AS c ON c.oid = r.id')).toEqual({
      tables: ['customers', 'orders'],
      columns: ['customers.oid', 'orders.id'],
    });
  });

  it('includes columns used only in JOIN … ON', () => {
    expect(elements('SELECT c.name FROM orders AS o JOIN customers AS c ON o.cid = c.id').columns).toEqual(['customers.id', 'customers.name', 'orders.cid']);
  });

  it('resolves unqualified columns through the catalog', () => {
    const catalog: Catalog = {
      tables: [
        { name: 'orders', kind: 'table', schema: 'main', columns: [{ name: 'id', type: 'INTEGER', primaryKey: true }, { name: 'cid', type: 'INTEGER', primaryKey: false }] },
        { name: 'customers', kind: 'table', schema: 'main', columns: [{ name: 'cust_id', type: 'INTEGER', primaryKey: true }, { name: 'name', type: 'TEXT', primaryKey: false }] },
      ],
    };
    expect(elements('SELECT name FROM orders JOIN customers ON cid = cust_id', catalog)).toEqual({
      tables: ['customers', 'orders'],
      columns: ['customers.cust_id', 'customers.name', 'orders.cid'],
    });
  });
});

describe('scoreSchemaLinking', () => {
  it('accepts a match against any valid gold (view vs base tables)', () => {
    const result = scoreSchemaLinking({
      goldSqls: ['SELECT total FROM v_sales', 'SELECT s.total FROM sales AS s JOIN stores AS t ON s.store = t.id'],
      dialect: 'sqlite',
      retrieved: ['sales', 'stores'],
    });
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 1, precision: 1, goldCandidate: 1 });
  });

  it('uses the tables the engine reads as one more gold set (sees through views)', () => {
    const result = scoreSchemaLinking({ goldSqls: ['SELECT total FROM v_sales'], dialect: 'sqlite', retrieved: ['sales', 'stores'], goldTablesRead: [['sales', 'stores']] });
    expect(result.details?.goldCandidates.map((c) => c.source)).toEqual(['gold 0', 'gold 0 (engine tablesRead)']);
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 1, goldCandidate: 1 });
  });

  it('classifies a miss as retrieval (not retrieved) or generation (retrieved, not used)', () => {
    const notRetrieved = scoreSchemaLinking({ goldSqls: [GOLD_8], dialect: 'sqlite', retrieved: RETRIEVED_8, k: 3, predictedSql: 'SELECT * FROM orders' });
    expect(notRetrieved.details?.misses).toEqual([{ table: 'customers', source: 'retrieval' }]);
    expect(notRetrieved.details?.missSource).toBe('retrieval');
    const notUsed = scoreSchemaLinking({ goldSqls: [GOLD_8], dialect: 'sqlite', retrieved: RETRIEVED_8, k: 5, predictedSql: 'SELECT * FROM orders' });
    expect(notUsed.details?.missSource).toBe('generation');
    expect(notUsed.namedScores).toMatchObject({ schema_generation_table_recall: 0.5, schema_generation_precision: 1, schema_generation_all_tables_hit: 0 });
    expect(notUsed.reason).toBe('retrieval@5: recall 1.00, precision 0.40; generation: recall 0.50, precision 1.00; missed customers (generation)');
  });

  it('counts column entries for column recall, and a table entry covers its columns', () => {
    const result = scoreSchemaLinking({
      goldSqls: ['SELECT c.name FROM orders AS o JOIN customers AS c ON o.cid = c.id WHERE o.total > 1'],
      dialect: 'sqlite',
      retrieved: ['orders.total', 'customers'],
    });
    expect(result.details?.retrieval).toMatchObject({ tableRecall: 1, columnRecall: 0.75, precision: 1 });
  });

  it('skips when no gold reads a table, and validates k', () => {
    expect(scoreSchemaLinking({ goldSqls: ['SELECT 1'], dialect: 'sqlite', retrieved: ['t'] }).reason).toBe('no gold query reads a table');
    expect(() => bestLinking([{ tables: ['t'], columns: [] }], ['t'], 0)).toThrow(RangeError);
  });
});
