import { describe, expect, it } from 'vitest';
import { isLadderError } from '../../src/errors.js';
import { createParseMemo, memoFor } from '../../src/rungs/parse-memo.js';
import { checkSafety } from '../../src/rungs/safety.js';
import { checkSchema } from '../../src/rungs/schema.js';
import { checkSyntax } from '../../src/rungs/syntax.js';

const CATALOG = { tables: [{ name: 'orders', schema: 'main', kind: 'table' as const, columns: [{ name: 'amount', type: 'REAL', primaryKey: false }] }] };

describe('createParseMemo', () => {
  it('parses a text once, whatever asks', () => {
    const memo = createParseMemo('sqlite');
    const first = memo.parse('SELECT 1');
    expect(memo.parse('SELECT 1')).toBe(first);
    memo.parse('SELECT 2');
    expect(memo.parses).toBe(2);
  });

  it('L1, L2 and L3 on one text: one parse, one reference resolution (L3 reuses L2\'s)', async () => {
    const memo = createParseMemo('sqlite');
    const sql = 'SELECT amount FROM orders';
    await checkSyntax({ sql, dialect: 'sqlite', parses: memo });
    const withCatalog = memo.references(sql, { catalog: CATALOG });
    checkSchema({ sql, dialect: 'sqlite', catalog: CATALOG, parses: memo });
    checkSafety({ sql, dialect: 'sqlite', parses: memo });
    expect(memo.references(sql)).toBe(withCatalog);
    expect(memo.parses).toBe(1);
  });

  it('a resolution with another catalog or double-quote mode is its own', () => {
    const memo = createParseMemo('sqlite');
    const sql = 'SELECT "amount" FROM orders';
    const legacy = memo.references(sql, { catalog: CATALOG });
    expect(memo.references(sql, { catalog: CATALOG, doubleQuotes: 'strict' })).not.toBe(legacy);
    expect(memo.references(sql, { catalog: { tables: [] } })).not.toBe(legacy);
    expect(memo.parses).toBe(1);
  });

  it('an unreadable text is a parse_error resolution', () => {
    expect(createParseMemo('sqlite').references('SELEC 1')).toMatchObject({ ok: false, code: 'parse_error' });
  });

  it('a memo of another dialect is misuse', () => {
    expect(() => memoFor(createParseMemo('postgres'), 'sqlite')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(isLadderError((() => {
      try {
        checkSafety({ sql: 'SELECT 1', dialect: 'sqlite', parses: createParseMemo('mysql') });
      } catch (error) {
        return error;
      }
      return undefined;
    })(), 'invalid_argument')).toBe(true);
  });
});
