/**
 * A runaway statement must not outlive the process that started it: the Spider CLI and promptfoo
 * are killed with SIGKILL, SIGINT, SIGTERM and SIGHUP while an engine child runs a recursive CTE
 * that would count for minutes, and every engine child must be gone within 2 s. (Before the child
 * watchdog, the reparented child ran on at 30–50 % CPU, still alive 21 s later.)
 *
 * `npm run eval` is also killed at the npm pid (what `timeout`, CI runners and process managers
 * signal): promptfoo and its engine children must end with it, and leave the output lock free.
 * (Before, npm exited on SIGTERM and SIGHUP while promptfoo, reparented to init, ran on and
 * rewrote the output file later.)
 *
 * All run the compiled package (`dist/`, built by `npm run test:faults`), as an installed
 * package does: that is where the children are plain `node sqlite-child.js`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyEngineChild, descendants, engineChildren, isRunning, waitFor } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNAWAY = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000000000) SELECT count(*) FROM c';
const SIGNALS = ['SIGKILL', 'SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let work: string;
const launched: ChildProcess[] = [];
/** Survival time of the engine children after each kill, for the report. */
const measured: string[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'ladder-faults-signals-'));
  // A Spider-format folder: one database, one gold item, one runaway prediction.
  mkdirSync(path.join(work, 'database', 'tiny'), { recursive: true });
  const db = new Database(path.join(work, 'database', 'tiny', 'tiny.sqlite'));
  db.exec('CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);');
  db.close();
  writeFileSync(path.join(work, 'gold.sql'), 'SELECT count(*) FROM t\ttiny\n');
  writeFileSync(path.join(work, 'pred.sql'), `${RUNAWAY}\n`);
  // A promptfoo config: one warehouse item whose recorded prediction is the runaway statement.
  writeFileSync(path.join(work, 'dataset.yaml'), '- id: runaway\n  question: Count forever?\n  db: warehouse\n  gold_sql: SELECT 1\n');
  writeFileSync(path.join(work, 'recording.jsonl'), `${JSON.stringify({ id: 'runaway', output: RUNAWAY })}\n`);
  writeFileSync(
    path.join(work, 'promptfooconfig.yaml'),
    [
      'prompts:',
      `  - id: file://${ROOT}/dist/providers/prompt.js:text2sqlPrompt`,
      '    label: text2sql',
      'providers:',
      `  - id: file://${ROOT}/dist/providers/replay.js`,
      '    label: runaway',
      '    config:',
      `      predictions: ${path.join(work, 'recording.jsonl')}`,
      'tests:',
      `  - path: file://${ROOT}/dist/datasets/promptfoo-tests.js:loadTests`,
      '    config:',
      `      file: ${path.join(work, 'dataset.yaml')}`,
      '      ladder: { timeoutMs: 600000 }',
      'extensions:',
      `  - file://${ROOT}/dist/assertions/summary-hooks.js:afterAll`,
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  for (const child of launched) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\nengine children after the parent was killed:\n${measured.map((line) => `  ${line}`).join('\n')}\n`);
});

function launchSpiderCli(): ChildProcess {
  const child = spawn(
    process.execPath,
    ['dist/cli/text2sql-ladder.js', 'spider', '--gold', path.join(work, 'gold.sql'), '--pred', path.join(work, 'pred.sql'), '--db', path.join(work, 'database'), '--timeout-ms', '600000'],
    { cwd: ROOT, stdio: 'ignore' },
  );
  launched.push(child);
  return child;
}

function launchPromptfoo(signal: string): ChildProcess {
  const state = path.join(work, `.promptfoo-${signal}`);
  const child = spawn(
    'bash',
    ['-c', `. scripts/promptfoo-env.sh; exec "$PROMPTFOO_BIN" eval -c ${JSON.stringify(path.join(work, 'promptfooconfig.yaml'))} --no-cache --no-progress-bar --no-table -o ${JSON.stringify(path.join(work, `out-${signal}.json`))}`],
    { cwd: ROOT, stdio: 'ignore', env: { ...process.env, PROMPTFOO_CONFIG_DIR: state } },
  );
  launched.push(child);
  return child;
}

async function killDuringRunaway(label: string, child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const busy = await busyEngineChild(child.pid!, 120_000);
  const children = engineChildren(child.pid!);
  expect(children).toContain(busy);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
  const gone = await waitFor(() => children.every((pid) => !isRunning(pid)), 2_000);
  const survivors = children.filter(isRunning);
  measured.push(`${label}, ${signal}: ${children.length} child(ren) ${gone === undefined ? 'STILL RUNNING after 2000 ms' : `gone ${gone} ms after the parent exited`}`);
  // Survivors would count for minutes: end them (they are this test's) before failing.
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  expect(gone, `${label} killed with ${signal}: engine children ${survivors.join(', ')} still ran`).toBeDefined();
}

describe('the Spider CLI killed during a runaway statement', () => {
  it.each(SIGNALS)('%s: no engine child survives 2 s', async (signal) => {
    await killDuringRunaway('spider CLI', launchSpiderCli(), signal);
  });
});

describe('the Spider CLI with --out interrupted during a runaway statement', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s: says on stderr that --out was not written, and exits by the signal', async (signal) => {
    const out = path.join(work, `interrupted-${signal}.jsonl`);
    const child = spawn(
      process.execPath,
      ['dist/cli/text2sql-ladder.js', 'spider', '--gold', path.join(work, 'gold.sql'), '--pred', path.join(work, 'pred.sql'), '--db', path.join(work, 'database'), '--timeout-ms', '600000', '--out', out],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    launched.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('close', (_code, by) => resolve(by)));
    await busyEngineChild(child.pid!, 120_000);
    child.kill(signal);
    expect(await exited).toBe(signal);
    expect(stderr).toBe(`spider: interrupted by ${signal} after 0 of 1 items; --out ${out} was not written (a partial file would read as a whole run)\n`);
    expect(existsSync(out)).toBe(false);
  });
});

describe('promptfoo killed during a runaway statement', () => {
  it.each(SIGNALS)('%s: no engine child survives 2 s', async (signal) => {
    await killDuringRunaway('promptfoo eval', launchPromptfoo(signal), signal);
  });
});

function launchNpmEval(signal: string): { child: ChildProcess; output: string } {
  const output = path.join(work, `npm-${signal}.json`);
  const child = spawn('npm', ['run', 'eval'], {
    cwd: ROOT,
    stdio: 'ignore',
    // Its own process group, so that whatever survives can be ended here (the group outlives npm).
    detached: true,
    env: { ...process.env, CONFIG: path.join(work, 'promptfooconfig.yaml'), OUTPUT: output, PROMPTFOO_CONFIG_DIR: path.join(work, `.promptfoo-npm-${signal}`) },
  });
  launched.push(child);
  return { child, output };
}

describe('npm run eval killed at the npm pid during a runaway statement', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s: promptfoo and its engine children end, the output lock is free', async (signal) => {
    const { child, output } = launchNpmEval(signal);
    await busyEngineChild(child.pid!, 180_000);
    const under = descendants(child.pid!);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    // promptfoo may save a paused run first (SIGINT): a generous bound on a loaded machine.
    const gone = await waitFor(() => under.every((pid) => !isRunning(pid)), 30_000);
    const survivors = under.filter(isRunning);
    measured.push(`npm run eval, ${signal}: ${under.length} process(es) under npm ${gone === undefined ? 'STILL RUNNING after 30000 ms' : `gone ${gone} ms after npm exited`}`);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is already empty
    }
    expect(gone, `npm run eval killed with ${signal}: ${survivors.map((pid) => `${pid}`).join(', ')} still ran`).toBeDefined();
    expect(existsSync(output), 'the killed run wrote its output file').toBe(false);
    expect(spawnSync('flock', ['-n', path.join(path.dirname(output), `.${path.basename(output)}.lock`), 'true']).status, 'the output lock is still held').toBe(0);
  });
});
