import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../src/engine/engine.js';
import type { Witness } from '../../src/rungs/semantic-details.js';
import { formatRefutationReason, formatResultInline, insertStatements, readableIdentifier, renderWitness, witnessTables } from '../../src/semantic/search/witness-format.js';

const result = (columns: string[], rows: QueryResult['rows']): QueryResult => ({ columns, rows, doubleQuoteFallback: false, executedSql: '', elapsedMs: 0 });

const tables = witnessTables([
  { name: 'customers', columns: ['customer_id', 'name'], rows: [{ key: [1n], values: [1n, "O'Neil"] }] },
  { name: 'order', columns: ['id', 'customer_id', 'amount'], rows: [{ key: [1n], values: [1n, 1n, 3] }, { key: [2n], values: [2n, 1n, 2.5] }] },
  { name: 'empty', columns: ['x'], rows: [] },
]);

const witness: Witness = {
  golds: [0],
  rowsPerTable: { customers: 1, order: 2, empty: 0 },
  totalRows: 3,
  maxRowsPerTable: 2,
  tables,
  inserts: insertStatements(tables),
  script: '',
  checksum: '0'.repeat(64),
  file: null,
  goldResults: [result(['total'], [[3]])],
  predicted: { ok: true, result: result(['SUM(amount)'], [[5.5]]) },
  verdicts: [null],
  difference: '1 missing row, 1 extra row',
  shrink: { rowsBefore: 9, rowsAfter: 3, trials: 12, accepted: 5, valuesSimplified: 4, stoppedBy: 'done' },
  draw: { index: 3, tier: 'tiny' },
};

describe('witness-format', () => {
  it.each([
    ['orders', 'orders'],
    ['order', '"order"'],
    ['Order Items', '"Order Items"'],
    ['x"y', '"x""y"'],
  ])('readableIdentifier(%j) is %s', (name, expected) => {
    expect(readableIdentifier(name)).toBe(expected);
  });

  it('writes one INSERT per table that holds rows, keeping storage classes', () => {
    expect(insertStatements(tables)).toEqual([
      "INSERT INTO customers (customer_id, name) VALUES (1, 'O''Neil');",
      'INSERT INTO "order" (id, customer_id, amount) VALUES (1, 1, 3.0), (2, 1, 2.5);',
    ]);
  });

  it.each([
    [result(['a'], []), 'no rows'],
    [result(['a'], [[3]]), '[3]'],
    [result(['a'], [[null], ['x']]), "[NULL, 'x']"],
    [result(['a', 'b'], [[1, 'a'], [2, 'b']]), "[(1, 'a'), (2, 'b')]"],
    [result(['a'], [[1], [2], [3], [4]]), '[1, 2, 3, … 4 rows]'],
  ])('formats a result in one line: %j', (r, expected) => {
    expect(formatResultInline(r)).toBe(expected);
  });

  it('gives the one-line reason', () => {
    expect(formatRefutationReason({ witnesses: [witness] }, 1)).toBe(
      "refuted on a 3-row database: gold returns [3], prediction [5.5]; INSERT INTO customers (customer_id, name) VALUES (1, 'O''Neil'); INSERT INTO \"order\" (id, customer_id, amount) VALUES (1, 1, 3.0), (2, 1, 2.5);",
    );
    const failing: Witness = { ...witness, golds: [1], predicted: { ok: false, error: { code: 'query_error', message: 'integer overflow' } } };
    expect(formatRefutationReason({ witnesses: [witness, failing] }, 2)).toBe(
      "refuted: on a 3-row database, gold 0 returns [3], prediction [5.5]; INSERT INTO customers (customer_id, name) VALUES (1, 'O''Neil'); INSERT INTO \"order\" (id, customer_id, amount) VALUES (1, 1, 3.0), (2, 1, 2.5); | on a 3-row database, gold 1 returns [3], prediction fails (query_error: integer overflow); INSERT INTO customers (customer_id, name) VALUES (1, 'O''Neil'); INSERT INTO \"order\" (id, customer_id, amount) VALUES (1, 1, 3.0), (2, 1, 2.5);",
    );
  });

  it('renders the witness as tables', () => {
    expect(renderWitness(witness)).toMatchInlineSnapshot(`
      "Witness database (3 rows; tables not shown are empty):
        customers
        | customer_id | name      |
        |-------------|-----------|
        | 1           | 'O''Neil' |
        order
        | id | customer_id | amount |
        |----|-------------|--------|
        | 1  | 1           | 3      |
        | 2  | 1           | 2.5    |
      Gold result (1 row):
        | total |
        |-------|
        | 3     |
      Predicted result (1 row):
        | SUM(amount) |
        |-------------|
        | 5.5         |
      Difference: 1 missing row, 1 extra row"
    `);
  });
});
