import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARSE_TIME_BUDGET_MS, parseInWorker, parseInWorkerAhead, parseJobsPosted, parseTimeBudgetMs, setParseTimeBudgetMs, whenAnsweredInWorker } from '../../src/sql/bounded-parse.js';
import { parseSql, parseSqlAhead, whenParsedAhead } from '../../src/sql/parse.js';
import { GENEROUS_PARSE_BUDGET_MS } from '../helpers/depth-limit.js';

const CST = { dialect: 'sqlite', includeRange: true };

describe('parseInWorker', () => {
  it('returns the tree of a query and the message of a syntax error', () => {
    const parsed = parseInWorker('sql-parser-cst', 'SELECT 1', CST);
    expect(parsed.ok && (parsed.value as { statements: { type: string }[] }).statements.map((statement) => statement.type)).toEqual(['select_stmt']);
    const failed = parseInWorker('sql-parser-cst', 'SELEC 1', CST);
    expect(failed).toMatchObject({ ok: false, budget: false });
    expect(failed.ok ? '' : failed.message).toMatch(/^Syntax Error: Unexpected "SELEC"/);
  });

  it('starts its thread under `node --input-type=module -e` (the thread does not inherit that option)', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "const { parseInWorker } = await import('./src/sql/bounded-parse.ts'); console.log(parseInWorker('sql-parser-cst', 'SELECT 1', { dialect: 'sqlite' }).ok);"], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stdout.trim()).toBe('true');
  });

  it('stops a parse that backtracks exponentially at its time budget, then parses the next text', () => {
    // 26 unclosed parentheses: 22 s in the parser (×2 per level).
    // `budget: true` is the proof: a parse left to finish ends in a syntax error 22 s later.
    expect(parseInWorker('sql-parser-cst', `SELECT ${'('.repeat(26)}`, CST, 300)).toEqual({
      ok: false,
      budget: true,
      message: 'not analysed within budget: the parser took more than 300 ms',
    });
    expect(parseInWorker('sql-parser-cst', 'SELECT 2', CST)).toMatchObject({ ok: true });
  });

  it('refuses a tree deeper than the analysis walks, in the worker', () => {
    // A time budget no load can exhaust: the depth limit decides.
    expect(parseInWorker('sql-parser-cst', `SELECT ${'('.repeat(3_000)}1${')'.repeat(3_000)}`, CST, GENEROUS_PARSE_BUDGET_MS)).toEqual({
      ok: false,
      budget: true,
      message: 'not analysed within budget: the parse tree is more than 1100 levels deep',
    });
  });
});

describe('setParseTimeBudgetMs', () => {
  it('sets the budget of later parses (parseSql names it) and returns the one it replaces', () => {
    expect(parseTimeBudgetMs()).toBe(PARSE_TIME_BUDGET_MS);
    const previous = setParseTimeBudgetMs(300);
    try {
      expect(previous).toBe(PARSE_TIME_BUDGET_MS);
      // A failing expression inside 22 balanced parentheses: seconds in the parser, whatever the load.
      expect(parseSql(`SELECT ${'('.repeat(22)}1 +${')'.repeat(22)}`, 'sqlite')).toMatchObject({ ok: false, error: { budget: true, message: 'not analysed within budget: the parser took more than 300 ms' } });
    } finally {
      setParseTimeBudgetMs(previous);
    }
    expect(parseTimeBudgetMs()).toBe(PARSE_TIME_BUDGET_MS);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses %s', (ms) => {
    expect(() => setParseTimeBudgetMs(ms)).toThrow(new RangeError(`setParseTimeBudgetMs: ms must be a positive integer; received ${String(ms)}`));
    expect(parseTimeBudgetMs()).toBe(PARSE_TIME_BUDGET_MS);
  });
});

describe('parseInWorkerAhead', () => {
  it('parses while the caller works; the later parseInWorker takes that answer, equal to a parse of its own', async () => {
    const sql = 'SELECT name FROM singer WHERE id IN (SELECT singer_id FROM concert) ORDER BY name DESC LIMIT 2';
    parseInWorkerAhead('sql-parser-cst', sql, CST);
    // A parse of this text takes a few milliseconds; a loaded machine gets a generous margin.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const posted = parseJobsPosted();
    const taken = parseInWorker('sql-parser-cst', sql, CST);
    const postedForTaken = parseJobsPosted() - posted;
    const own = parseInWorker('sql-parser-cst', sql, CST);
    expect(taken).toEqual(own);
    expect(taken.ok && (taken.value as { statements: { type: string }[] }).statements.map((statement) => statement.type)).toEqual(['select_stmt']);
    // Already answered: no job sent for it (the parse of its own sent one).
    expect(postedForTaken).toBe(0);
    expect(parseJobsPosted() - posted).toBe(1);
  });

  it('holds each job to its own budget from its own start: one started ahead that runs over ends alone', () => {
    // 20 unclosed parentheses: several seconds in the parser, past the 2000 ms budget.
    const runaway = `SELECT ${'('.repeat(20)}`;
    parseInWorkerAhead('sql-parser-cst', runaway, CST);
    const started = performance.now();
    // Queued behind the runaway: it waits for the runaway's budget, then parses on a fresh thread.
    expect(parseInWorker('sql-parser-cst', 'SELECT 3', CST, 500)).toMatchObject({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    // The runaway is known to be over budget now: answered at once, without the parser.
    const posted = parseJobsPosted();
    expect(parseInWorker('sql-parser-cst', runaway, CST)).toEqual({ ok: false, budget: true, message: 'not analysed within budget: the parser took more than 2000 ms' });
    expect(parseJobsPosted()).toBe(posted);
  });

  it('parseSqlAhead: the later parseSql gives the tree a parse of its own gives', async () => {
    const sql = "SELECT country, count(*) FROM singer GROUP BY country ORDER BY count(*) DESC, country";
    parseSqlAhead(sql);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ahead = parseSql(sql, 'sqlite');
    const own = parseSql(`${sql} `, 'sqlite');
    expect(ahead.ok && own.ok && ahead.kind === 'cst' && own.kind === 'cst' && ahead.program.statements.length).toBe(1);
    expect(JSON.stringify(ahead.ok && ahead.kind === 'cst' ? ahead.program.statements[0] : null)).toBe(JSON.stringify(own.ok && own.kind === 'cst' ? own.program.statements[0] : null));
  });
});

describe('whenAnsweredInWorker', () => {
  // A failing expression inside 16 balanced parentheses: tens to hundreds of milliseconds in the
  // parser (×2 per level), well inside the 2 s budget.
  const slow = `SELECT ${'('.repeat(16)}1 +${')'.repeat(16)}`;

  it('waits for a parse started ahead without blocking the thread; the parse that follows takes its answer', async () => {
    parseInWorker('sql-parser-cst', 'SELECT 0', CST); // the thread is up
    parseInWorkerAhead('sql-parser-cst', slow, CST);
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    await whenAnsweredInWorker('sql-parser-cst', slow, CST);
    clearInterval(timer);
    const posted = parseJobsPosted();
    const outcome = parseInWorker('sql-parser-cst', slow, CST);
    expect(outcome).toMatchObject({ ok: false, budget: false });
    expect(outcome.ok ? '' : outcome.message).toMatch(/^Syntax Error: Unexpected/);
    // The thread ran its timers while the parser worked, and the parse took the answer of the job
    // started ahead (no job of its own).
    expect(ticks).toBeGreaterThan(0);
    expect(parseJobsPosted()).toBe(posted);
  });

  it('keeps the process alive while it waits (the thread is unref\'d; a pending waitAsync holds nothing)', () => {
    const script = [
      "const { parseInWorkerAhead, whenAnsweredInWorker, parseInWorker } = await import('./src/sql/bounded-parse.ts');",
      "const sql = 'SELECT a FROM t WHERE b IN (SELECT c FROM u)';",
      "parseInWorkerAhead('sql-parser-cst', sql, { dialect: 'sqlite' });",
      "await whenAnsweredInWorker('sql-parser-cst', sql, { dialect: 'sqlite' });",
      "console.log(parseInWorker('sql-parser-cst', sql, { dialect: 'sqlite' }).ok);",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    // Exit code 13 would be Node's "unsettled top-level await": the loop emptied while waiting.
    expect({ status: child.status, stdout: child.stdout.trim() }).toEqual({ status: 0, stdout: 'true' });
  });

  it('resolves at once when nothing is under way for the text', async () => {
    let resolved = false;
    const waiting = whenAnsweredInWorker('sql-parser-cst', 'SELECT never_started_ahead', CST).then(() => (resolved = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(resolved).toBe(true);
    await waiting;
  });

  it('gives up at the budget of a job that runs over it; the parse that follows reports the budget', async () => {
    // 21 unclosed parentheses: seconds in the parser, past the 2000 ms budget (a text of its own:
    // one known to be over budget is not started again).
    const runaway = `SELECT ${'('.repeat(21)}`;
    parseInWorkerAhead('sql-parser-cst', runaway, CST);
    const started = performance.now();
    await whenAnsweredInWorker('sql-parser-cst', runaway, CST);
    const waitedMs = performance.now() - started;
    expect(waitedMs).toBeGreaterThanOrEqual(1_500);
    expect(parseInWorker('sql-parser-cst', runaway, CST)).toEqual({ ok: false, budget: true, message: 'not analysed within budget: the parser took more than 2000 ms' });
  });

  it('whenParsedAhead: awaited after parseSqlAhead, parseSql gives the tree of a parse of its own', async () => {
    const sql = 'SELECT singer_id, count(*) FROM concert GROUP BY singer_id HAVING count(*) > 1';
    parseSqlAhead(sql);
    await whenParsedAhead(sql);
    const ahead = parseSql(sql, 'sqlite');
    const own = parseSql(`${sql} `, 'sqlite');
    expect(JSON.stringify(ahead.ok && ahead.kind === 'cst' ? ahead.program.statements[0] : null)).toBe(JSON.stringify(own.ok && own.kind === 'cst' ? own.program.statements[0] : null));
    // Parsed already (recent parses), or never started ahead: nothing to wait for, resolved at once.
    for (const text of [sql, 'SELECT never_parsed_ahead FROM t']) {
      let resolved = false;
      const waiting = whenParsedAhead(text).then(() => (resolved = true));
      await Promise.resolve();
      await Promise.resolve();
      expect(resolved).toBe(true);
      await waiting;
    }
  });
});

describe('parseSql on pathological text', () => {
  it.each([
    ['a failing expression inside 24 balanced parentheses (about 15 s in the parser)', 'sqlite', `SELECT ${'('.repeat(24)}1 +${')'.repeat(24)}`],
    ['16 nested WITH in PostgreSQL (90 s and "Invalid array length" in the parser)', 'postgres', `WITH ${'a AS (WITH '.repeat(16)}`],
  ] as const)('%s ends within budget', (_case, dialect, sql) => {
    const parsed = parseSql(sql, dialect);
    expect(parsed).toMatchObject({ ok: false, error: { budget: true, message: 'not analysed within budget: the parser took more than 2000 ms' } });
  });

  it.each([
    ['26 unclosed parentheses', `SELECT ${'('.repeat(26)}`, { message: 'Syntax Error: 26 "(" never closed; the first opens here', line: 1, column: 8 }],
    ['a closing parenthesis with none open', "SELECT ')' FROM t)", { message: 'Syntax Error: Unexpected ")": no "(" is open', line: 1, column: 18 }],
  ])('sqlite: %s is a syntax error at once, without the parser', (_case, sql, error) => {
    expect(parseSql(sql, 'sqlite')).toEqual({ ok: false, dialect: 'sqlite', error });
  });
});
