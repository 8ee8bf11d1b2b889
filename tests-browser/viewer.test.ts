/**
 * Browser test (npm run test:browser; not part of npm test): runs the main job into a fresh
 * promptfoo data folder, starts `promptfoo view` on it, opens the viewer in headless Debian
 * Chromium through playwright-core (no browser download) and checks the VALUES of every rung number
 * in every column header ("<metric>\n<pct>% (<sum>/<count>)") against the ladder summary the run
 * wrote (LADDER_SUMMARY_JSON): each rung's header is the summary's "of all items" figure, and
 * `end_to_end` its end-to-end figure. Two runs: the main job (strong / weak: L6 applies to 56 vs 22
 * rows) and a prompt A/B on one provider (tests-browser/prompt-ab.promptfooconfig.yaml), where the
 * two columns reach the rungs on different numbers of rows.
 *
 * Runs under node:test (`node --import tsx --test`), so it needs no vitest config of its own.
 * Env: CHROMIUM (default /usr/bin/chromium), CONFIG (default promptfooconfig.yaml), VIEW_PORT
 * (default 15517, so it never collides with `npm run view` on 15500).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { expectedHeaders, headerMetrics, launchBrowser, waitForHealth, type SummaryColumn } from './viewer-page.js';

const run = promisify(execFile);
const CONFIG = process.env['CONFIG'] ?? 'promptfooconfig.yaml';
const PORT = Number(process.env['VIEW_PORT'] ?? 15517);
const AB_CONFIG = 'tests-browser/prompt-ab.promptfooconfig.yaml';

interface Run {
  readonly evalId: string;
  readonly summary: readonly SummaryColumn[];
}

const work = mkdtempSync(path.join(tmpdir(), 'ladder-browser-'));
const dataDir = path.join(work, '.promptfoo');
let server: ChildProcess | undefined;
let browser: BrowserContext | undefined;
const runs: Record<string, Run> = {};

before(async () => {
  for (const [name, config] of [['main', CONFIG], ['prompt A/B', AB_CONFIG]] as const) {
    const output = path.join(work, `${name === 'main' ? 'eval' : 'ab'}.json`);
    const summaryFile = output.replace(/\.json$/, '-summary.json');
    await run('bash', ['scripts/eval.sh'], { env: { ...process.env, CONFIG: config, OUTPUT: output, LADDER_SUMMARY_JSON: summaryFile, PROMPTFOO_CONFIG_DIR: dataDir }, maxBuffer: 1 << 26 });
    runs[name] = {
      evalId: (JSON.parse(readFileSync(output, 'utf8')) as { evalId: string }).evalId,
      summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as SummaryColumn[],
    };
  }
  // Its own process group, so that `after` ends the server and nothing else.
  server = spawn('bash', ['scripts/view.sh'], { env: { ...process.env, PORT: String(PORT), PROMPTFOO_CONFIG_DIR: dataDir }, detached: true, stdio: 'ignore' });
  await waitForHealth(`http://127.0.0.1:${PORT}/health`, 60_000);
  browser = await launchBrowser(path.join(work, 'chromium-profile'));
});

after(async () => {
  await browser?.close();
  if (server?.pid !== undefined) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

for (const name of ['main', 'prompt A/B']) {
  test(`${name}: every rung number in every column header equals the summary's`, { timeout: 300_000 }, async () => {
    const { evalId, summary } = runs[name]!;
    assert.ok(summary.length >= 2, `${name}: the summary has ${summary.length} columns`);
    assert.deepEqual(await headerMetrics(browser!, PORT, evalId), expectedHeaders(summary));
  });
}

test('the two runs reach the rungs on different numbers of rows per column (the case the header got wrong)', () => {
  const reached = (run: Run, rung: string) => run.summary.map((column) => column.rungs.find((entry) => entry.name === rung));
  const [strong, weak] = reached(runs['main']!, 'L6_efficiency');
  assert.deepEqual([strong?.n, weak?.n], [56, 20]);
  const [a, b] = reached(runs['prompt A/B']!, 'L4_execution');
  assert.deepEqual([a?.n, b?.n, a?.ofAll.n, b?.ofAll.n], [15, 0, 15, 15]);
});
