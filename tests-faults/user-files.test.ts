/**
 * Every file the package reads from the user is a regular file read with a limit, and every
 * message that quotes user or model text escapes control bytes. Through the compiled CLI: a FIFO,
 * a device and an oversized file are one `error:` line with exit 2 at once (0.2.0: `compare` on
 * /dev/zero aborted with std::bad_alloc after 44 s, on a FIFO it hung); SQL holding terminal escape
 * sequences (window title, clear screen) comes back with no raw control byte on stdout, stderr or
 * in a `--out` file, SQLite's own "unrecognized token" errors included (0.2.0 echoed them raw).
 * In process: a dataset and a recording that are a FIFO or /dev/zero fail at load.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../src/dataset/load.js';
import { loadRecording } from '../src/report/read-recording.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'text2sql-ladder.js');
/** Any C0 control but newline, DEL, or a C1 control: what must never reach a terminal raw. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const TITLE_AND_CLEAR = '\u001b]0;PWNED\u0007\u001b[2J';

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-files-'));
  spawnSync('mkfifo', [path.join(work, 'pipe.json')]);
  symlinkSync('/dev/zero', path.join(work, 'zero.json'));
  writeFileSync(path.join(work, 'big.json'), `[${'1,'.repeat(200)}1]`);
  mkdirSync(path.join(work, 'database', 'tiny'), { recursive: true });
  const db = new Database(path.join(work, 'database', 'tiny', 'tiny.sqlite'));
  db.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);');
  db.close();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): { status: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd: work,
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: 60_000,
    env: { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: path.join(work, 'cache'), ...options.env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

describe('a run file that is not a regular file, or too large', () => {
  it.each([
    ['a FIFO', ['pipe.json', 'pipe.json'], {}, 'error: cannot read run file pipe.json: it is a FIFO (named pipe), not a regular file\n'],
    ['/dev/zero', ['/dev/zero#strong', '/dev/zero#strong'], {}, 'error: cannot read run file /dev/zero: it is a character device, not a regular file\n'],
    ['a link to /dev/zero', ['zero.json', 'zero.json'], {}, 'error: cannot read run file zero.json: it is a character device, not a regular file\n'],
    ['a file over the limit', ['big.json', 'big.json'], { TEXT2SQL_LADDER_MAX_INPUT_BYTES: '100' }, 'error: run file big.json is 403 bytes, over the limit of 100 bytes read from one input file; raise it with TEXT2SQL_LADDER_MAX_INPUT_BYTES=<bytes> (at most 536870888)\n'],
  ] as const)('compare on %s: exit 2, one line, no hang', (_label, args, env, stderr) => {
    const run = cli(['compare', ...args], { env });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 2, stdout: '', stderr });
  });

  it('spider --gold on a FIFO: exit 2, one line', () => {
    const run = cli(['spider', '--gold', 'pipe.json', '--pred', 'zero.json', '--db', 'database']);
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
    expect(run.stderr).toMatch(/^error: [^\n]*pipe\.json[^\n]*it is a FIFO \(named pipe\), not a regular file\n$/);
  });

  it('a dataset and a recording that are a FIFO or /dev/zero fail at load, naming the file', async () => {
    await expect(loadDataset(path.join(work, 'pipe.json'))).rejects.toThrow(`${path.join(work, 'pipe.json')}: it is a FIFO (named pipe), not a regular file`);
    await expect(loadDataset(path.join(work, 'zero.json'))).rejects.toThrow(`${path.join(work, 'zero.json')}: it is a character device, not a regular file`);
    expect(() => loadRecording(path.join(work, 'pipe.json'), 'jsonl')).toThrow(`${path.join(work, 'pipe.json')}: it is a FIFO (named pipe), not a regular file`);
  });
});

describe('terminal escape sequences in SQL', () => {
  it.each([
    ['as an unknown token', `SELECT ${TITLE_AND_CLEAR} FROM t`],
    ['in an unterminated quote', `SELECT \`${TITLE_AND_CLEAR} FROM t`],
    ['in a table name', `SELECT a FROM "t${TITLE_AND_CLEAR}"`],
  ])('check: %s: no raw control byte in text or JSON output', (_label, sql) => {
    for (const json of [[], ['--json']]) {
      const run = cli(['check', '--db', path.join(work, 'database', 'tiny', 'tiny.sqlite'), ...json], { input: sql });
      expect(run.status).toBe(1);
      expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
      expect(run.stdout + run.stderr).toContain('\\u001b');
    }
  });

  it("spider: SQLite's unrecognized-token errors of gold and prediction are escaped, on the terminal and in --out", () => {
    writeFileSync(path.join(work, 'gold.sql'), `SELECT \`${TITLE_AND_CLEAR} FROM t\ttiny\nSELECT a FROM t\ttiny\n`);
    writeFileSync(path.join(work, 'pred.sql'), 'SELECT a FROM t\nSELECT \u001b[2J FROM t\n');
    const run = cli(['spider', '--gold', 'gold.sql', '--pred', 'pred.sql', '--db', 'database', '--out', 'out.jsonl']);
    expect(run.status).toBe(0);
    const out = readFileSync(path.join(work, 'out.jsonl'), 'utf8');
    expect(run.stdout + run.stderr + out).not.toMatch(RAW_CONTROL);
    expect(run.stdout + run.stderr).toContain('item 0 (tiny): gold_error: no gold runs on every snapshot (gold 0 on tiny: unrecognized token: "`\\u001b]0;PWNED\\u0007\\u001b[2J FROM t")');
    expect(run.stdout + run.stderr).toContain('item 1 (tiny): snapshot tiny: prediction failed (syntax_error): unrecognized token: "\\u001b"');
    rmSync(path.join(work, 'out.jsonl'));
  });

  it('a fixture script whose error quotes an escape sequence', () => {
    const dir = path.join(work, 'fixtures', 'esc');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'fixture.yaml'), 'name: esc\ndialect: sqlite\nsnapshots:\n  base: { scripts: [s.sql] }\n');
    writeFileSync(path.join(dir, 's.sql'), `CREATE TABLE t (a);\nINSERT INTO t VALUES (\`${TITLE_AND_CLEAR});\n`);
    const run = cli(['fixtures', 'build', dir]);
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: `error: ${dir}/s.sql:2: fails while building snapshot "base" of fixture esc: unrecognized token: "\`\\u001b]0;PWNED\\u0007\\u001b[2J); "\n`,
    });
  });
});
