import { describe, expect, it } from 'vitest';
import { MAX_LISTED_STATEMENTS, MAX_NAMED_IN_REASON, nameStatements, withNamedStatements } from '../../src/rungs/named-statements.js';
import { checkSafety } from '../../src/rungs/safety.js';

describe('naming the statements of a long text', () => {
  it('gives each statement its line and column from one pass over the text', () => {
    const named = nameStatements('SELECT 1;\n  DELETE FROM t;\nSELECT 2', [], false);
    expect(named.map(({ index, keyword, line, column, findings }) => ({ index, keyword, line, column, findings }))).toEqual([
      { index: 1, keyword: 'SELECT', line: 1, column: 1, findings: [] },
      { index: 2, keyword: 'DELETE', line: 2, column: 3, findings: ['write_statement'] },
      { index: 3, keyword: 'SELECT', line: 3, column: 1, findings: [] },
    ]);
  });

  it('quotes at most five unsafe statements in the reason and lists the first hundred in the details', async () => {
    const sql = 'DELETE FROM t;\n'.repeat(40_000);
    const result = withNamedStatements(sql, await checkSafety({ sql, dialect: 'sqlite' }));
    expect(result.status).toBe('fail');
    expect(result.reason.startsWith('statement 1 of 40000 (DELETE FROM t): write_statement; statement 2 of 40000 (DELETE FROM t): write_statement;')).toBe(true);
    expect(result.reason).toContain(`statement ${MAX_NAMED_IN_REASON} of 40000 (DELETE FROM t): write_statement; (+39995 more unsafe statements); `);
    expect(result.details.statements).toHaveLength(MAX_LISTED_STATEMENTS);
    expect(result.details.statementCount).toBe(40_000);
    expect(result.details.statements![99]).toMatchObject({ index: 100, line: 100, column: 1 });
  });
});
