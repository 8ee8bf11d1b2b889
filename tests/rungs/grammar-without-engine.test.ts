/**
 * L1 without an engine fails what the dialect's own grammar rejects: for sqlite, SQLite's parser
 * (compiled on an empty in-memory database, never run) decides after the AST layer; for the other
 * dialects sql-parser-cst decides, with the two constructs it accepts and the databases reject
 * (a trailing comma in the SELECT list, except BigQuery; a name qualified on a literal) failed.
 */
import { describe, expect, it } from 'vitest';
import { checkSyntax } from '../../src/rungs/syntax.js';

describe('L1 without an engine', () => {
  it.each([
    ['sqlite', 'SELECT customer_id, FROM customers'],
    ['sqlite', 'SELECT NULL.customer_id FROM customers'],
    ['sqlite', 'SELECT a FROM t WHERE a IN (SELECT b, FROM u)'],
    ['postgres', 'SELECT customer_id, FROM customers'],
    ['postgres', "SELECT 'a'.b FROM customers"],
    ['mysql', 'SELECT customer_id, FROM customers'],
    ['bigquery', 'SELECT NULL.customer_id FROM customers'],
  ] as const)('%s: fails %s', async (dialect, sql) => {
    const result = await checkSyntax({ sql, dialect });
    expect(result.status).toBe('fail');
    expect(result.issues[0]?.kind).toBe('syntax_error');
  });

  it.each([
    ['sqlite', 'SELECT customer_id FROM customers'],
    ['sqlite', 'SELECT c.customer_id FROM customers c'],
    ['sqlite', 'SELECT nosuchcolumn FROM nosuchtable'],
    ['postgres', 'SELECT customer_id FROM customers'],
    ['bigquery', 'SELECT customer_id, FROM customers'],
  ] as const)('%s: passes %s (names are L2’s)', async (dialect, sql) => {
    expect((await checkSyntax({ sql, dialect })).status).toBe('pass');
  });
});
