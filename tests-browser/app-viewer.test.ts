/**
 * The app test's viewer check (scripts/test-app.sh --viewer, which runs it through
 * scripts/test-browser.sh; not part of npm test): in the app folder that script made and ran
 * (APP_DIR: `text2sql-ladder init`, `npm install`, `npm run eval` done, so `out/eval.json`,
 * `out/eval-summary.json` and `.promptfoo/` hold the run), starts the app's own `npm run view` —
 * its promptfoo, on the Node first on PATH — and checks in headless Chromium that every rung number
 * of the column header equals the ladder summary's.
 *
 * Runs under node:test (`node --import tsx --test`). Env: APP_DIR (required), CHROMIUM (default
 * /usr/bin/chromium), VIEW_PORT (default 15518, beside the main viewer test's 15517).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { expectedHeaders, headerMetrics, launchBrowser, waitForHealth, type SummaryColumn } from './viewer-page.js';

const APP_DIR = process.env['APP_DIR'];
if (APP_DIR === undefined) throw new Error('APP_DIR must name an app folder made by scripts/test-app.sh (init, npm install, npm run eval done)');
const PORT = Number(process.env['VIEW_PORT'] ?? 15518);

const work = mkdtempSync(path.join(tmpdir(), 'ladder-app-browser-'));
let server: ChildProcess | undefined;
let browser: BrowserContext | undefined;

before(async () => {
  // Its own process group, so that `after` ends npm, promptfoo and nothing else.
  server = spawn('npm', ['run', 'view', '--', '--port', String(PORT)], { cwd: APP_DIR, detached: true, stdio: 'ignore' });
  await waitForHealth(`http://127.0.0.1:${PORT}/health`, 120_000);
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

test("the app's run: every rung number in the column header equals the summary's", { timeout: 300_000 }, async () => {
  const evalId = (JSON.parse(readFileSync(path.join(APP_DIR, 'out', 'eval.json'), 'utf8')) as { evalId: string }).evalId;
  const summary = JSON.parse(readFileSync(path.join(APP_DIR, 'out', 'eval-summary.json'), 'utf8')) as SummaryColumn[];
  assert.deepEqual(summary.map((column) => column.provider), ['baseline']);
  const expected = expectedHeaders(summary);
  // The scaffold's run: five items, four correct end to end (test-app.sh checks the summary itself).
  assert.equal(expected[0]!['end_to_end'], '4/5');
  assert.deepEqual(await headerMetrics(browser!, PORT, evalId), expected);
});
