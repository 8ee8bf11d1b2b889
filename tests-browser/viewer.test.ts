/**
 * Browser test (npm run test:browser; not part of npm test): runs the main job into a fresh
 * promptfoo data folder, starts `promptfoo view` on it, opens the viewer in headless Debian
 * Chromium through playwright-core (no browser download) and checks that each candidate's column
 * header shows the rung metrics (`L1_syntax` … `end_to_end` as "<pct>% (<sum>/<count>)").
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
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

const run = promisify(execFile);
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const CONFIG = process.env['CONFIG'] ?? 'promptfooconfig.yaml';
const PORT = Number(process.env['VIEW_PORT'] ?? 15517);
const RUNGS = ['L1_syntax', 'L2_schema', 'L3_safety', 'L4_execution', 'end_to_end'];
const CANDIDATES = ['strong', 'weak'];

const work = mkdtempSync(path.join(tmpdir(), 'ladder-browser-'));
const dataDir = path.join(work, '.promptfoo');
let server: ChildProcess | undefined;
let browser: BrowserContext | undefined;
let evalId = '';

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`promptfoo view did not answer ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

before(async () => {
  const output = path.join(work, 'eval.json');
  await run('bash', ['scripts/eval.sh'], { env: { ...process.env, CONFIG, OUTPUT: output, PROMPTFOO_CONFIG_DIR: dataDir }, maxBuffer: 1 << 26 });
  evalId = (JSON.parse(readFileSync(output, 'utf8')) as { evalId: string }).evalId;
  // Its own process group, so that `after` ends the server and nothing else.
  server = spawn('bash', ['scripts/view.sh'], { env: { ...process.env, PORT: String(PORT), PROMPTFOO_CONFIG_DIR: dataDir }, detached: true, stdio: 'ignore' });
  await waitForHealth(`http://127.0.0.1:${PORT}/health`, 60_000);
  browser = await chromium.launchPersistentContext(path.join(work, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
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

test('the viewer shows the rung metrics for both candidates', { timeout: 300_000 }, async () => {
  const page = await browser!.newPage();
  await page.goto(`http://localhost:${PORT}/eval/${evalId}`, { waitUntil: 'networkidle', timeout: 120_000 });
  await page.getByText('L4_execution').first().waitFor({ timeout: 120_000 });
  const text = await page.locator('body').innerText();
  // Each candidate's column header: "<label>\n<n>% passing (…)", then its custom metrics as
  // "<metric>\n<pct>% (<sum>/<count>)", up to "Requests:".
  for (const candidate of CANDIDATES) {
    const header = new RegExp(`\\n${candidate}\\n[\\d.]+% passing[\\s\\S]*?Requests:`).exec(text)?.[0];
    assert.ok(header, `no column header for candidate ${candidate}`);
    for (const rung of RUNGS) {
      assert.match(header, new RegExp(`\\n${rung}\\n\\d+(\\.\\d+)?% \\(\\d+(\\.\\d+)?/\\d+(\\.\\d+)?\\)`), `${candidate}: no ${rung} metric`);
    }
  }
});
