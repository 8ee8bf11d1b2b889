/** ParseMemo.parseAhead: which texts it starts in the parser thread (parseSqlAhead observed). */
import { describe, expect, it, vi } from 'vitest';

const started = vi.hoisted(() => [] as string[]);
vi.mock('../../src/sql/parse.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/sql/parse.js')>();
  return { ...original, parseSqlAhead: (sql: string) => (started.push(sql), original.parseSqlAhead(sql)) };
});

const { createParseMemo } = await import('../../src/rungs/parse-memo.js');

describe('ParseMemo.parseAhead', () => {
  it('starts a SQLite text the memo has not parsed, and nothing for one it has', () => {
    started.length = 0;
    const memo = createParseMemo('sqlite');
    memo.parseAhead('SELECT 1 AS a');
    memo.parse('SELECT 2 AS b');
    memo.parseAhead('SELECT 2 AS b');
    expect(started).toEqual(['SELECT 1 AS a']);
    // The tree the later parse reads is the one started ahead, counted once.
    expect(memo.parse('SELECT 1 AS a').ok).toBe(true);
    expect(memo.parses).toBe(2);
  });

  it('starts nothing for a memo of another dialect', () => {
    started.length = 0;
    createParseMemo('postgres').parseAhead('SELECT 1');
    expect(started).toEqual([]);
  });
});
